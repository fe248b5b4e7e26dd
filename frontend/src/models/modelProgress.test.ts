import { describe, expect, it } from "vitest";
import { filesAndSize, modelProgress } from "./modelProgress";

const GiB = 1024 ** 3;

describe("modelProgress", () => {
  it("counts the files and bytes there, and the bar follows the bytes", () => {
    expect(modelProgress({ filesDone: 12, filesTotal: 20, bytesDone: 9.1 * GiB, bytesTotal: 15.3 * GiB })).toEqual({
      fraction: 9.1 / 15.3,
      percent: 59,
      files: "12 of 20 files",
      bytes: "9.1 GiB of 15.3 GiB",
      complete: false,
    });
  });

  it("says 100% only once every file is there", () => {
    const nearly = modelProgress({ filesDone: 6, filesTotal: 7, bytesDone: 999_990, bytesTotal: 1_000_000 });
    expect(nearly.percent).toBe(99);
    expect(nearly.complete).toBe(false);
    const done = modelProgress({ filesDone: 7, filesTotal: 7, bytesDone: 1_000_000, bytesTotal: 1_000_000 });
    expect([done.percent, done.fraction, done.complete]).toEqual([100, 1, true]);
  });

  it.each([
    ["nothing yet", { filesDone: 0, filesTotal: 7, bytesDone: 0, bytesTotal: 1000 }, 0, "0 of 7 files"],
    ["a model of no known size, by files", { filesDone: 1, filesTotal: 4, bytesDone: 0, bytesTotal: 0 }, 25, "1 of 4 files"],
    ["one file", { filesDone: 0, filesTotal: 1, bytesDone: 0, bytesTotal: 10 }, 0, "0 of 1 file"],
    ["no files at all", { filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 }, 0, "0 of 0 files"],
    ["more bytes than the total (a file rewritten)", { filesDone: 3, filesTotal: 4, bytesDone: 2000, bytesTotal: 1000 }, 99, "3 of 4 files"],
  ])("%s", (_, counts, percent, files) => {
    const p = modelProgress(counts);
    expect(p.percent).toBe(percent);
    expect(p.files).toBe(files);
    expect(p.fraction).toBeGreaterThanOrEqual(0);
    expect(p.fraction).toBeLessThanOrEqual(1);
  });
});

describe("filesAndSize", () => {
  const counts = { filesDone: 3, filesTotal: 7, bytesDone: 11_430_000, bytesTotal: 999_536_826 };
  it.each([
    ["READY", { ...counts, filesDone: 7, bytesDone: 999_536_826 }, "7 files, 953 MiB"],
    ["PRESENT", { filesDone: 2, filesTotal: 2, bytesDone: 2048, bytesTotal: 2048 }, "2 files, 2 KiB"],
    ["DOWNLOADING", counts, "3 of 7 files, 10.9 MiB of 953 MiB"],
    // A failed download says how much is there, never that it is whole.
    ["FAILED", counts, "3 of 7 files, 10.9 MiB of 953 MiB"],
    ["CANCELLED", counts, "3 of 7 files, 10.9 MiB of 953 MiB"],
  ])("%s", (status, c, want) => {
    expect(filesAndSize({ ...c, status })).toBe(want);
  });
});
