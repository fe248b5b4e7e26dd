import { describe, expect, it } from "vitest";
import { layoutTimeline, ticks } from "./timeline";

const t = (s: number) => new Date(Date.UTC(2026, 11, 2, 18, 0, 0) + s * 1000).toISOString();

describe("layoutTimeline", () => {
  it("puts concurrent phases side by side on one axis", () => {
    const tl = layoutTimeline(
      [
        { name: "iam-roles", status: "SUCCEEDED", startedAt: t(0), finishedAt: t(20) },
        { name: "vpc", status: "SUCCEEDED", startedAt: t(0), finishedAt: t(10) },
        { name: "subnets", status: "SUCCEEDED", startedAt: t(10), finishedAt: t(40) },
      ],
      Date.parse(t(1000)),
    );
    expect(tl.spanMs).toBe(40_000);
    expect(tl.bars.map((b) => [b.name, b.leftPct, b.widthPct])).toEqual([
      ["iam-roles", 0, 50],
      ["vpc", 0, 25],
      ["subnets", 25, 75],
    ]);
  });

  it("draws a running phase up to now, and no bar for phases not started", () => {
    const tl = layoutTimeline(
      [
        { name: "vpc", status: "SUCCEEDED", startedAt: t(0), finishedAt: t(10) },
        { name: "eks-cluster", status: "WAITING", startedAt: t(10), finishedAt: null },
        { name: "hyperpod-cluster", status: "PENDING", startedAt: null, finishedAt: null },
      ],
      Date.parse(t(30)),
    );
    expect(tl.bars[1]).toMatchObject({ durationMs: 20_000, open: true });
    expect(tl.bars[1]!.leftPct).toBeCloseTo(100 / 3);
    expect(tl.bars[1]!.widthPct).toBeCloseTo(200 / 3);
    expect(tl.bars[2]).toMatchObject({ leftPct: null, widthPct: null, durationMs: null });
  });

  it("keeps instant phases visible", () => {
    const tl = layoutTimeline(
      [
        { name: "a", status: "SUCCEEDED", startedAt: t(0), finishedAt: t(0) },
        { name: "b", status: "SUCCEEDED", startedAt: t(0), finishedAt: t(100) },
      ],
      Date.parse(t(100)),
    );
    expect(tl.bars[0]!.widthPct).toBeGreaterThan(0);
  });

  it("has no axis before any phase starts", () => {
    const tl = layoutTimeline([{ name: "a", status: "PENDING", startedAt: null, finishedAt: null }], 0);
    expect(tl.startMs).toBeNull();
    expect(tl.ticks).toEqual([]);
  });
});

describe("ticks", () => {
  it.each([
    [5_000, 1_000],
    [40_000, 10_000],
    [100_000, 30_000],
    [600_000, 120_000],
  ])("a %d ms axis has a tick every %d ms", (span, step) => {
    const got = ticks(span);
    expect(got[1]!.offsetMs - got[0]!.offsetMs).toBe(step);
    expect(got.length).toBeLessThanOrEqual(7);
  });
});
