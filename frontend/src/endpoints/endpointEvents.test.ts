import { describe, expect, it } from "vitest";
import { touchesEndpoints } from "./endpointEvents";

const event = (id: string, payload?: unknown, kind = "ENDPOINT") => ({ target: { kind, id }, payload });

describe("touchesEndpoints", () => {
  it("sees a change of a listed endpoint, whatever its payload says", () => {
    expect(touchesEndpoints([event("e1")], "c1", new Set(["e1"]))).toBe(true);
  });

  it("sees a new endpoint of the cluster by its payload's cluster", () => {
    expect(touchesEndpoints([event("e2", { clusterId: "c1", name: "qwen" })], "c1", new Set(["e1"]))).toBe(true);
  });

  it("ignores another cluster's endpoints and events of other kinds", () => {
    expect(touchesEndpoints([event("e3", { clusterId: "c2" })], "c1", new Set(["e1"]))).toBe(false);
    expect(touchesEndpoints([event("e1", { clusterId: "c1" }, "JOB")], "c1", new Set(["e1"]))).toBe(false);
    expect(touchesEndpoints([event("e4", null), event("e5", "text")], "c1", new Set())).toBe(false);
  });
});
