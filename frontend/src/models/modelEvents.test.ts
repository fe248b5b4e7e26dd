import { describe, expect, it } from "vitest";
import { touchesModels } from "./modelEvents";

const event = (id: string, payload: unknown, kind = "MODEL") => ({ action: "UPDATED", target: { kind, id }, payload });

describe("touchesModels", () => {
  const known = new Set(["m1"]);
  it.each([
    ["a known model", event("m1", null), true],
    ["a new model of the cluster", event("m2", { id: "m2", clusterId: "c1", status: "DOWNLOADING" }), true],
    ["a model of another cluster", event("m3", { id: "m3", clusterId: "c2" }), false],
    ["a storage of the cluster", event("s1", { id: "s1", clusterId: "c1" }, "STORAGE"), false],
    ["another kind with the same id", event("m1", { clusterId: "c1" }, "OPERATION"), false],
    ["a payload that is not a record", event("m4", "c1"), false],
    ["a resubscribe", { action: "RESUBSCRIBE", target: { kind: "SUBSCRIPTION", id: "events" }, payload: null }, false],
  ])("%s: %s", (_, e, want) => {
    expect(touchesModels([e], "c1", known)).toBe(want);
  });
});
