import { describe, expect, it } from "vitest";
import { formatFilter, matchesFilter, parseFilter, toQueryFilter } from "./operationFilter";

describe("operation filter", () => {
  it("round-trips through the URL", () => {
    const f = parseFilter("?kind=CreateCluster&status=failed&targetKind=cluster&targetId=01ABC&clusterId=01ABC");
    expect(f).toEqual({ kind: "CreateCluster", status: "FAILED", targetKind: "CLUSTER", targetId: "01ABC", clusterId: "01ABC" });
    expect(parseFilter(formatFilter(f))).toEqual(f);
  });

  it("drops an unknown status and empty fields", () => {
    expect(parseFilter("?status=BOGUS")).toEqual({ kind: "", status: "", targetKind: "", targetId: "", clusterId: "" });
    expect(formatFilter(parseFilter(""))).toBe("");
  });

  it("becomes the operations query's filter", () => {
    expect(toQueryFilter(parseFilter("?kind=DeleteCluster&status=RUNNING"))).toEqual({ kinds: ["DeleteCluster"], statuses: ["RUNNING"] });
    expect(toQueryFilter(parseFilter("?clusterId=c1"))).toEqual({ clusterId: "c1" });
    expect(toQueryFilter(parseFilter(""))).toEqual({});
  });

  it("matches operations from events as the server would", () => {
    const op = { kind: "CreateCluster", status: "RUNNING", target: { kind: "CLUSTER", id: "c1" } };
    expect(matchesFilter(parseFilter(""), op)).toBe(true);
    expect(matchesFilter(parseFilter("?status=RUNNING&targetId=c1"), op)).toBe(true);
    expect(matchesFilter(parseFilter("?status=FAILED"), op)).toBe(false);
    expect(matchesFilter(parseFilter("?kind=DeleteCluster"), op)).toBe(false);
    expect(matchesFilter(parseFilter("?targetId=c2"), op)).toBe(false);
    // A job's operation is among its cluster's.
    const job = { kind: "SubmitTrainingJob", status: "RUNNING", target: { kind: "JOB", id: "j1" }, clusterId: "c1" };
    expect(matchesFilter(parseFilter("?clusterId=c1"), job)).toBe(true);
    expect(matchesFilter(parseFilter("?clusterId=c2"), job)).toBe(false);
  });
});
