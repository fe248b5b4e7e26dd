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
    ["IN_SERVICE", "ok"],
    ["DEGRADED", "warn"],
    ["DEPLOYING", "progress"],
    ["RESTARTING", "warn"],
    ["SCHEDULABLE", "ok"],
    ["UNSCHEDULABLE", "bad"],
    ["UNSCHEDULABLE_PENDING_REBOOT", "warn"],
    ["UNSCHEDULABLE_PENDING_REPLACEMENT", "warn"],
    ["UNKNOWN", "neutral"],
    ["DEEP_HEALTH_CHECK_IN_PROGRESS", "progress"],
    ["FAILURE", "bad"],
    ["NOT_FOUND", "ended"],
    ["PASSED", "ok"],
    ["NONE", "neutral"],
    // a feature's states
    ["ENABLED", "ok"],
    ["AVAILABLE", "ok"],
    ["DISABLED", "neutral"],
    ["ENABLING", "progress"],
    ["DISABLING", "progress"],
    ["PARTIAL", "warn"],
    // a model's states: a failed download never looks ready
    ["DOWNLOADING", "progress"],
    ["READY", "ok"],
    ["FAILED", "bad"],
    ["PRESENT", "neutral"],
    // an FSx file system's lifecycle
    ["MISCONFIGURED", "warn"],
  ])("%s is %s", (status, tone) => {
    expect(statusTone(status)).toBe(tone);
  });

  it("reads a node's RUNNING as up and well, an operation's as under way", () => {
    expect(statusTone("RUNNING", "node")).toBe("ok");
    expect(statusTone("RUNNING")).toBe("progress");
    expect(statusTone("FAILURE", "node")).toBe("bad");
    expect(statusTone("SHUTTING_DOWN", "node")).toBe("progress");
  });
});
