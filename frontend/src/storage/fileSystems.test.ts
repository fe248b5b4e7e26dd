import { describe, expect, it } from "vitest";
import { fileSystemAddDenied, fileSystemRemoveConfirmed, fileSystemRemoveDenied, fileSystems } from "./fileSystems";

describe("fileSystems", () => {
  it("are the FSX_LUSTRE storages not deleted, in order", () => {
    const storages = [
      { id: "s1", kind: "S3", status: "AVAILABLE" },
      { id: "f1", kind: "FSX_LUSTRE", status: "DELETED" },
      { id: "f2", kind: "FSX_LUSTRE", status: "AVAILABLE" },
      { id: "f3", kind: "FSX_LUSTRE", status: "CREATING" },
    ];
    expect(fileSystems(storages).map((s) => s.id)).toEqual(["f2", "f3"]);
  });
});

describe("fileSystemAddDenied and fileSystemRemoveDenied", () => {
  it.each([
    ["ACTIVE", "AVAILABLE", undefined, undefined],
    ["ACTIVE", "FAILED", undefined, undefined],
    ["ACTIVE", "CREATING", undefined, /being added/],
    ["ACTIVE", "DELETING", undefined, /being removed/],
    ["UPDATING", "AVAILABLE", /only while it is ACTIVE/, /only while it is ACTIVE/],
  ])("cluster %s, file system %s", (cluster, status, add, remove) => {
    const check = (got: string | undefined, want: RegExp | undefined) => (want ? expect(got).toMatch(want) : expect(got).toBeUndefined());
    check(fileSystemAddDenied(cluster), add);
    check(fileSystemRemoveDenied(cluster, { kind: "FSX_LUSTRE", status }), remove);
  });
});

describe("fileSystemRemoveConfirmed", () => {
  it.each([
    ["", false],
    ["scratc", false],
    [" scratch ", true],
  ])("%j: %s", (typed, want) => {
    expect(fileSystemRemoveConfirmed(typed, "scratch")).toBe(want);
  });
});
