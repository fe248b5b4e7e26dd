import { describe, expect, it } from "vitest";
import { compareTimes, formatAgo, formatDuration } from "./time";

describe("compareTimes", () => {
  it.each([
    ["2026-12-02T18:00:00Z", "2026-12-02T18:00:01Z", -1],
    ["2026-12-02T18:00:00.5Z", "2026-12-02T18:00:00.25Z", 1],
    ["2026-12-02T18:00:00.000000002Z", "2026-12-02T18:00:00.000000001Z", 1],
    ["2026-12-02T18:00:00.1Z", "2026-12-02T18:00:00.100Z", 0],
    ["2026-12-02T19:00:00+01:00", "2026-12-02T18:00:00Z", 0],
  ])("%s vs %s", (a, b, sign) => {
    expect(Math.sign(compareTimes(a, b))).toBe(sign);
  });
});

describe("formatDuration", () => {
  it.each([
    [850, "850 ms"],
    [42_000, "42 s"],
    [185_000, "3 min 05 s"],
    [3_720_000, "1 h 02 min"],
    [-5, "0 ms"],
  ])("%d ms is %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe("formatAgo", () => {
  const now = Date.parse("2026-12-02T18:00:00Z");
  it.each([
    ["2026-12-02T17:59:55Z", "just now"],
    ["2026-12-02T17:59:30Z", "30 s ago"],
    ["2026-12-02T17:55:00Z", "5 min ago"],
    ["2026-12-02T15:00:00Z", "3 h ago"],
    ["2026-11-29T18:00:00Z", "3 d ago"],
    [null, "—"],
  ])("%s is %s", (t, text) => {
    expect(formatAgo(t, now)).toBe(text);
  });
});
