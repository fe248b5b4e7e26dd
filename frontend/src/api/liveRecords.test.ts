import { describe, expect, it } from "vitest";
import { applyChanges, eventChanges, isNewer, listedNewestFirst, mergeRecords } from "./liveRecords";

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

const rec = (id: string, createdAt: string, updatedAt = createdAt, status = "RUNNING") => ({ id, createdAt, updatedAt, status });

describe("listedNewestFirst", () => {
  const loaded = [rec("j2", "2026-01-02T00:00:00Z"), rec("j1", "2026-01-01T00:00:00Z")];

  it("replaces a record by a newer state from events, never by an older one", () => {
    const live = new Map([
      ["j1", rec("j1", "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "RESTARTING")],
      ["j2", rec("j2", "2026-01-02T00:00:00Z", "2025-12-31T00:00:00Z", "PENDING")],
    ]);
    const out = listedNewestFirst(loaded, live, 1);
    expect(out.map((j) => `${j.id}:${j.status}`)).toEqual(["j2:RUNNING", "j1:RESTARTING"]);
  });

  it("puts a record just made at the top of the first page, and on no other", () => {
    const live = new Map([["j3", rec("j3", "2026-01-03T00:00:00Z")]]);
    expect(listedNewestFirst(loaded, live, 1).map((j) => j.id)).toEqual(["j3", "j2", "j1"]);
    expect(listedNewestFirst(loaded, live, 2).map((j) => j.id)).toEqual(["j2", "j1"]);
  });

  it("leaves out a record whose record was removed", () => {
    expect(listedNewestFirst(loaded, new Map([["j2", null]]), 1).map((j) => j.id)).toEqual(["j1"]);
  });
});
