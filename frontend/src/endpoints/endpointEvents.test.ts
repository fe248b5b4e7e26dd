import { describe, expect, it } from "vitest";
import { clusterChanges } from "../clusters/clusterCompute";
import { bringsNewEndpoint, endpointEventKind } from "./endpointEvents";

const endpoint = (id: string, clusterId = "c1") => ({ id, clusterId, updatedAt: "2026-01-01T00:00:00Z" });
const event = (action: string, id: string, clusterId = "c1", kind = endpointEventKind) => ({
  action,
  target: { kind, id },
  endpoint: action === "DELETED" ? null : endpoint(id, clusterId),
});
const brings = (events: ReturnType<typeof event>[], known: string[]) =>
  bringsNewEndpoint(
    clusterChanges(events, endpointEventKind, "c1", (e) => e.endpoint),
    new Set(known),
  );

describe("bringsNewEndpoint", () => {
  it("sees an endpoint of the cluster that is not listed", () => {
    expect(brings([event("CREATED", "e2")], ["e1"])).toBe(true);
    expect(brings([event("UPDATED", "e1"), event("UPDATED", "e2")], ["e1"])).toBe(true);
  });

  it("leaves a listed endpoint's change and deletion to the merge", () => {
    expect(brings([event("UPDATED", "e1"), event("DELETED", "e1")], ["e1"])).toBe(false);
    expect(brings([event("DELETED", "e9")], ["e1"])).toBe(false);
  });

  it("ignores another cluster's endpoints and events of other kinds", () => {
    expect(brings([event("CREATED", "e3", "c2")], [])).toBe(false);
    expect(brings([event("CREATED", "e4", "c1", "JOB")], [])).toBe(false);
  });
});
