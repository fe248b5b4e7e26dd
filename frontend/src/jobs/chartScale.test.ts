import { describe, expect, it } from "vitest";
import { extent, layoutChart, linearScale, niceDomain, niceStep, tickLabel, type Box } from "./chartScale";

const box: Box = { width: 200, height: 100, left: 20, bottom: 10, top: 0, right: 0 };

describe("linearScale", () => {
  it("maps the domain onto the range, upside down for SVG's y", () => {
    const y = linearScale(0, 10, 90, 0);
    expect(y(0)).toBe(90);
    expect(y(10)).toBe(0);
    expect(y(5)).toBe(45);
  });
  it("maps a domain of one value to the middle", () => {
    expect(linearScale(3, 3, 0, 100)(3)).toBe(50);
  });
});

describe("extent", () => {
  it("leaves out what is not a finite number", () => {
    expect(extent([3, Number.NaN, -1, Number.POSITIVE_INFINITY, 7])).toEqual([-1, 7]);
    expect(extent([])).toBeNull();
    expect(extent([Number.NaN])).toBeNull();
  });
});

describe("niceStep and niceDomain", () => {
  it.each([
    [10, 4, 5],
    [1, 4, 0.5],
    [0.3, 4, 0.1],
    [1000, 4, 500],
    [7, 4, 2],
  ])("a span of %d in about %d ticks steps by %d", (span, count, want) => {
    expect(niceStep(span, count)).toBeCloseTo(want);
  });

  it("rounds the bounds out to whole steps, with ticks that do not drift", () => {
    expect(niceDomain(0.13, 2.41, 4)).toEqual({ lo: 0, hi: 3, ticks: [0, 1, 2, 3] });
    expect(niceDomain(0.5, 2, 4)).toEqual({ lo: 0.5, hi: 2, ticks: [0.5, 1, 1.5, 2] });
    expect(niceDomain(0.1, 0.3, 2).ticks).toEqual([0.1, 0.2, 0.3]);
  });

  it("gives a flat series room around its value", () => {
    const d = niceDomain(2, 2, 4);
    expect(d.lo).toBeLessThan(2);
    expect(d.hi).toBeGreaterThan(2);
    expect(niceDomain(0, 0, 4).lo).toBeLessThan(0);
  });
});

describe("tickLabel", () => {
  it.each([
    [0, "0"],
    [0.5, "0.5"],
    [2.345678, "2.35"],
    [12500, "12.5k"],
    [3_400_000, "3.4M"],
    [0.00002, "2e-5"],
  ])("%d reads %s", (v, want) => {
    expect(tickLabel(v)).toBe(want);
  });
});

describe("layoutChart", () => {
  it("draws nothing without points", () => {
    const l = layoutChart([], box);
    expect(l.path).toBe("");
    expect(l.last).toBeNull();
  });

  it("spans the plot from the first step to the last, the values within round bounds", () => {
    const l = layoutChart(
      [
        { step: 0, value: 2 },
        { step: 50, value: 1 },
        { step: 100, value: 0.5 },
      ],
      box,
    );
    expect(l.path.startsWith("M20.0,")).toBe(true);
    expect(l.last!.x).toBe(200);
    expect(l.last!.point.step).toBe(100);
    expect(l.path.split("L")).toHaveLength(3);
    // The y axis: 0.5 at the bottom of the plot (90), 2 at its top (0).
    expect(l.yTicks.at(0)).toMatchObject({ value: 0.5, at: 90 });
    expect(l.yTicks.at(-1)).toMatchObject({ value: 2, at: 0 });
    for (const t of l.xTicks) expect(t.at).toBeGreaterThanOrEqual(20);
  });

  it("puts a single point in the middle", () => {
    const l = layoutChart([{ step: 10, value: 3 }], box);
    expect(l.last!.x).toBe(110);
    expect(l.xTicks.map((t) => t.value)).toEqual([10]);
  });

  it("skips points that are not numbers", () => {
    const l = layoutChart(
      [
        { step: 0, value: 1 },
        { step: 1, value: Number.NaN },
        { step: 2, value: 2 },
      ],
      box,
    );
    expect(l.path.split("L")).toHaveLength(2);
  });
});
