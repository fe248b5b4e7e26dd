import { describe, expect, it } from "vitest";
import { firstDelayMs, isFinalError, maxDelayMs, metricsMark, nextDelayMs } from "./metricsPolling";

describe("nextDelayMs", () => {
  it("reads again soon after new points, and less often while nothing changes or reads fail", () => {
    let d = firstDelayMs;
    const seen: number[] = [];
    for (const outcome of ["same", "same", "failed", "same", "same", "same", "new"] as const) {
      d = nextDelayMs(d, outcome);
      seen.push(d);
    }
    expect(seen).toEqual([10_000, 20_000, 40_000, maxDelayMs, maxDelayMs, maxDelayMs, firstDelayMs]);
  });
});

describe("isFinalError", () => {
  it.each([
    ["PRECONDITION", true],
    ["NOT_FOUND", true],
    ["VALIDATION", true],
    ["UPSTREAM", false],
    ["INTERNAL", false],
  ])("%s: %s", (code, want) => {
    expect(isFinalError([{ extensions: { code } }])).toBe(want);
  });
});

describe("metricsMark", () => {
  it("changes when a series gains a point", () => {
    const a = metricsMark([{ name: "loss", points: [{ step: 1 }] }]);
    const b = metricsMark([{ name: "loss", points: [{ step: 1 }, { step: 2 }] }]);
    expect(a).not.toBe(b);
    expect(metricsMark([{ name: "loss", points: [{ step: 1 }] }])).toBe(a);
  });
});
