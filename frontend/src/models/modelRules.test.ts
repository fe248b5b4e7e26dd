import { describe, expect, it } from "vitest";
import { bucketNotReady, downloadDenied, modelAction } from "./modelRules";

describe("bucketNotReady", () => {
  it.each([
    [null, /no shared bucket.*Storage tab/],
    ["CREATING", /being added/],
    ["DELETING", /being removed/],
    ["FAILED", /FAILED: add it again in the Storage tab/],
  ])("%s", (status, want) => {
    expect(bucketNotReady(status ? { status } : null)).toMatch(want);
  });

  it("is null for an AVAILABLE bucket", () => {
    expect(bucketNotReady({ status: "AVAILABLE" })).toBeNull();
  });
});

describe("downloadDenied", () => {
  it("allows an ACTIVE cluster only", () => {
    expect(downloadDenied("ACTIVE")).toBeUndefined();
    expect(downloadDenied("UPDATING")).toMatch(/UPDATING; models can be downloaded only while it is ACTIVE/);
  });
});

describe("modelAction", () => {
  it.each([
    ["DOWNLOADING", "op1", "cancel"],
    ["FAILED", "op1", "retry"],
    ["READY", "op1", null],
    ["CANCELLED", "op1", null],
    ["PRESENT", null, null],
    ["DOWNLOADING", null, null],
  ])("%s with operation %s: %s", (status, lastOperationId, want) => {
    expect(modelAction({ status, lastOperationId })).toBe(want);
  });
});
