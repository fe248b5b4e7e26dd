import { describe, expect, it } from "vitest";
import { listedJobs } from "./jobList";

const job = (id: string, createdAt: string, updatedAt = createdAt, status = "RUNNING") => ({ id, createdAt, updatedAt, status });

describe("listedJobs", () => {
  const loaded = [job("j2", "2026-01-02T00:00:00Z"), job("j1", "2026-01-01T00:00:00Z")];

  it("replaces a job by a newer state from events, never by an older one", () => {
    const live = new Map([
      ["j1", job("j1", "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "RESTARTING")],
      ["j2", job("j2", "2026-01-02T00:00:00Z", "2025-12-31T00:00:00Z", "PENDING")],
    ]);
    const out = listedJobs(loaded, live, 1);
    expect(out.map((j) => `${j.id}:${j.status}`)).toEqual(["j2:RUNNING", "j1:RESTARTING"]);
  });

  it("puts a job just submitted at the top of the first page, and on no other", () => {
    const live = new Map([["j3", job("j3", "2026-01-03T00:00:00Z")]]);
    expect(listedJobs(loaded, live, 1).map((j) => j.id)).toEqual(["j3", "j2", "j1"]);
    expect(listedJobs(loaded, live, 2).map((j) => j.id)).toEqual(["j2", "j1"]);
  });

  it("leaves out a job whose record was removed", () => {
    expect(listedJobs(loaded, new Map([["j2", null]]), 1).map((j) => j.id)).toEqual(["j1"]);
  });
});
