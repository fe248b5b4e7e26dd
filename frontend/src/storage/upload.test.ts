import { describe, expect, it } from "vitest";
import { keyProblem, missingParts, planParts, singlePutLimit, uploadKey } from "./upload";

describe("uploadKey", () => {
  it.each([
    ["datasets/", "", "train.jsonl", "datasets/train.jsonl"],
    ["datasets/", "alpaca", "data/train.jsonl", "datasets/alpaca/data/train.jsonl"],
    ["code/", "/proj/ ", "a.py", "code/proj/a.py"],
  ] as const)("%s + %s + %s", (folder, sub, path, want) => {
    expect(uploadKey(folder, sub, path)).toBe(want);
  });
});

describe("keyProblem", () => {
  it("takes plain paths under datasets/ and code/", () => {
    expect(keyProblem("datasets/a/b.txt")).toBeUndefined();
    expect(keyProblem("code/train.py")).toBeUndefined();
  });
  it.each(["models/x", "datasets/../x", "datasets/./x", "datasets/a\\b", "datasets/a\u0001", "datasets/", "datasets/" + "a".repeat(1020)])(
    "refuses %s",
    (key) => {
      expect(keyProblem(key)).toBeDefined();
    },
  );
});

describe("planParts", () => {
  it("cuts into 8 MiB parts, larger when a file would need more than 1000", () => {
    expect(planParts(singlePutLimit + 1)).toEqual({ partSize: 8 * 1024 * 1024, count: 3 });
    const big = planParts(20 * 1024 ** 3);
    expect(big.count).toBeLessThanOrEqual(1000);
    expect(big.partSize % (1024 * 1024)).toBe(0);
  });
});

describe("missingParts", () => {
  it("lists what S3 does not hold", () => {
    expect(missingParts(4, [{ partNumber: 1 }, { partNumber: 3 }])).toEqual([2, 4]);
    expect(missingParts(2, [])).toEqual([1, 2]);
  });
});
