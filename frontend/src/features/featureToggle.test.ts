import { describe, expect, it } from "vitest";
import type { FeatureName, FeatureStatus } from "../gql/graphql";
import { generalKey } from "../ui/fieldErrors";
import { statusTone } from "../ui/status";
import {
  asksSettings,
  blankDraft,
  bucketList,
  dependencyWords,
  disableBlocked,
  featureActions,
  featureChangeDenied,
  featureFormKey,
  featureInput,
  featureServerErrors,
  noopMessage,
  tieredDraftOf,
  tieredIdentity,
  validateFeatureDraft,
  validateKarpenterGroups,
  validateTieredDraft,
  type FeatureDraft,
  type FeatureWithSettings,
  type TieredDraft,
} from "./featureToggle";
import { inSentence } from "./featureWords";

const feature = (name: FeatureName, patch: Partial<FeatureWithSettings> = {}): FeatureWithSettings => ({
  name,
  tieredCheckpointing: null,
  karpenter: null,
  ...patch,
});

const tiered = (patch: Partial<TieredDraft> = {}): TieredDraft => ({ ...tieredDraftOf(null), bucket: "my-checkpoints", ...patch });

const draft = (patch: Partial<FeatureDraft> = {}): FeatureDraft => ({ ...blankDraft(), tiered: tiered(), ...patch });

describe("featureActions", () => {
  it.each<[FeatureStatus, string[]]>([
    ["ENABLED", ["disable", "reapply"]],
    ["DISABLED", ["enable"]],
    ["ENABLING", ["disable"]],
    ["DISABLING", ["enable"]],
    ["PARTIAL", ["enable", "disable"]],
    ["FAILED", ["enable", "disable"]],
  ])("%s offers %j", (status, actions) => {
    expect(featureActions(status)).toEqual(actions);
  });

  it("never offers to enable what is enabled: the way to ask again is re-apply", () => {
    expect(featureActions("ENABLED")).not.toContain("enable");
  });
});

describe("feature status tones", () => {
  it.each<[FeatureStatus, string]>([
    ["ENABLED", "ok"],
    ["DISABLED", "neutral"],
    ["ENABLING", "progress"],
    ["DISABLING", "progress"],
    ["PARTIAL", "warn"],
    ["FAILED", "bad"],
  ])("%s is drawn %s", (status, tone) => {
    expect(statusTone(status)).toBe(tone);
  });
});

describe("featureChangeDenied", () => {
  it.each([
    ["ACTIVE", null, undefined],
    ["CREATING", null, "The cluster is CREATING; features can change only while it is ACTIVE."],
    ["ACTIVE", { kind: "UpdateClusterFeatures" }, "UpdateClusterFeatures is running on this cluster: wait for it to end."],
    ["DELETING", { kind: "DeleteCluster" }, "The cluster is DELETING; features can change only while it is ACTIVE."],
  ])("cluster %s with %j running: %s", (status, running, want) => {
    expect(featureChangeDenied(status, running)).toBe(want);
  });
});

describe("disableBlocked", () => {
  const recovery = { name: "NODE_AUTO_RECOVERY" as const, title: "Node auto-recovery", status: "ENABLED" as const, dependsOn: [] };
  const karpenter = (status: FeatureStatus) => ({
    name: "KARPENTER_AUTOSCALING" as const,
    title: "Managed Karpenter autoscaling",
    status,
    dependsOn: ["NODE_AUTO_RECOVERY", "continuous node provisioning"],
  });

  it.each<[FeatureStatus, boolean]>([
    ["DISABLED", false],
    ["ENABLED", true],
    ["ENABLING", true],
    ["PARTIAL", true],
    ["FAILED", true],
  ])("node auto-recovery with Karpenter %s is blocked: %s", (status, blocked) => {
    const reason = disableBlocked(recovery, [recovery, karpenter(status)]);
    expect(reason !== undefined).toBe(blocked);
    if (blocked) expect(reason).toBe("Managed Karpenter autoscaling needs node auto-recovery: disable managed Karpenter autoscaling first.");
  });

  it("names a dependency that is a feature by its title", () => {
    const all = [recovery, karpenter("DISABLED")];
    expect(dependencyWords("NODE_AUTO_RECOVERY", all)).toBe("Node auto-recovery");
    expect(dependencyWords("continuous node provisioning", all)).toBe("continuous node provisioning");
  });
});

describe("featureInput", () => {
  it.each<[FeatureName, "enable" | "disable", object]>([
    ["NODE_AUTO_RECOVERY", "enable", { nodeAutoRecovery: true }],
    ["NODE_AUTO_RECOVERY", "disable", { nodeAutoRecovery: false }],
    ["TRAINING_OPERATOR", "enable", { trainingOperator: true }],
    ["TRAINING_OPERATOR", "disable", { trainingOperator: false }],
    ["FSX_CSI_DRIVER", "enable", { fsxCsiDriver: true }],
    ["LOAD_BALANCER_CONTROLLER", "enable", { loadBalancerController: true }],
    ["LOAD_BALANCER_CONTROLLER", "disable", { loadBalancerController: false }],
  ])("%s %s sends that feature alone", (name, action, want) => {
    expect(featureInput(feature(name), action)).toEqual(want);
  });

  it("re-applies an enabled feature as the same enable, which the server finds nothing to do for", () => {
    expect(featureInput(feature("NODE_AUTO_RECOVERY"), "reapply")).toEqual({ nodeAutoRecovery: true });
    expect(featureInput(feature("TRAINING_OPERATOR"), "reapply")).toEqual({ trainingOperator: true });
  });

  it("enables tiered checkpointing with what was typed, trimmed, leaving empty settings to the server's defaults", () => {
    const input = featureInput(feature("TIERED_CHECKPOINTING"), "enable", draft({ tiered: tiered({ bucket: " my-checkpoints ", memoryPercentage: "" }) }));
    expect(input).toEqual({ tieredCheckpointing: { enabled: true, bucket: "my-checkpoints" } });
  });

  it("enables tiered checkpointing with every setting given", () => {
    const t = tiered({ memoryPercentage: "20", namespace: "training", serviceAccount: "ckpt" });
    expect(featureInput(feature("TIERED_CHECKPOINTING"), "enable", draft({ tiered: t }))).toEqual({
      tieredCheckpointing: { enabled: true, bucket: "my-checkpoints", memoryPercentage: 20, namespace: "training", serviceAccount: "ckpt" },
    });
  });

  const current = feature("TIERED_CHECKPOINTING", {
    tieredCheckpointing: { bucket: "my-checkpoints", memoryPercentage: 20, namespace: "training", serviceAccount: "ckpt" },
  });

  it("disables tiered checkpointing naming the identity it has, so the right service account goes", () => {
    expect(featureInput(current, "disable")).toEqual({
      tieredCheckpointing: { enabled: false, bucket: "my-checkpoints", namespace: "training", serviceAccount: "ckpt" },
    });
  });

  it("re-applies tiered checkpointing with the settings it has, whatever a draft says", () => {
    expect(featureInput(current, "reapply", draft({ tiered: tiered({ bucket: "other" }) }))).toEqual({
      tieredCheckpointing: { enabled: true, bucket: "my-checkpoints", memoryPercentage: 20, namespace: "training", serviceAccount: "ckpt" },
    });
  });

  it("enables Karpenter with the groups chosen, and re-applies or disables it with those it has", () => {
    expect(featureInput(feature("KARPENTER_AUTOSCALING"), "enable", draft({ instanceGroups: ["gpu-a", "gpu-b"] }))).toEqual({
      karpenter: { enabled: true, instanceGroups: ["gpu-a", "gpu-b"] },
    });
    const on = feature("KARPENTER_AUTOSCALING", { karpenter: { instanceGroups: ["gpu-a"] } });
    expect(featureInput(on, "reapply")).toEqual({ karpenter: { enabled: true, instanceGroups: ["gpu-a"] } });
    expect(featureInput(on, "disable")).toEqual({ karpenter: { enabled: false, instanceGroups: ["gpu-a"] } });
  });

  it.each<FeatureName>(["NODE_AUTO_RECOVERY", "KARPENTER_AUTOSCALING", "TRAINING_OPERATOR", "TIERED_CHECKPOINTING"])(
    "%s: every action sends exactly one feature",
    (name) => {
      for (const action of ["enable", "disable", "reapply"] as const) {
        expect(Object.keys(featureInput(feature(name), action, draft({ instanceGroups: ["g"] })))).toHaveLength(1);
      }
    },
  );
});

describe("asksSettings", () => {
  it.each<[FeatureName, "enable" | "disable" | "reapply", boolean]>([
    ["TIERED_CHECKPOINTING", "enable", true],
    ["KARPENTER_AUTOSCALING", "enable", true],
    ["TIERED_CHECKPOINTING", "reapply", false],
    ["TIERED_CHECKPOINTING", "disable", false],
    ["TRAINING_OPERATOR", "enable", false],
    ["NODE_AUTO_RECOVERY", "enable", false],
  ])("%s %s: %s", (name, action, want) => {
    expect(asksSettings(name, action)).toBe(want);
  });
});

describe("validateTieredDraft", () => {
  it("accepts a bucket alone", () => {
    expect(validateTieredDraft(tiered())).toEqual({});
  });

  it.each([
    ["my-checkpoints", true],
    ["abc", true],
    ["a".repeat(63), true],
    ["a.b-c.9", true],
    ["ab", false],
    ["a".repeat(64), false],
    ["My-Bucket", false],
    ["my_bucket", false],
    ["-bucket", false],
    ["bucket-", false],
    ["my..bucket", false],
    ["s3://my-checkpoints", false],
    ["", false],
    ["  my-checkpoints  ", true],
  ])("bucket %j valid: %s", (bucket, valid) => {
    expect(validateTieredDraft(tiered({ bucket }))["input.tieredCheckpointing.bucket"] === undefined).toBe(valid);
  });

  it("says a bucket is required, and that s3:// is not part of its name", () => {
    expect(validateTieredDraft(tiered({ bucket: "" }))["input.tieredCheckpointing.bucket"]).toEqual([
      "Give the S3 bucket the checkpoints go to (its name, without s3://).",
    ]);
    expect(validateTieredDraft(tiered({ bucket: "s3://ckpt/prefix" }))["input.tieredCheckpointing.bucket"]).toEqual([
      "Give the bucket's name without s3:// (ckpt).",
    ]);
  });

  it.each([
    ["", true],
    ["1", true],
    ["100", true],
    ["0", false],
    ["101", false],
    ["-5", false],
    ["12.5", false],
    ["half", false],
  ])("memory percentage %j valid: %s", (memoryPercentage, valid) => {
    expect(validateTieredDraft(tiered({ memoryPercentage }))["input.tieredCheckpointing.memoryPercentage"] === undefined).toBe(valid);
  });

  it.each([
    ["", true],
    ["default", true],
    ["team-a", true],
    ["a1", true],
    ["a".repeat(63), true],
    ["a".repeat(64), false],
    ["Team", false],
    ["team_a", false],
    ["-team", false],
    ["team-", false],
    ["team.a", false],
  ])("namespace and service account %j valid: %s", (name, valid) => {
    const errors = validateTieredDraft(tiered({ namespace: name, serviceAccount: name }));
    expect(errors["input.tieredCheckpointing.namespace"] === undefined).toBe(valid);
    expect(errors["input.tieredCheckpointing.serviceAccount"] === undefined).toBe(valid);
  });

  it("fills the server's defaults for an empty identity", () => {
    expect(tieredIdentity(tiered())).toEqual({ namespace: "default", serviceAccount: "tiered-checkpointing" });
    expect(tieredIdentity(tiered({ namespace: " ml ", serviceAccount: "ckpt" }))).toEqual({ namespace: "ml", serviceAccount: "ckpt" });
  });
});

describe("validateKarpenterGroups", () => {
  const names = ["workers", "gpu-a"];
  it.each([
    [["gpu-a"], true],
    [["gpu-a", "workers"], true],
    [[], false],
    [["gone"], false],
    [["gpu-a", "gpu-a"], false],
  ])("%j valid: %s", (groups, valid) => {
    expect(validateKarpenterGroups(groups, names)["input.karpenter.instanceGroups"] === undefined).toBe(valid);
  });

  it("checks only the settings the feature asks for", () => {
    expect(validateFeatureDraft("KARPENTER_AUTOSCALING", draft({ tiered: tiered({ bucket: "" }), instanceGroups: ["gpu-a"] }), names)).toEqual({});
    expect(Object.keys(validateFeatureDraft("TIERED_CHECKPOINTING", draft({ tiered: tiered({ bucket: "" }) }), names))).toEqual([
      "input.tieredCheckpointing.bucket",
    ]);
    expect(validateFeatureDraft("TRAINING_OPERATOR", draft({ tiered: tiered({ bucket: "" }) }), names)).toEqual({});
  });
});

describe("featureServerErrors", () => {
  it.each([
    ["input.tieredCheckpointing.bucket", "input.tieredCheckpointing.bucket"],
    ["input.tieredCheckpointing.memoryPercentage", "input.tieredCheckpointing.memoryPercentage"],
    ["input.karpenter.instanceGroups", "input.karpenter.instanceGroups"],
    ["input.karpenter.instanceGroups[2]", "input.karpenter.instanceGroups"],
    ["input.nodeAutoRecovery", generalKey],
    ["clusterId", generalKey],
    ["input", generalKey],
  ])("an error at %s goes to %j", (field, key) => {
    expect(featureFormKey(field)).toBe(key);
  });

  it("puts field errors next to their field and names the field of the others", () => {
    const errors = featureServerErrors([
      { message: '"Bad_Bucket" is not an S3 bucket name', extensions: { code: "VALIDATION", field: "input.tieredCheckpointing.bucket" } },
      { message: "cluster c1 is CREATING", extensions: { code: "PRECONDITION", field: "clusterId" } },
      { message: "cluster c1 is busy with operation 01X", extensions: { code: "CONFLICT" } },
    ]);
    expect(errors).toEqual({
      "input.tieredCheckpointing.bucket": ['"Bad_Bucket" is not an S3 bucket name'],
      [generalKey]: ["cluster c1 is CREATING (clusterId)", "cluster c1 is busy with operation 01X"],
    });
  });
});

describe("noopMessage", () => {
  it("says plainly that nothing changed", () => {
    expect(noopMessage("enable")).toBe("Already enabled: nothing to change.");
    expect(noopMessage("reapply")).toBe("Already enabled: nothing to change.");
    expect(noopMessage("disable")).toBe("Already disabled: nothing to change.");
  });
});

describe("inSentence", () => {
  it.each([
    ["Training operator", "training operator"],
    ["Node auto-recovery", "node auto-recovery"],
    ["Managed Karpenter autoscaling", "managed Karpenter autoscaling"],
    ["EKS add-on", "EKS add-on"],
    ["KubeRay operator", "KubeRay operator"],
    ["KEDA", "KEDA"],
    ["Observability", "observability"],
  ])("%s reads %s", (title, want) => {
    expect(inSentence(title)).toBe(want);
  });
});

describe("add-on features", () => {
  it("offers to change the settings of features that change in place", () => {
    expect(featureActions("ENABLED", "S3_CSI_DRIVER")).toEqual(["disable", "change", "reapply"]);
    expect(featureActions("ENABLED", "OBSERVABILITY")).toEqual(["disable", "change", "reapply"]);
    expect(featureActions("ENABLED", "KUBERAY")).toEqual(["disable", "reapply"]);
    expect(asksSettings("S3_CSI_DRIVER", "change")).toBe(true);
    expect(asksSettings("KEDA", "enable")).toBe(false);
    expect(asksSettings("LOAD_BALANCER_CONTROLLER", "enable")).toBe(false);
    expect(featureActions("ENABLED", "LOAD_BALANCER_CONTROLLER")).toEqual(["disable", "reapply"]);
    expect(asksSettings("DEEP_HEALTH_CHECKS", "enable")).toBe(false);
  });

  it("sends only the feature it changes", () => {
    expect(featureInput(feature("KUBERAY"), "enable")).toEqual({ kubeRay: true });
    expect(featureInput(feature("KEDA"), "disable")).toEqual({ keda: false });
    expect(featureInput(feature("DEEP_HEALTH_CHECKS"), "enable")).toEqual({ deepHealthChecks: { enabled: true } });
    expect(
      featureInput(feature("DEEP_HEALTH_CHECKS", { deepHealthChecks: { instanceGroups: ["gpu"], checks: ["InstanceStress"] } }), "reapply"),
    ).toEqual({ deepHealthChecks: { enabled: true, instanceGroups: ["gpu"], checks: ["InstanceStress"] } });
    expect(featureInput(feature("INFERENCE_OPERATOR"), "enable", draft({ tlsBucket: " tls-certs " }))).toEqual({
      inferenceOperator: { enabled: true, tlsCertificateBucket: "tls-certs" },
    });
    expect(featureInput(feature("S3_CSI_DRIVER", { s3CsiDriver: { buckets: ["a-bucket"] } }), "change", draft({ buckets: "a-bucket, b-bucket" }))).toEqual({
      s3CsiDriver: { enabled: true, buckets: ["a-bucket", "b-bucket"] },
    });
    expect(featureInput(feature("OBSERVABILITY", { observability: { prometheusWorkspaceArn: "arn:aws:aps:us-west-2:123456789012:workspace/ws-1" } }), "disable")).toEqual({
      observability: { enabled: false, prometheusWorkspaceArn: "arn:aws:aps:us-west-2:123456789012:workspace/ws-1" },
    });
  });

  it("checks the settings as the server does", () => {
    expect(bucketList(" a-bucket,b-bucket  c-bucket ")).toEqual(["a-bucket", "b-bucket", "c-bucket"]);
    expect(validateFeatureDraft("S3_CSI_DRIVER", draft({ buckets: "" }), [])["input.s3CsiDriver.buckets"]).toHaveLength(1);
    expect(validateFeatureDraft("S3_CSI_DRIVER", draft({ buckets: "data data Bad_Name" }), [])["input.s3CsiDriver.buckets"]).toHaveLength(2);
    expect(validateFeatureDraft("S3_CSI_DRIVER", draft({ buckets: "data, models" }), [])).toEqual({});
    expect(validateFeatureDraft("OBSERVABILITY", draft({ workspaceArn: "ws-1" }), [])["input.observability.prometheusWorkspaceArn"]).toHaveLength(1);
    expect(validateFeatureDraft("OBSERVABILITY", draft({ workspaceArn: "arn:aws:aps:us-west-2:123456789012:workspace/ws-1" }), [])).toEqual({});
    expect(validateFeatureDraft("INFERENCE_OPERATOR", draft({ tlsBucket: "s3://certs/x" }), [])["input.inferenceOperator.tlsCertificateBucket"]?.[0]).toContain("without s3://");
    expect(featureFormKey("input.s3CsiDriver.buckets[1]")).toBe("input.s3CsiDriver.buckets");
  });

  it("says a change that finds nothing to do", () => {
    expect(noopMessage("change")).toBe("Already set so: nothing to change.");
  });
});

describe("MLflow", () => {
  const arn = "arn:aws:sagemaker:us-west-2:123456789012:mlflow-tracking-server/team";
  const mlflow = (patch: Partial<FeatureDraft["mlflow"]>) => draft({ mlflow: { ...blankDraft().mlflow, ...patch } });

  it("asks settings to be turned on, and has no change in place", () => {
    expect(asksSettings("MLFLOW", "enable")).toBe(true);
    expect(featureActions("ENABLED", "MLFLOW")).toEqual(["disable", "reapply"]);
  });

  it("sends only the fields given for a new server, and the ARN alone for an existing one", () => {
    expect(featureInput(feature("MLFLOW"), "enable", mlflow({}))).toEqual({ mlflow: { enabled: true } });
    expect(featureInput(feature("MLFLOW"), "enable", mlflow({ name: " exp ", size: "MEDIUM", artifactStoreUri: "s3://data/runs/" }))).toEqual({
      mlflow: { enabled: true, trackingServerName: "exp", trackingServerSize: "MEDIUM", artifactStoreUri: "s3://data/runs/" },
    });
    expect(featureInput(feature("MLFLOW"), "enable", mlflow({ existing: true, name: "ignored", arn: ` ${arn}` }))).toEqual({ mlflow: { enabled: true, trackingServerArn: arn } });
    expect(featureInput(feature("MLFLOW"), "disable")).toEqual({ mlflow: { enabled: false } });
  });

  it("re-applies the settings it has", () => {
    const made = feature("MLFLOW", {
      mlflow: { trackingServerArn: arn, existing: false, trackingServerName: "team", trackingServerSize: "LARGE", artifactStoreUri: "s3://data/mlflow/" },
    });
    expect(featureInput(made, "reapply")).toEqual({ mlflow: { enabled: true, trackingServerName: "team", trackingServerSize: "LARGE", artifactStoreUri: "s3://data/mlflow/" } });
    expect(featureInput(feature("MLFLOW", { mlflow: { trackingServerArn: arn, existing: true } }), "reapply")).toEqual({ mlflow: { enabled: true, trackingServerArn: arn } });
  });

  it("checks names, ARNs and locations as the server does", () => {
    expect(validateFeatureDraft("MLFLOW", mlflow({}), [])).toEqual({});
    expect(validateFeatureDraft("MLFLOW", mlflow({ name: "bad_name" }), [])["input.mlflow.trackingServerName"]).toHaveLength(1);
    expect(validateFeatureDraft("MLFLOW", mlflow({ name: "-x" }), [])["input.mlflow.trackingServerName"]).toHaveLength(1);
    expect(validateFeatureDraft("MLFLOW", mlflow({ artifactStoreUri: "data/mlflow/" }), [])["input.mlflow.artifactStoreUri"]).toHaveLength(1);
    expect(validateFeatureDraft("MLFLOW", mlflow({ existing: true }), [])["input.mlflow.trackingServerArn"]).toHaveLength(1);
    expect(validateFeatureDraft("MLFLOW", mlflow({ existing: true, arn: "arn:aws:sagemaker:us-west-2:1:mlflow-tracking-server/x" }), [])["input.mlflow.trackingServerArn"]).toHaveLength(1);
    expect(validateFeatureDraft("MLFLOW", mlflow({ existing: true, arn }), [])).toEqual({});
    expect(featureFormKey("input.mlflow.trackingServerArn")).toBe("input.mlflow.trackingServerArn");
  });
});
