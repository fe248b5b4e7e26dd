import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import { changesAnything, editDiff, editDraftOf, editServerErrors, minCountFollows, rebaseDraft, validateEditDraft, type EditableGroup } from "./editGroupForm";

const group: EditableGroup = {
  targetCount: 4,
  minCount: 2,
  deepHealthChecks: ["InstanceStress"],
  labels: [
    { key: "team", value: "ml" },
    { key: "tier", value: "gold" },
  ],
  taints: [{ key: "gpu", value: null, effect: "NO_SCHEDULE" }],
};

describe("editDiff", () => {
  it("sends nothing for an untouched draft", () => {
    const input = editDiff(group, editDraftOf(group));
    expect(input).toEqual({});
    expect(changesAnything(input)).toBe(false);
  });

  it("sends only the count when only the count changed", () => {
    expect(editDiff(group, { ...editDraftOf(group), count: "6" })).toEqual({ count: 6 });
  });

  it("sends only the minimum count when only it changed", () => {
    expect(editDiff(group, { ...editDraftOf(group), minCount: "3" })).toEqual({ minCount: 3 });
  });

  it("reads a group without a minimum count as 0", () => {
    const g = { ...group, minCount: null };
    expect(editDiff(g, editDraftOf(g))).toEqual({});
    expect(editDiff(g, { ...editDraftOf(g), minCount: "1" })).toEqual({ minCount: 1 });
  });

  it("sends a changed list whole", () => {
    const draft = editDraftOf(group);
    draft.labels = [...draft.labels, { row: "x", key: "owner", value: "alice" }];
    expect(editDiff(group, draft)).toEqual({
      labels: [
        { key: "team", value: "ml" },
        { key: "tier", value: "gold" },
        { key: "owner", value: "alice" },
      ],
    });
  });

  it("sends an emptied list as empty, which clears it", () => {
    expect(editDiff(group, { ...editDraftOf(group), taints: [], deepHealthChecks: [] })).toEqual({ taints: [], deepHealthChecks: [] });
  });

  it("does not count reordering, blank rows or trimmed spaces as changes", () => {
    const draft = editDraftOf(group);
    draft.labels = [
      { row: "a", key: "tier ", value: "gold" },
      { row: "b", key: "", value: "" },
      { row: "c", key: "team", value: " ml" },
    ];
    draft.taints = [{ row: "d", key: "gpu", value: "", effect: "NO_SCHEDULE" }];
    expect(editDiff(group, draft)).toEqual({});
  });

  it("sends a taint whose effect changed", () => {
    const draft = editDraftOf(group);
    draft.taints = [{ ...draft.taints[0]!, effect: "NO_EXECUTE" }];
    expect(editDiff(group, draft)).toEqual({ taints: [{ key: "gpu", effect: "NO_EXECUTE" }] });
  });

  it("sends deep health checks in their canonical order", () => {
    expect(editDiff(group, { ...editDraftOf(group), deepHealthChecks: ["InstanceConnectivity", "InstanceStress"] })).toEqual({
      deepHealthChecks: ["InstanceStress", "InstanceConnectivity"],
    });
  });
});

describe("validateEditDraft", () => {
  it.each([
    ["0", true],
    ["1000", true],
    ["1001", false],
    ["x", false],
  ])("count %j valid: %s", (count, valid) => {
    expect(validateEditDraft(group, { ...editDraftOf(group), count, minCount: "0" })["input.count"] === undefined).toBe(valid);
  });

  it("refuses a changed minimum count above the count", () => {
    expect(validateEditDraft(group, { ...editDraftOf(group), minCount: "5" })["input.minCount"]).toHaveLength(1);
  });

  it("lets an unchanged minimum count follow a lowered count down", () => {
    const draft = { ...editDraftOf(group), count: "1" };
    expect(validateEditDraft(group, draft)).toEqual({});
    expect(minCountFollows(group, draft)).toBe(1);
    expect(minCountFollows(group, { ...editDraftOf(group), count: "3" })).toBeNull();
  });

  it("checks labels", () => {
    const draft = editDraftOf(group);
    draft.labels = [{ row: "x", key: "-bad", value: "v" }];
    expect(validateEditDraft(group, draft)["input.labels"]).toHaveLength(1);
  });
});

describe("editServerErrors", () => {
  it("puts IMMUTABLE_FIELD and other errors next to fields the form has, others on top", () => {
    expect(
      editServerErrors([
        { message: "count out of range", extensions: { code: "VALIDATION", field: "input.count" } },
        { message: "zone is fixed", extensions: { code: "IMMUTABLE_FIELD", field: "input.zone" } },
      ]),
    ).toEqual({ "input.count": ["count out of range"], [generalKey]: ["zone is fixed (input.zone)"] });
  });
});

describe("rebaseDraft", () => {
  it("lets untouched fields follow the group, and keeps what the user changed", () => {
    const draft = { ...editDraftOf(group), minCount: "1" }; // the user lowered the minimum
    const after: EditableGroup = { ...group, targetCount: 8, labels: [{ key: "team", value: "infra" }] }; // scaled, relabelled elsewhere
    const rebased = rebaseDraft(group, after, draft);
    expect(rebased.count).toBe("8");
    expect(rebased.minCount).toBe("1");
    expect(editDiff(after, rebased)).toEqual({ minCount: 1 });
  });

  it("keeps a user's label edit when the labels changed elsewhere too", () => {
    const draft = editDraftOf(group);
    draft.labels = [{ row: "x", key: "team", value: "research" }];
    const after: EditableGroup = { ...group, labels: [{ key: "team", value: "infra" }] };
    expect(editDiff(after, rebaseDraft(group, after, draft))).toEqual({ labels: [{ key: "team", value: "research" }] });
  });

  it("keeps the same draft rows when nothing the user sees changed", () => {
    const draft = editDraftOf(group);
    const rebased = rebaseDraft(group, { ...group }, draft);
    expect(rebased.labels).toBe(draft.labels);
    expect(rebased.taints).toBe(draft.taints);
  });
});
