import { describe, expect, it } from "vitest";
import { modelOrigin, shortCommit } from "./modelWords";

const commit = "4a1b2c3d4e5f60718293a4b5c6d7e8f901234567";

describe("modelOrigin", () => {
  it.each([
    [{ modelId: "Qwen/Qwen3-8B", revision: "main", commit }, "Qwen/Qwen3-8B @ main (4a1b2c3)"],
    [{ modelId: "Qwen/Qwen3-8B", revision: "4a1b2c3d", commit }, "Qwen/Qwen3-8B @ 4a1b2c3d"],
    [{ modelId: "Qwen/Qwen3-8B", revision: "main", commit: null }, "Qwen/Qwen3-8B @ main"],
    [{ modelId: null, revision: null, commit: null }, null],
  ])("%j", (m, want) => {
    expect(modelOrigin(m)).toBe(want);
  });

  it("shortens a commit to 7 characters", () => {
    expect(shortCommit(commit)).toBe("4a1b2c3");
  });
});
