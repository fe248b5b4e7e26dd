import { describe, expect, it } from "vitest";
import { browsable, browseErrorTitle, sharedBucket, storageBusy, storageChangeDenied } from "./sharedBucket";

describe("sharedBucket", () => {
  it("is the S3 storage not deleted", () => {
    const storages = [
      { id: "s1", kind: "S3", status: "DELETED" },
      { id: "s2", kind: "S3", status: "FAILED" },
    ];
    expect(sharedBucket(storages)?.id).toBe("s2");
  });

  it("is null when there is none", () => {
    expect(sharedBucket([{ id: "s1", kind: "S3", status: "DELETED" }])).toBeNull();
    expect(sharedBucket([])).toBeNull();
  });
});

describe("storageChangeDenied", () => {
  it.each([
    ["ACTIVE", null, undefined],
    ["ACTIVE", "AVAILABLE", undefined],
    ["ACTIVE", "FAILED", undefined],
    ["UPDATING", null, /UPDATING; its storage can change only while it is ACTIVE/],
    ["ACTIVE", "CREATING", /being added/],
    ["ACTIVE", "DELETING", /being removed/],
  ])("cluster %s, storage %s", (cluster, status, want) => {
    const got = storageChangeDenied(cluster, status ? { kind: "S3", status } : null);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(want);
  });
});

describe("storageBusy and browsable", () => {
  it.each([
    ["CREATING", true, false],
    ["AVAILABLE", false, true],
    ["FAILED", false, true],
    ["DELETING", true, false],
    ["DELETED", false, false],
  ])("%s", (status, busy, browse) => {
    expect(storageBusy(status)).toBe(busy);
    expect(browsable(status)).toBe(browse);
  });
});

describe("browseErrorTitle", () => {
  it("says the bucket cannot be listed on a PRECONDITION error", () => {
    expect(browseErrorTitle([{ message: "the shared bucket b no longer exists", extensions: { code: "PRECONDITION" } }])).toBe("The shared bucket cannot be listed");
  });
  it("says the listing failed otherwise", () => {
    expect(browseErrorTitle([{ message: "S3 is slow", extensions: { code: "UPSTREAM" } }])).toBe("The bucket could not be listed");
    expect(browseErrorTitle([])).toBe("The bucket could not be listed");
  });
});
