import { describe, expect, it } from "vitest";
import { clearField, generalKey, hasErrors } from "../ui/fieldErrors";
import {
  defaultRegion,
  formFieldOf,
  serverFieldErrors,
  toInput,
  validateDraft,
  type ClusterDraft,
  type GroupDraft,
} from "./createClusterForm";

const group = (patch: Partial<GroupDraft> = {}): GroupDraft => ({
  key: "k",
  name: "gpu",
  zone: "us-east-1a",
  instanceType: "ml.g5.12xlarge",
  count: "2",
  capacityType: "ON_DEMAND",
  networkInterfaceMode: "STANDARD",
  ...patch,
});

const draft = (patch: Partial<ClusterDraft> = {}): ClusterDraft => ({
  name: "demo",
  region: "us-east-1",
  zones: ["us-east-1a", "us-east-1b"],
  groups: [],
  systemNodeCount: "2",
  systemInstanceType: "m5.large",
  ...patch,
});

describe("validateDraft", () => {
  it("accepts a valid draft", () => {
    expect(validateDraft(draft({ groups: [group()] }))).toEqual({});
  });

  it.each([
    ["a", true],
    ["demo-1", true],
    ["A" + "b".repeat(39), true], // 40 characters
    ["A" + "b".repeat(40), false], // 41 characters
    ["1demo", false],
    ["-demo", false],
    ["demo-", false],
    ["de--mo", false],
    ["de_mo", false],
    ["de mo", false],
    ["", false],
    ["  demo  ", true], // trimmed, as the server does
  ])("cluster name %j valid: %s", (name, valid) => {
    const errors = validateDraft(draft({ name }));
    expect(errors["input.name"] === undefined).toBe(valid);
  });

  it("needs a region", () => {
    expect(validateDraft(draft({ region: "" }))["input.region"]).toHaveLength(1);
  });

  it.each([
    [[], false],
    [["us-east-1a"], false],
    [["us-east-1a", "us-east-1b"], true],
    [["us-east-1a", "us-east-1b", "us-east-1c"], true],
  ])("zones %j enough: %s", (zones, valid) => {
    expect(validateDraft(draft({ zones }))["input.zones"] === undefined).toBe(valid);
  });

  it.each([
    ["0", true],
    ["1000", true],
    ["1001", false],
    ["-1", false],
    ["1.5", false],
    ["", false],
    ["ten", false],
  ])("count %j valid: %s", (count, valid) => {
    const errors = validateDraft(draft({ groups: [group({ count })] }));
    expect(errors["input.instanceGroups[0].count"] === undefined).toBe(valid);
  });

  it("checks each group's name, type and zone under the group's index", () => {
    const errors = validateDraft(
      draft({
        groups: [group(), group({ name: "bad_name", instanceType: "g5.12xlarge", zone: "us-east-1c" }), group({ instanceType: "" })],
      }),
    );
    expect(Object.keys(errors).sort()).toEqual([
      "input.instanceGroups[1].instanceType",
      "input.instanceGroups[1].name",
      "input.instanceGroups[1].zone",
      "input.instanceGroups[2].instanceType",
      "input.instanceGroups[2].name", // "gpu" again
    ]);
    expect(errors["input.instanceGroups[2].name"]![0]).toMatch(/used twice/);
  });

  it("reports every problem at once", () => {
    const errors = validateDraft(draft({ name: "", region: "", zones: [], groups: [group({ count: "x" })] }));
    expect(Object.keys(errors).sort()).toEqual([
      "input.instanceGroups[0].count",
      "input.instanceGroups[0].zone", // not one of the (no) chosen zones
      "input.name",
      "input.region",
      "input.zones",
    ]);
    expect(hasErrors(errors)).toBe(true);
  });
});

describe("toInput", () => {
  it("sends the decisions and nothing about the network", () => {
    const input = toInput(draft({ name: " demo ", groups: [group({ name: " gpu ", count: " 3 ", capacityType: "SPOT" })] }));
    expect(input).toEqual({
      name: "demo",
      region: "us-east-1",
      zones: ["us-east-1a", "us-east-1b"],
      instanceGroups: [
        { name: "gpu", zone: "us-east-1a", instanceType: "ml.g5.12xlarge", count: 3, capacityType: "SPOT", networkInterfaceMode: "STANDARD" },
      ],
      systemNodes: { count: 2, instanceType: "m5.large" },
    });
  });

  it("sends each group's network interface mode", () => {
    const input = toInput(draft({ groups: [group({ networkInterfaceMode: "EFA_ONLY" }), group({ name: "cpu" })] }));
    expect(input.instanceGroups?.map((g) => [g.name, g.networkInterfaceMode])).toEqual([
      ["gpu", "EFA_ONLY"],
      ["cpu", "STANDARD"],
    ]);
  });

  it("leaves instance groups out when there are none", () => {
    expect(toInput(draft())).not.toHaveProperty("instanceGroups");
  });
});

describe("server errors", () => {
  it.each([
    ["input.name", 0, "input.name"],
    ["input.region", 0, "input.region"],
    ["input.zones", 0, "input.zones"],
    ["input.zones[1]", 0, "input.zones"],
    ["input.instanceGroups[0].instanceType", 1, "input.instanceGroups[0].instanceType"],
    ["input.instanceGroups[1].count", 2, "input.instanceGroups[1].count"],
    ["input.instanceGroups[0].zone", 1, "input.instanceGroups[0].zone"],
    ["input.instanceGroups[1].networkInterfaceMode", 2, "input.instanceGroups[1].networkInterfaceMode"],
    // fields the form does not show go to the top
    ["input.instanceGroups[0].volumeSizeGb", 1, generalKey],
    ["input.instanceGroups[3].name", 1, generalKey],
    ["input.kubernetesVersion", 0, generalKey],
    ["input.vpcCidr", 0, generalKey],
    ["since", 0, generalKey],
  ])("%s (with %d groups) goes to %j", (field, groups, key) => {
    expect(formFieldOf(field, groups)).toBe(key);
  });

  it("puts errors next to their fields and the rest at the top", () => {
    const errors = serverFieldErrors(
      [
        { message: "cluster name taken", extensions: { code: "CONFLICT", field: "input.name" } },
        { message: "zone x is not a zone", extensions: { code: "VALIDATION", field: "input.zones[1]" } },
        { message: "not offered in us-east-1a", extensions: { code: "PRECONDITION", field: "input.instanceGroups[0].instanceType" } },
        { message: "quota exceeded", extensions: { code: "PRECONDITION", field: "input.instanceGroups[0].count" } },
        { message: "range overlaps", extensions: { code: "VALIDATION", field: "input.vpcCidr" } },
        { message: "the service is throttled", extensions: { code: "UPSTREAM" } },
        { message: "no extensions at all" },
      ],
      1,
    );
    expect(errors).toEqual({
      "input.name": ["cluster name taken"],
      "input.zones": ["zone x is not a zone"],
      "input.instanceGroups[0].instanceType": ["not offered in us-east-1a"],
      "input.instanceGroups[0].count": ["quota exceeded"],
      [generalKey]: ["range overlaps (input.vpcCidr)", "the service is throttled", "no extensions at all"],
    });
  });

  it("clears a field's errors when it changes", () => {
    const errors = { "input.name": ["bad"], "input.zones": ["few"] };
    expect(clearField(errors, "input.name")).toEqual({ "input.zones": ["few"] });
    expect(clearField(errors, "input.region")).toBe(errors);
  });
});

describe("defaultRegion", () => {
  it("is the region of the server's default zones", () => {
    expect(defaultRegion(["us-east-1", "us-west-2", "eu-west-1"], [{ name: "us-west-2a" }])).toBe("us-west-2");
  });
  it("prefers the longest matching region", () => {
    expect(defaultRegion(["us-east-1", "us-east-10"], [{ name: "us-east-10b" }])).toBe("us-east-10");
  });
  it("falls back to the first region", () => {
    expect(defaultRegion(["eu-west-1", "us-east-1"], [])).toBe("eu-west-1");
    expect(defaultRegion([], [])).toBe("");
  });
});

describe("system nodes", () => {
  it("sends the count and type, 0 and no type for none", () => {
    expect(toInput(draft()).systemNodes).toEqual({ count: 2, instanceType: "m5.large" });
    expect(toInput(draft({ systemNodeCount: "0", systemInstanceType: "" })).systemNodes).toEqual({ count: 0 });
    expect(validateDraft(draft({ systemNodeCount: "0", systemInstanceType: "" }))).toEqual({});
  });

  it.each([
    ["11", "m5.large", "input.systemNodes.count"],
    ["-1", "m5.large", "input.systemNodes.count"],
    ["two", "m5.large", "input.systemNodes.count"],
    ["2", "ml.m5.large", "input.systemNodes.instanceType"],
    ["2", "", "input.systemNodes.instanceType"],
    ["2", "M5.LARGE", "input.systemNodes.instanceType"],
  ])("refuses %s nodes of %s at %s", (count, type, field) => {
    expect(Object.keys(validateDraft(draft({ systemNodeCount: count, systemInstanceType: type })))).toEqual([field]);
  });

  it("puts the server's system node errors at their fields", () => {
    expect(formFieldOf("input.systemNodes.count", 0)).toBe("input.systemNodes.count");
    expect(formFieldOf("input.systemNodes.instanceType", 0)).toBe("input.systemNodes.instanceType");
  });
});
