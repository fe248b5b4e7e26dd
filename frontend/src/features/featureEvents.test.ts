import { describe, expect, it } from "vitest";
import { clusterOperationChanges, runningOperation, touchesFeatures } from "./featureEvents";

const op = (id: string, kind: string, status: string, target: { kind: string; id: string }, createdAt = "2026-12-02T18:00:00Z") => ({
  id,
  kind,
  status,
  target,
  createdAt,
  updatedAt: createdAt,
});

const c1 = { kind: "CLUSTER", id: "c1" };
const event = (operation: ReturnType<typeof op>) => ({ action: "UPDATED", target: { id: operation.id }, operation });

describe("clusterOperationChanges", () => {
  it("keeps the operations whose target is this cluster", () => {
    const mine = op("o1", "UpdateClusterFeatures", "RUNNING", c1);
    const events = [
      event(mine),
      event(op("o2", "UpdateClusterFeatures", "RUNNING", { kind: "CLUSTER", id: "c2" })),
      event(op("o3", "ScaleInstanceGroup", "RUNNING", { kind: "INSTANCE_GROUP", id: "c1" })),
    ];
    expect(clusterOperationChanges(events, "c1")).toEqual([{ id: "o1", record: mine }]);
  });
});

describe("touchesFeatures", () => {
  it.each([
    [op("o1", "UpdateClusterFeatures", "SUCCEEDED", c1), true],
    [op("o1", "UpdateClusterFeatures", "RUNNING", { kind: "CLUSTER", id: "c2" }), false],
    [op("o1", "DeleteCluster", "RUNNING", c1), false],
    [op("o1", "RebootNodes", "RUNNING", { kind: "CLUSTER_NODES", id: "c1" }), false],
  ])("%j: %s", (operation, want) => {
    expect(touchesFeatures([event(operation)], "c1")).toBe(want);
  });

  it("reads nothing for events without an operation", () => {
    expect(touchesFeatures([{ action: "RESUBSCRIBE", target: { id: "events" }, operation: null }], "c1")).toBe(false);
  });
});

describe("runningOperation", () => {
  it("is the newest operation still running, whatever its kind", () => {
    const ops = [
      op("o1", "CreateCluster", "SUCCEEDED", c1, "2026-12-02T18:00:00Z"),
      op("o2", "UpdateClusterFeatures", "QUEUED", c1, "2026-12-02T18:05:00Z"),
      op("o3", "UpdateClusterFeatures", "RUNNING", c1, "2026-12-02T18:03:00Z"),
    ];
    expect(runningOperation(ops)?.id).toBe("o2");
  });

  it("is null when every operation ended", () => {
    expect(runningOperation([op("o1", "UpdateClusterFeatures", "FAILED", c1), op("o2", "DeleteCluster", "CANCELLED", c1)])).toBeNull();
  });
});
