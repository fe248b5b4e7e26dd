import { describe, expect, it } from "vitest";
import { statusTone } from "./status";

describe("statusTone", () => {
  it.each([
    ["SUCCEEDED", "ok"],
    ["ACTIVE", "ok"],
    ["InService", "ok"],
    ["RUNNING", "progress"],
    ["WAITING", "progress"],
    ["CREATING", "progress"],
    ["Creating", "progress"],
    ["DELETING", "progress"],
    ["SystemUpdating", "progress"],
    ["FAILED", "bad"],
    ["Failed", "bad"],
    ["CANCELLED", "ended"],
    ["DELETED", "ended"],
    ["SKIPPED", "ended"],
    ["PENDING", "neutral"],
    ["QUEUED", "neutral"],
    ["SOMETHING_NEW", "neutral"],
    [null, "neutral"],
  ])("%s is %s", (status, tone) => {
    expect(statusTone(status)).toBe(tone);
  });
});
