import { describe, expect, it } from "vitest";
import { touchesStorages } from "./storageEvents";

const event = (id: string, payload: unknown, kind = "STORAGE") => ({ action: "UPDATED", target: { kind, id }, payload });

describe("touchesStorages", () => {
  const known = new Set(["s1"]);
  it.each([
    ["a known storage", event("s1", null), true],
    ["a new storage of the cluster", event("s2", { id: "s2", clusterId: "c1", status: "CREATING" }), true],
    ["a storage of another cluster", event("s3", { id: "s3", clusterId: "c2" }), false],
    ["another kind with the same id", event("s1", { clusterId: "c1" }, "OPERATION"), false],
    ["a payload that is not a record", event("s4", "c1"), false],
    ["a resubscribe", { action: "RESUBSCRIBE", target: { kind: "SUBSCRIPTION", id: "events" }, payload: null }, false],
  ])("%s: %s", (_, e, want) => {
    expect(touchesStorages([e], "c1", known)).toBe(want);
  });
});
