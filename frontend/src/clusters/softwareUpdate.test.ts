import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import { batchPlan, softwareDraftOf, softwareFields, softwareRequest, softwareServerErrors, softwareUpdateDenied, versionText, type GroupSoftware } from "./softwareUpdate";

const group = (name: string, patch: Partial<GroupSoftware["software"]> = {}, status = "IN_SERVICE"): GroupSoftware => ({
  name,
  status,
  targetCount: 4,
  software: { imageVersion: "1.5.2", targetImageVersion: "1.5.2", imageVersionStatus: "UPDATE_AVAILABLE", updateStatus: null, ...patch },
});

describe("softwareDraftOf", () => {
  it("chooses the groups a newer image exists for", () => {
    const d = softwareDraftOf([group("gpu"), group("cpu", { imageVersionStatus: "UP_TO_DATE" }), group("new", {}, "PENDING")]);
    expect([...d.groups]).toEqual(["gpu"]);
    expect(d.maxUnavailablePercent).toBe("20");
    expect(d.autoRollback).toBe(true);
  });

  it("chooses every live group when all are up to date", () => {
    const d = softwareDraftOf([group("gpu", { imageVersionStatus: "UP_TO_DATE" }), group("cpu", { imageVersionStatus: "UP_TO_DATE" })]);
    expect([...d.groups].sort()).toEqual(["cpu", "gpu"]);
  });
});

describe("softwareRequest", () => {
  const groups = [group("gpu"), group("cpu")];

  it("names the chosen groups and the rolling update", () => {
    const r = softwareRequest("c1", groups, { groups: new Set(["cpu", "gone"]), maxUnavailablePercent: "25", waitIntervalSeconds: "60", autoRollback: false });
    expect(r).toEqual({
      ok: true,
      vars: { clusterId: "c1", instanceGroups: ["cpu"], rollingUpdate: { maxUnavailablePercent: 25, waitIntervalSeconds: 60, autoRollback: false } },
    });
  });

  it("puts each bad field's error at that field", () => {
    const r = softwareRequest("c1", groups, { groups: new Set(), maxUnavailablePercent: "0", waitIntervalSeconds: "1.5", autoRollback: true });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual([softwareFields.groups, softwareFields.percent, softwareFields.wait].sort());
  });

  it("refuses a percentage above 100 and a wait above an hour", () => {
    const r = softwareRequest("c1", groups, { groups: new Set(["gpu"]), maxUnavailablePercent: "101", waitIntervalSeconds: "3601", autoRollback: true });
    expect(r.ok).toBe(false);
  });
});

describe("softwareUpdateDenied", () => {
  it("allows an ACTIVE cluster with groups and no update running", () => {
    expect(softwareUpdateDenied({ status: "ACTIVE" }, [group("gpu")])).toBeUndefined();
  });

  it("says why not", () => {
    expect(softwareUpdateDenied({ status: "CREATING" }, [group("gpu")])).toMatch(/CREATING/);
    expect(softwareUpdateDenied({ status: "ACTIVE" }, [])).toMatch(/no instance groups/);
    expect(softwareUpdateDenied({ status: "ACTIVE" }, [group("gpu", { updateStatus: "IN_PROGRESS" }), group("cpu")])).toMatch(/gpu is under way/);
  });
});

describe("versionText", () => {
  it("shows where a running update takes the group", () => {
    expect(versionText(group("gpu"))).toBe("1.5.2");
    expect(versionText(group("gpu", { targetImageVersion: "1.6.0" }))).toBe("1.5.2 → 1.6.0");
    expect(versionText(group("gpu", { imageVersion: null, targetImageVersion: null }))).toBe("not known");
  });
});

describe("batchPlan", () => {
  it("rounds the batch up, as HyperPod does", () => {
    expect(batchPlan(4, 20)).toEqual({ perBatch: 1, batches: 4 });
    expect(batchPlan(10, 25)).toEqual({ perBatch: 3, batches: 4 });
    expect(batchPlan(3, 100)).toEqual({ perBatch: 3, batches: 1 });
    expect(batchPlan(0, 50)).toEqual({ perBatch: 0, batches: 0 });
  });
});

describe("softwareServerErrors", () => {
  it("puts the server's errors at the dialog's fields", () => {
    const errors = softwareServerErrors([
      { message: "no group x", extensions: { code: "VALIDATION", field: "instanceGroups[1]" } },
      { message: "bad wait", extensions: { code: "VALIDATION", field: "rollingUpdate.waitIntervalSeconds" } },
      { message: "conflict", extensions: { code: "CONFLICT" } },
    ]);
    expect(errors).toEqual({
      [softwareFields.groups]: ["no group x"],
      [softwareFields.wait]: ["bad wait"],
      [generalKey]: ["conflict"],
    });
  });
});
