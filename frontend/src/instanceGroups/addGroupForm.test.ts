import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import {
  addFormKey,
  addServerErrors,
  defaultThreadsPerCore,
  newAddDraft,
  toAddInput,
  validateAddDraft,
  type AddGroupContext,
  type AddGroupDraft,
  type PlanLike,
} from "./addGroupForm";

const draft = (patch: Partial<AddGroupDraft> = {}): AddGroupDraft => ({
  ...newAddDraft("us-west-2a"),
  name: "gpu",
  instanceType: "ml.g5.12xlarge",
  ...patch,
});

const plan: PlanLike = {
  arn: "arn:aws:sagemaker:us-west-2:111122223333:training-plan/p5",
  name: "p5",
  status: "Active",
  instanceType: "ml.p5.48xlarge",
  zone: "us-west-2b",
  availableCount: 8,
};

const ctx = (patch: Partial<AddGroupContext> = {}): AddGroupContext => ({
  zones: ["us-west-2a", "us-west-2b"],
  groupNames: ["workers"],
  plan: null,
  ...patch,
});

const fieldsOf = (d: AddGroupDraft, c: AddGroupContext = ctx()) => Object.keys(validateAddDraft(d, c)).sort();

describe("validateAddDraft", () => {
  it("accepts a valid draft", () => {
    expect(validateAddDraft(draft(), ctx())).toEqual({});
  });

  it.each([
    ["a", true],
    ["gpu-workers-1", true],
    ["1st", true],
    ["a".repeat(63), true],
    ["a".repeat(64), false],
    ["-gpu", false],
    ["gpu-", false],
    ["gpu_1", false],
    ["", false],
    ["workers", false], // the cluster has one
    ["  gpu  ", true],
  ])("name %j valid: %s", (name, valid) => {
    expect(validateAddDraft(draft({ name }), ctx())["input.name"] === undefined).toBe(valid);
  });

  it.each([
    ["0", true],
    ["1000", true],
    ["1001", false],
    ["-1", false],
    ["2.5", false],
    ["", false],
  ])("count %j valid: %s", (count, valid) => {
    expect(validateAddDraft(draft({ count }), ctx())["input.count"] === undefined).toBe(valid);
  });

  it.each([
    ["", "4", true], // empty: the count
    ["0", "4", true],
    ["4", "4", true],
    ["5", "4", false],
    ["-1", "4", false],
    ["x", "4", false],
  ])("min count %j with count %s valid: %s", (minCount, count, valid) => {
    expect(validateAddDraft(draft({ minCount, count }), ctx())["input.minCount"] === undefined).toBe(valid);
  });

  it.each([
    ["49", false],
    ["50", true],
    ["500", true],
    ["16384", true],
    ["16385", false],
    ["", false],
  ])("volume %j GiB valid: %s", (volumeSizeGb, valid) => {
    expect(validateAddDraft(draft({ volumeSizeGb }), ctx())["input.volumeSizeGb"] === undefined).toBe(valid);
  });

  it("needs a zone of the cluster", () => {
    expect(fieldsOf(draft({ zone: "" }))).toEqual(["input.zone"]);
    expect(fieldsOf(draft({ zone: "us-west-2c" }))).toEqual(["input.zone"]);
  });

  it("needs an instance type in HyperPod's form", () => {
    expect(fieldsOf(draft({ instanceType: "" }))).toEqual(["input.instanceType"]);
    expect(fieldsOf(draft({ instanceType: "p5.48xlarge" }))).toEqual(["input.instanceType"]);
  });

  it.each([
    [["ml.p5.48xlarge"], false],
    [["ml.p5.48xlarge", "ml.p4d.24xlarge"], true],
    [Array.from({ length: 10 }, (_, i) => `ml.t${i}.large`), true],
    [Array.from({ length: 11 }, (_, i) => `ml.t${i}.large`), false],
    [["ml.p5.48xlarge", "ml.p5.48xlarge"], false],
  ])("flexible types %j valid: %s", (instanceTypes, valid) => {
    const errors = validateAddDraft(draft({ flexible: true, instanceType: "", instanceTypes }), ctx());
    expect(errors["input.instanceTypes"] === undefined).toBe(valid);
    expect(errors["input.instanceType"]).toBeUndefined();
  });

  it("refuses Spot for a flexible group", () => {
    const errors = validateAddDraft(draft({ flexible: true, capacityType: "SPOT", instanceTypes: ["ml.g5.12xlarge", "ml.g6.12xlarge"] }), ctx());
    expect(Object.keys(errors)).toEqual(["input.capacityType"]);
  });

  describe("training plans", () => {
    const training = (patch: Partial<AddGroupDraft> = {}) => draft({ capacityType: "TRAINING_PLAN", trainingPlanArn: plan.arn, instanceType: "", zone: "", ...patch });

    it("takes the zone and the type from the plan", () => {
      expect(validateAddDraft(training(), ctx({ plan }))).toEqual({});
    });
    it("needs a plan", () => {
      expect(fieldsOf(training({ trainingPlanArn: "" }), ctx())).toEqual(["input.trainingPlanArn"]);
    });
    it("needs the plan's zone to be one of the cluster's", () => {
      expect(fieldsOf(training(), ctx({ plan: { ...plan, zone: "us-west-2d" } }))).toEqual(["input.trainingPlanArn"]);
    });
    it("needs an Active or Scheduled plan", () => {
      expect(fieldsOf(training(), ctx({ plan: { ...plan, status: "Expired" } }))).toEqual(["input.trainingPlanArn"]);
    });
    it("bounds the count by the plan's instances left", () => {
      expect(fieldsOf(training({ count: "9" }), ctx({ plan }))).toEqual(["input.count"]);
      expect(fieldsOf(training({ count: "8" }), ctx({ plan }))).toEqual([]);
    });
  });

  it("checks labels and taints", () => {
    const errors = validateAddDraft(
      draft({
        labels: [
          { row: "1", key: "team", value: "ml" },
          { row: "2", key: "team", value: "infra" },
          { row: "3", key: "sagemaker.amazonaws.com/x", value: "y" },
          { row: "4", key: "", value: "" }, // blank rows are ignored
        ],
        taints: [{ row: "5", key: "bad key", value: "", effect: "NO_SCHEDULE" }],
      }),
      ctx(),
    );
    expect(errors["input.labels"]).toHaveLength(2);
    expect(errors["input.taints"]).toHaveLength(1);
  });
});

describe("defaultThreadsPerCore", () => {
  it.each([
    ["ml.p5.48xlarge", false, 2],
    ["ml.p4d.24xlarge", false, 2],
    ["ml.p6-b200.48xlarge", false, 2],
    ["ml.g5.12xlarge", false, 1],
    ["ml.trn1.32xlarge", false, 1],
    ["ml.trn1.32xlarge", true, 2],
    ["", false, 1],
  ])("%s (training plan %s) is %d", (type, plan, want) => {
    expect(defaultThreadsPerCore(type, plan)).toBe(want);
  });
});

describe("toAddInput", () => {
  it("sends the decisions and leaves defaults to the server", () => {
    expect(toAddInput("c1", draft({ name: " gpu " }), null)).toEqual({
      clusterId: "c1",
      name: "gpu",
      count: 1,
      zone: "us-west-2a",
      instanceType: "ml.g5.12xlarge",
      capacityType: "ON_DEMAND",
      networkInterfaceMode: "STANDARD",
      volumeSizeGb: 500,
    });
  });

  it("sends a flexible group's list, and the optional settings chosen", () => {
    const input = toAddInput(
      "c1",
      draft({
        flexible: true,
        instanceTypes: ["ml.p5.48xlarge", "ml.p4d.24xlarge"],
        minCount: "2",
        count: "4",
        threadsPerCore: "1",
        networkInterfaceMode: "EFA_ONLY",
        deepHealthChecks: ["InstanceConnectivity", "InstanceStress"],
        labels: [
          { row: "1", key: " team ", value: "ml" },
          { row: "2", key: "", value: "" },
        ],
        taints: [{ row: "3", key: "gpu", value: "", effect: "NO_SCHEDULE" }],
      }),
      null,
    );
    expect(input).toMatchObject({
      instanceTypes: ["ml.p5.48xlarge", "ml.p4d.24xlarge"],
      minCount: 2,
      count: 4,
      threadsPerCore: 1,
      networkInterfaceMode: "EFA_ONLY",
      deepHealthChecks: ["InstanceStress", "InstanceConnectivity"],
      labels: [{ key: "team", value: "ml" }],
      taints: [{ key: "gpu", effect: "NO_SCHEDULE" }],
    });
    expect(input).not.toHaveProperty("instanceType");
  });

  it("sends the plan and its type, and no zone, for a training plan", () => {
    const input = toAddInput("c1", draft({ capacityType: "TRAINING_PLAN", trainingPlanArn: plan.arn, zone: "us-west-2a", instanceType: "" }), plan);
    expect(input).toMatchObject({ capacityType: "TRAINING_PLAN", trainingPlanArn: plan.arn, instanceType: "ml.p5.48xlarge" });
    expect(input).not.toHaveProperty("zone");
  });
});

describe("server errors", () => {
  it.each([
    ["input.name", draft(), "input.name"],
    ["input.instanceType", draft(), "input.instanceType"],
    ["input.instanceType", draft({ flexible: true }), "input.instanceTypes"],
    ["input.instanceTypes", draft({ flexible: true }), "input.instanceTypes"],
    ["input.zone", draft(), "input.zone"],
    ["input.zone", draft({ capacityType: "TRAINING_PLAN" }), "input.trainingPlanArn"],
    ["input.instanceType", draft({ capacityType: "TRAINING_PLAN", trainingPlanArn: plan.arn }), "input.trainingPlanArn"],
    ["input.count", draft(), "input.count"],
    ["input.clusterId", draft(), generalKey],
    ["id", draft(), generalKey],
  ])("%s (%#) goes to %s", (field, d, key) => {
    expect(addFormKey(field, d, d.capacityType === "TRAINING_PLAN" ? plan : null)).toBe(key);
  });

  it("puts each error next to its field, and names the field of others", () => {
    const errors = addServerErrors(
      [
        { message: "ml.p5.48xlarge is not offered in us-west-2a", extensions: { code: "PRECONDITION", field: "input.instanceType" } },
        { message: "quota reached", extensions: { code: "PRECONDITION", field: "input.count" } },
        { message: "no execution role", extensions: { code: "PRECONDITION", field: "input.clusterId" } },
        { message: "throttled", extensions: { code: "UPSTREAM" } },
      ],
      draft(),
      null,
    );
    expect(errors).toEqual({
      "input.instanceType": ["ml.p5.48xlarge is not offered in us-west-2a"],
      "input.count": ["quota reached"],
      [generalKey]: ["no execution role (input.clusterId)", "throttled"],
    });
  });
});
