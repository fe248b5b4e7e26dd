import { describe, expect, it } from "vitest";
import { bucketNameProblem } from "./bucketName";

describe("bucketNameProblem", () => {
  it.each(["abc", "team-data", "my.bucket.v2", "a".repeat(63), "0datasets9", "1.2.3", "300.1.1.1", "01.2.3.4"])("takes %s", (name) => {
    expect(bucketNameProblem(name)).toBeNull();
  });

  it.each([
    ["", /Give the bucket's name/],
    ["s3://team-data/x", /without s3:\/\/ \(team-data\)/],
    ["ab", /2 characters long; S3 takes 3 to 63/],
    ["a".repeat(64), /64 characters long/],
    ["Team-Data", /lower-case letters/],
    ["team_data", /lower-case letters/],
    ["-team", /start and end with a letter or a digit/],
    ["team.", /start and end with a letter or a digit/],
    ["team..data", /two dots in a row/],
    ["192.168.5.4", /IP address/],
    ["xn--team", /keeps for itself/],
    ["sthree-team", /keeps for itself/],
    ["team-s3alias", /keeps for itself/],
    ["team--x-s3", /keeps for itself/],
  ])("refuses %j", (name, want) => {
    expect(bucketNameProblem(name)).toMatch(want);
  });
});
