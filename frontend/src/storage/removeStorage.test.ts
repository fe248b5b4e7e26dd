import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import { removeConfirmed, removeServerErrors, removeStorageVariables } from "./removeStorage";

describe("removeConfirmed", () => {
  it.each([
    [{ deleteBucket: false, typed: "" }, true],
    [{ deleteBucket: true, typed: "" }, false],
    [{ deleteBucket: true, typed: "team-dat" }, false],
    [{ deleteBucket: true, typed: " team-data " }, true],
  ])("%j: %s", (draft, want) => {
    expect(removeConfirmed(draft, "team-data")).toBe(want);
  });
});

describe("removeStorageVariables", () => {
  it.each([false, true])("sends deleteBucket %s as ticked", (deleteBucket) => {
    expect(removeStorageVariables("s1", { deleteBucket, typed: "team-data" }, "k1")).toEqual({ id: "s1", deleteBucket, idempotencyKey: "k1" });
  });
});

describe("removeServerErrors", () => {
  it("puts the ADMIN refusal at the box and the rest at the top", () => {
    const errors = [
      { message: "deleteBucket needs the ADMIN role", extensions: { code: "FORBIDDEN", field: "deleteBucket" } },
      { message: "cluster c is DELETING", extensions: { code: "PRECONDITION", field: "id" } },
    ];
    expect(removeServerErrors(errors)).toEqual({ deleteBucket: ["deleteBucket needs the ADMIN role"], [generalKey]: ["cluster c is DELETING"] });
  });

  it("says a file system linked to the bucket as the server does", () => {
    const errors = [{ message: "file system scratch (storage s2) is linked to bucket b; remove it first", extensions: { code: "PRECONDITION", field: "id" } }];
    expect(removeServerErrors(errors)).toEqual({ [generalKey]: ["file system scratch (storage s2) is linked to bucket b; remove it first"] });
  });

  it("names a field the dialog does not show", () => {
    const errors = [{ message: "bad key", extensions: { code: "VALIDATION", field: "idempotencyKey" } }];
    expect(removeServerErrors(errors)).toEqual({ [generalKey]: ["bad key (idempotencyKey)"] });
  });
});
