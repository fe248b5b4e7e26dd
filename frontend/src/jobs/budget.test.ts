import { describe, expect, it } from "vitest";
import { budgetView, meter, type Budget } from "./budget";

const budget = (patch: Partial<Budget> = {}): Budget => ({
  restartsUsed: 0,
  restartsAllowed: 5,
  fullJobRestartsUsed: 0,
  fullJobRestartsAllowed: 1,
  windowRestartsUsed: 0,
  restartsBeforeFullJobRestart: 3,
  windowSeconds: 21600,
  windowEndsAt: null,
  exhausted: false,
  ...patch,
});

const now = Date.parse("2026-03-01T12:00:00Z");

describe("meter", () => {
  it.each([
    [0, 5, 0, "0/5", "ok"],
    [1, 5, 0.2, "1/5", "ok"],
    [3, 5, 0.6, "3/5", "warn"],
    [5, 5, 1, "5/5", "bad"],
    [0, 0, 0, "0/0", "ok"],
    [7, 5, 1, "7/5", "bad"],
  ] as const)("%d of %d", (used, allowed, fraction, text, tone) => {
    expect(meter(used, allowed)).toEqual({ used, allowed, fraction, text, tone });
  });
});

describe("budgetView", () => {
  it("shows an untouched budget with no window open", () => {
    const v = budgetView(budget(), now, false);
    expect(v.restarts.text).toBe("0/5");
    expect(v.fullRestarts.text).toBe("0/1");
    expect(v.windowRestarts.text).toBe("0/3");
    expect(v.windowLeftMs).toBeNull();
    expect(v.window).toMatch(/No window open: the first fault opens one of 6 h 00 min/);
    expect(v.warning).toBeNull();
  });

  it("counts the window down from windowEndsAt", () => {
    const b = budget({ restartsUsed: 1, windowRestartsUsed: 1, windowEndsAt: "2026-03-01T14:14:05Z" });
    const v = budgetView(b, now, false);
    expect(v.restarts.text).toBe("1/5");
    expect(v.windowLeftMs).toBe((2 * 3600 + 14 * 60 + 5) * 1000);
    expect(v.window).toBe("2 h 14 min left of 6 h 00 min");
    expect(budgetView(b, now + 60_000, false).window).toBe("2 h 13 min left of 6 h 00 min");
  });

  it("never counts below zero", () => {
    const v = budgetView(budget({ windowEndsAt: "2026-03-01T11:00:00Z" }), now, false);
    expect(v.windowLeftMs).toBe(0);
    expect(v.window).toMatch(/window has ended/);
  });

  it("warns when one restart is left, and says plainly when the budget is spent", () => {
    expect(budgetView(budget({ restartsUsed: 4 }), now, false).warning).toMatch(/One restart left/);
    const spent = budgetView(budget({ restartsUsed: 5, exhausted: true }), now, false);
    expect(spent.exhausted).toBe(true);
    expect(spent.warning).toMatch(/one more fault fails the job/);
    expect(spent.restarts.tone).toBe("bad");
  });

  it("runs no window once the job has ended", () => {
    const v = budgetView(budget({ windowEndsAt: "2026-03-01T14:00:00Z" }), now, true);
    expect(v.windowLeftMs).toBeNull();
    expect(v.window).toMatch(/ended/);
  });
});
