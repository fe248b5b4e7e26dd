import { describe, expect, it } from "vitest";
import { checkLabels, checkTaints, sameLabels, sameTaints, taintInputs } from "./kubernetesConfig";

const label = (key: string, value = "v") => ({ row: key, key, value });

describe("checkLabels", () => {
  it.each([
    ["team", true],
    ["example.com/team", true],
    ["nvidia.com/gpu.product", true],
    ["a".repeat(63), true],
    ["a".repeat(64), false],
    ["-team", false],
    ["team-", false],
    ["Example.com/team", false],
    ["sagemaker.amazonaws.com/node-health-status", false],
    ["has space", false],
  ])("key %j valid: %s", (key, valid) => {
    expect(checkLabels([label(key)]).length === 0).toBe(valid);
  });

  it.each([
    ["", true],
    ["ml", true],
    ["a.b_c-d", true],
    ["-x", false],
    ["x".repeat(64), false],
  ])("value %j valid: %s", (value, valid) => {
    expect(checkLabels([{ row: "1", key: "k", value }]).length === 0).toBe(valid);
  });

  it("refuses a key given twice and a value without a key", () => {
    expect(checkLabels([label("a"), label("a")])).toHaveLength(1);
    expect(checkLabels([{ row: "1", key: "", value: "x" }])).toHaveLength(1);
  });
});

describe("checkTaints", () => {
  it("checks keys and values, and ignores blank rows", () => {
    expect(checkTaints([{ row: "1", key: "gpu", value: "", effect: "NO_SCHEDULE" }])).toEqual([]);
    expect(checkTaints([{ row: "1", key: "", value: "", effect: "NO_SCHEDULE" }])).toEqual([]);
    expect(checkTaints([{ row: "1", key: "g pu", value: "", effect: "NO_SCHEDULE" }])).toHaveLength(1);
  });
});

describe("comparing sets", () => {
  it("ignores order", () => {
    expect(sameLabels([{ key: "a", value: "1" }, { key: "b", value: "2" }], [{ key: "b", value: "2" }, { key: "a", value: "1" }])).toBe(true);
    expect(sameLabels([{ key: "a", value: "1" }], [{ key: "a", value: "2" }])).toBe(false);
  });
  it("takes no taint value and an empty one as the same", () => {
    expect(sameTaints([{ key: "a", value: null, effect: "NO_SCHEDULE" }], [{ key: "a", effect: "NO_SCHEDULE" }])).toBe(true);
    expect(sameTaints([{ key: "a", effect: "NO_SCHEDULE" }], [{ key: "a", effect: "NO_EXECUTE" }])).toBe(false);
  });
  it("sends a taint without an empty value", () => {
    expect(taintInputs([{ row: "1", key: " a ", value: " ", effect: "NO_EXECUTE" }])).toEqual([{ key: "a", effect: "NO_EXECUTE" }]);
  });
});
