import { describe, expect, it } from "vitest";
import { clusterChanges, earlierCursor, listedGroups } from "./clusterCompute";

describe("earlierCursor", () => {
  it.each([
    ["9", "10", "9"],
    ["10", "9", "9"],
    ["12", "12", "12"],
    [undefined, "3", undefined],
    ["3", undefined, undefined],
  ])("of %s and %s is %s", (a, b, want) => {
    expect(earlierCursor(a, b)).toBe(want);
  });
});

describe("clusterChanges", () => {
  const node = (id: string, clusterId: string) => ({ id, clusterId, updatedAt: "2026-12-02T18:00:00Z" });
  const events = [
    { action: "CREATED", target: { kind: "NODE", id: "i-1" }, node: node("i-1", "c1"), instanceGroup: null },
    { action: "UPDATED", target: { kind: "NODE", id: "i-2" }, node: node("i-2", "c2"), instanceGroup: null },
    { action: "DELETED", target: { kind: "NODE", id: "i-3" }, node: node("i-3", "c1"), instanceGroup: null },
    { action: "DELETED", target: { kind: "INSTANCE_GROUP", id: "g-1" }, node: null, instanceGroup: null },
    { action: "UPDATED", target: { kind: "INSTANCE_GROUP", id: "g-2" }, node: null, instanceGroup: { ...node("g-2", "c1") } },
  ];
  it("keeps changes of this cluster's records of the kind, and deletions by id", () => {
    expect(clusterChanges(events, "NODE", "c1", (e) => e.node)).toEqual([
      { id: "i-1", record: events[0]!.node },
      { id: "i-3", record: null },
    ]);
  });
  it("does not take another kind's deletion for one of its own", () => {
    expect(clusterChanges(events, "INSTANCE_GROUP", "c1", (e) => e.instanceGroup)).toEqual([
      { id: "g-1", record: null },
      { id: "g-2", record: events[4]!.instanceGroup },
    ]);
  });
});

describe("listedGroups", () => {
  it("lists live groups oldest first", () => {
    const g = (name: string, createdAt: string, status = "IN_SERVICE") => ({ name, createdAt, status });
    const out = listedGroups([g("b", "2026-12-02T18:00:02Z"), g("gone", "2026-12-02T18:00:00Z", "DELETED"), g("a", "2026-12-02T18:00:01Z")]);
    expect(out.map((x) => x.name)).toEqual(["a", "b"]);
  });
});
