import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import { addStorageServerErrors, addStorageVariables, blankAddStorageDraft, retryDraft, validateAddStorage } from "./addStorageForm";

describe("validateAddStorage", () => {
  it("takes a good name", () => {
    expect(validateAddStorage({ bucket: " team-data ", create: true })).toEqual({});
  });

  it("says what is wrong with the name at its field", () => {
    const errors = validateAddStorage({ bucket: "Team_Data", create: false });
    expect(Object.keys(errors)).toEqual(["input.s3.bucket"]);
    expect(errors["input.s3.bucket"]![0]).toMatch(/lower-case letters/);
  });

  it("asks for a name when there is none", () => {
    expect(validateAddStorage(blankAddStorageDraft())["input.s3.bucket"]).toEqual(["Give the bucket's name."]);
  });
});

describe("addStorageVariables", () => {
  it.each([
    [{ bucket: " team-data ", create: true }, { bucket: "team-data", create: true }],
    [{ bucket: "existing", create: false }, { bucket: "existing", create: false }],
  ])("%j is an S3 storage of the cluster", (draft, s3) => {
    expect(addStorageVariables("c1", draft, "k1")).toEqual({ input: { clusterId: "c1", kind: "S3", s3 }, idempotencyKey: "k1" });
  });

  it("adds a failed bucket again as it was asked for", () => {
    expect(retryDraft({ name: "team-data", createdByInstantStart: false })).toEqual({ bucket: "team-data", create: false });
  });
});

describe("addStorageServerErrors", () => {
  const error = (code: string, message: string, field?: string) => ({ message, extensions: field ? { code, field } : { code } });

  it.each([
    ["VALIDATION", "input.s3.bucket"],
    ["CONFLICT", "input.s3.bucket"],
    ["PRECONDITION", "input.s3.bucket"],
    ["NOT_FOUND", "input.s3.bucket"],
    ["VALIDATION", "input.s3.create"],
  ])("puts a %s error about %s at its field", (code, field) => {
    expect(addStorageServerErrors([error(code, "bucket team-data exists already", field)])).toEqual({ [field]: ["bucket team-data exists already"] });
  });

  it("puts an error about the whole s3 input at the bucket", () => {
    expect(addStorageServerErrors([error("VALIDATION", "an S3 storage needs input.s3", "input.s3")])).toEqual({ "input.s3.bucket": ["an S3 storage needs input.s3"] });
  });

  it("puts errors about what the form does not show at the top, naming the field", () => {
    expect(addStorageServerErrors([error("PRECONDITION", "cluster c is CREATING", "input.clusterId"), error("FORBIDDEN", "needs OPERATOR")])).toEqual({
      [generalKey]: ["cluster c is CREATING (input.clusterId)", "needs OPERATOR"],
    });
  });
});
