import { describe, expect, it } from "vitest";
import { groupChangeDenied, planNameOf } from "./words";

describe("groupChangeDenied", () => {
  const active = { status: "ACTIVE" };
  const group = (status = "IN_SERVICE", op: { status: string; kind: string } | null = null) => ({ status, lastOperation: op });
  it.each([
    [active, group(), undefined],
    [active, group("DEGRADED", { status: "SUCCEEDED", kind: "AddInstanceGroup" }), undefined],
    [active, group("FAILED", { status: "FAILED", kind: "AddInstanceGroup" }), undefined],
    [{ status: "CREATING" }, group(), /only while it is ACTIVE/],
    [active, group("DELETING"), /being deleted/],
    [active, group("DELETED"), /was deleted/],
    [active, group("UPDATING", { status: "RUNNING", kind: "ScaleInstanceGroup" }), /ScaleInstanceGroup is running/],
    [active, group("PENDING", { status: "QUEUED", kind: "AddInstanceGroup" }), /AddInstanceGroup is running/],
  ])("%j %j: %s", (cluster, g, want) => {
    const got = groupChangeDenied(cluster, g);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(want);
  });
});

describe("planNameOf", () => {
  it("reads the name at the end of the ARN", () => {
    expect(planNameOf("arn:aws:sagemaker:us-west-2:1:training-plan/p5-reserved")).toBe("p5-reserved");
    expect(planNameOf(null)).toBe("");
  });
});
