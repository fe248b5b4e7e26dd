import { describe, expect, it } from "vitest";
import { targetPath } from "./targets";

describe("targetPath", () => {
  it.each([
    [{ kind: "CLUSTER", id: "c 1" }, "/clusters/c%201"],
    [{ kind: "OPERATION", id: "op1" }, "/operations/op1"],
    [{ kind: "INSTANCE_GROUP", id: "g1" }, "/instance-groups/g1"],
    [{ kind: "CLUSTER_NODES", id: "c1" }, "/clusters/c1/nodes"],
    [{ kind: "ENDPOINT", id: "e1" }, "/endpoints/e1"],
    [{ kind: "SUBSCRIPTION", id: "events" }, null],
  ])("%j is %s", (target, path) => {
    expect(targetPath(target)).toBe(path);
  });
});
