import { describe, expect, it } from "vitest";
import type { NodeHealth } from "../gql/graphql";
import { deleteEffects, groupNodes, healthCounts, keepPresent } from "./nodeGroups";

const node = (id: string, group: string, health: NodeHealth = "SCHEDULABLE", launchTime: string | null = "2026-12-02T18:00:00Z") => ({
  id,
  instanceGroupId: `g-${group}`,
  instanceGroupName: group,
  health,
  launchTime,
});
const group = (name: string, targetCount = 2) => ({ id: `g-${name}`, name, targetCount });

describe("healthCounts", () => {
  it("counts each label, healthy first, leaving out labels no node has", () => {
    const nodes = [node("a", "x", "UNKNOWN"), node("b", "x"), node("c", "x", "UNSCHEDULABLE_PENDING_REBOOT"), node("d", "x")];
    expect(healthCounts(nodes)).toEqual([
      { health: "SCHEDULABLE", count: 2 },
      { health: "UNSCHEDULABLE_PENDING_REBOOT", count: 1 },
      { health: "UNKNOWN", count: 1 },
    ]);
  });
  it("is empty for no nodes", () => {
    expect(healthCounts([])).toEqual([]);
  });
});

describe("groupNodes", () => {
  it("makes a section per group in the groups' order, with empty ones, then unlisted groups by name", () => {
    const nodes = [
      node("i-3", "gpu", "SCHEDULABLE", "2026-12-02T18:00:03Z"),
      node("i-9", "zeta"),
      node("i-1", "gpu", "UNSCHEDULABLE", "2026-12-02T18:00:01Z"),
      node("i-0", "gpu", "UNKNOWN", null),
      node("i-8", "alpha"),
    ];
    const sections = groupNodes([group("gpu"), group("cpu")], nodes);
    expect(sections.map((s) => [s.name, s.nodes.map((n) => n.id), s.group !== null])).toEqual([
      ["gpu", ["i-1", "i-3", "i-0"], true],
      ["cpu", [], true],
      ["alpha", ["i-8"], false],
      ["zeta", ["i-9"], false],
    ]);
    expect(sections[0]!.health).toEqual([
      { health: "SCHEDULABLE", count: 1 },
      { health: "UNSCHEDULABLE", count: 1 },
      { health: "UNKNOWN", count: 1 },
    ]);
    expect(sections[1]!.health).toEqual([]);
  });
});

describe("keepPresent", () => {
  it("drops ids of nodes that are gone", () => {
    expect([...keepPresent(new Set(["a", "b"]), [{ id: "a" }])]).toEqual(["a"]);
  });
  it("returns the same set when all are present", () => {
    const selected = new Set(["a"]);
    expect(keepPresent(selected, [{ id: "a" }, { id: "b" }])).toBe(selected);
  });
});

describe("deleteEffects", () => {
  it("lowers each group's target count by its deleted nodes", () => {
    const nodes = [node("a", "gpu"), node("b", "gpu"), node("c", "cpu"), node("d", "gone")];
    expect(deleteEffects(nodes, [group("gpu", 4), group("cpu", 1)])).toEqual([
      { name: "cpu", deleted: 1, from: 1, to: 0 },
      { name: "gone", deleted: 1, from: null, to: null },
      { name: "gpu", deleted: 2, from: 4, to: 2 },
    ]);
  });
});
