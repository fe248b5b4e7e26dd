import { describe, expect, it } from "vitest";
import { grantErrors, splitNamespaces } from "./clusterAccess";

describe("grantErrors", () => {
  const role = "arn:aws:iam::123456789012:role/team/alice";
  it("takes a role or user with valid namespaces", () => {
    expect(grantErrors(role, "VIEW", ["team-a", "ml"])).toEqual({});
    expect(grantErrors("arn:aws:iam::123456789012:user/bob", "ADMIN", [])).toEqual({});
  });
  it("refuses what the server refuses", () => {
    expect(grantErrors("", "VIEW", [])).toHaveProperty("principalArn");
    expect(grantErrors("arn:aws:sts::123456789012:assumed-role/alice/me", "VIEW", []).principalArn).toMatch(/role session/);
    expect(grantErrors("arn:aws:s3:::bucket", "VIEW", [])).toHaveProperty("principalArn");
    expect(grantErrors(role, "ADMIN", ["team-a"]).namespaces).toMatch(/whole cluster/);
    expect(grantErrors(role, "EDIT", ["Team_A"]).namespaces).toMatch(/not a namespace/);
    expect(grantErrors(role, "EDIT", ["a", "a"]).namespaces).toMatch(/twice/);
  });
  it("splits namespaces on commas and spaces", () => {
    expect(splitNamespaces(" team-a, ml  dev,")).toEqual(["team-a", "ml", "dev"]);
  });
});
