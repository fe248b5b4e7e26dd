import { describe, expect, it } from "vitest";
import { exactSize, formatSize } from "./objectSize";

describe("formatSize", () => {
  it.each([
    [0, "0 B"],
    [1, "1 B"],
    [1023, "1023 B"],
    [1024, "1 KiB"],
    [1536, "1.5 KiB"],
    [1024 * 1024 - 1, "1 MiB"],
    [5 * 1024 * 1024, "5 MiB"],
    [1.2 * 1024 ** 3, "1.2 GiB"],
    [99.96 * 1024 ** 3, "100 GiB"],
    [340 * 1024 ** 3, "340 GiB"],
    [3 * 1024 ** 4, "3 TiB"],
    [2 ** 53, "8 PiB"],
  ])("%d bytes is %s", (bytes, want) => {
    expect(formatSize(bytes)).toBe(want);
  });
});

describe("exactSize", () => {
  it.each([
    [1, "1 byte"],
    [1288490189, "1,288,490,189 bytes"],
  ])("%d is %s", (bytes, want) => {
    expect(exactSize(bytes)).toBe(want);
  });
});
