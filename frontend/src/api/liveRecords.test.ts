import { describe, expect, it } from "vitest";
import { applyChanges, eventChanges, isNewer, mergeRecords } from "./liveRecords";

type R = { id: string; updatedAt: string; status: string };
const r = (id: string, updatedAt: string, status = "ACTIVE"): R => ({ id, updatedAt, status });

describe("isNewer", () => {
  it("compares nanoseconds that milliseconds cannot tell apart", () => {
    expect(isNewer(r("a", "2026-12-02T18:00:00.123456789Z"), r("a", "2026-12-02T18:00:00.123456Z"))).toBe(true);
    expect(isNewer(r("a", "2026-12-02T18:00:00.1234Z"), r("a", "2026-12-02T18:00:00.12345Z"))).toBe(false);
  });
  it("takes an equal time (the same state again)", () => {
    expect(isNewer(r("a", "2026-12-02T18:00:00Z"), r("a", "2026-12-02T18:00:00Z"))).toBe(true);
  });
});

describe("applyChanges", () => {
  it("keeps the newest state of each record, whatever order events replay in", () => {
    const live = applyChanges(new Map<string, R | null>(), [
      { id: "a", record: r("a", "2026-12-02T18:00:02Z", "ACTIVE") },
      { id: "a", record: r("a", "2026-12-02T18:00:01Z", "CREATING") },
      { id: "b", record: r("b", "2026-12-02T18:00:01Z", "CREATING") },
    ]);
    expect(live.get("a")?.status).toBe("ACTIVE");
    expect(live.get("b")?.status).toBe("CREATING");
  });
  it("returns the same map when nothing is newer", () => {
    const live = new Map([["a", r("a", "2026-12-02T18:00:02Z")]]);
    expect(applyChanges(live, [{ id: "a", record: r("a", "2026-12-02T18:00:01Z") }])).toBe(live);
  });
  it("removes deleted records", () => {
    const live = applyChanges(new Map([["a", r("a", "2026-12-02T18:00:02Z")]]), [{ id: "a", record: null }]);
    expect(live.get("a")).toBeNull();
  });
});

describe("mergeRecords", () => {
  const loaded = [r("a", "2026-12-02T18:00:05Z", "ACTIVE"), r("b", "2026-12-02T18:00:01Z", "CREATING"), r("c", "2026-12-02T18:00:01Z")];
  const live = new Map<string, R | null>([
    ["a", r("a", "2026-12-02T18:00:01Z", "CREATING")], // older than loaded: ignored
    ["b", r("b", "2026-12-02T18:00:09Z", "ACTIVE")], // newer: wins
    ["c", null], // deleted
    ["d", r("d", "2026-12-02T18:00:09Z", "CREATING")], // new
  ]);
  it("shows loaded records updated by newer events, plus new ones, minus deleted ones", () => {
    expect(mergeRecords(loaded, live).map((x) => `${x.id}:${x.status}`)).toEqual(["a:ACTIVE", "b:ACTIVE", "d:CREATING"]);
  });
  it("applies a filter to the current state", () => {
    expect(mergeRecords(loaded, live, (x) => x.status === "CREATING").map((x) => x.id)).toEqual(["d"]);
  });
});

describe("eventChanges", () => {
  it("reads the record of each event, and deletions", () => {
    const events = [
      { action: "UPDATED", target: { id: "a" }, cluster: r("a", "2026-12-02T18:00:01Z") },
      { action: "DELETED", target: { id: "b" }, cluster: null },
      { action: "UPDATED", target: { id: "c" }, cluster: null },
    ];
    expect(eventChanges(events, (e) => e.cluster)).toEqual([
      { id: "a", record: events[0]!.cluster },
      { id: "b", record: null },
    ]);
  });
});
