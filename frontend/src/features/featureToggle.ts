// A feature's toggle: which actions a feature's state offers, when they are
// refused, the settings an enable asks for with the server's checks
// mirrored (engine/features: checkTieredCheckpointing, checkKarpenter), the
// updateClusterFeatures input of one action (only the feature it changes),
// where the server's errors go, and what a no-op result says.
import type { FeatureName, FeatureStatus, MlflowTrackingServerSize, UpdateClusterFeaturesInput } from "../gql/graphql";
import { addError, generalKey, parseWhole, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";
import { inSentence } from "./featureWords";

/**
 * What a toggle asks: turn the feature on, turn it off, or turn it on again
 * with its current settings, which makes whatever is missing and changes
 * nothing when all of it exists.
 */
export type FeatureAction = "enable" | "disable" | "reapply" | "change";

/** Features whose settings change in place while they are on (another workspace, other buckets). */
const changeable: readonly FeatureName[] = ["OBSERVABILITY", "S3_CSI_DRIVER"];

/**
 * The actions a feature in status offers, the toggle first. A feature half
 * made (PARTIAL) or whose toggle failed can be finished either way. While an
 * operation turns it on or off, the toggle shows the way back, disabled
 * until the operation ends.
 */
export function featureActions(status: FeatureStatus, name?: FeatureName): FeatureAction[] {
  switch (status) {
    case "ENABLED":
      return name && changeable.includes(name) ? ["disable", "change", "reapply"] : ["disable", "reapply"];
    case "DISABLED":
    case "DISABLING":
      return ["enable"];
    case "ENABLING":
      return ["disable"];
    case "PARTIAL":
    case "FAILED":
      return ["enable", "disable"];
  }
}

export const actionWords: Record<FeatureAction, { verb: string; doing: string }> = {
  enable: { verb: "Enable", doing: "Enabling" },
  disable: { verb: "Disable", doing: "Disabling" },
  reapply: { verb: "Re-apply", doing: "Re-applying" },
  change: { verb: "Change", doing: "Changing" },
};

/**
 * Why features cannot change now, or undefined when they can: the cluster
 * must be ACTIVE and no operation may be running on it (the server takes
 * one operation per cluster at a time).
 */
export function featureChangeDenied(clusterStatus: string, running: { kind: string } | null): string | undefined {
  if (clusterStatus !== "ACTIVE") return `The cluster is ${clusterStatus}; features can change only while it is ACTIVE.`;
  if (running) return `${running.kind} is running on this cluster: wait for it to end.`;
  return undefined;
}

interface FeatureLike {
  name: FeatureName;
  title: string;
  status: FeatureStatus;
  dependsOn: readonly string[];
}

/**
 * Why feature cannot be turned off, or undefined: another feature that
 * needs it (names it in dependsOn) is not off. The server refuses that
 * too; turning the other one off first is the way.
 */
export function disableBlocked(feature: FeatureLike, all: readonly FeatureLike[]): string | undefined {
  const needing = all.find((o) => o.name !== feature.name && o.dependsOn.includes(feature.name) && o.status !== "DISABLED");
  return needing ? `${needing.title} needs ${inSentence(feature.title)}: disable ${inSentence(needing.title)} first.` : undefined;
}

/** A dependency as the table says it: a feature by its title, anything else as the server says it. */
export function dependencyWords(dependency: string, all: readonly FeatureLike[]): string {
  return all.find((f) => f.name === dependency)?.title ?? dependency;
}

/** The tiered checkpointing settings as the table shows them. */
export interface TieredSettings {
  bucket: string | null;
  memoryPercentage: number | null;
  namespace: string;
  serviceAccount: string;
}

/** The tiered checkpointing form, as typed; empty optional fields mean the server's defaults. */
export interface TieredDraft {
  bucket: string;
  memoryPercentage: string;
  namespace: string;
  serviceAccount: string;
}

/** What an enable asks for: tiered checkpointing's settings, the groups Karpenter may scale, a bucket, a workspace. */
export interface FeatureDraft {
  tiered: TieredDraft;
  /** The instance groups Karpenter may scale, in the order they were chosen. */
  instanceGroups: string[];
  /** The inference operator's TLS certificate bucket. */
  tlsBucket: string;
  /** The Prometheus workspace observability writes to. */
  workspaceArn: string;
  /** The buckets the S3 CSI driver may mount, as typed (separated by commas or spaces). */
  buckets: string;
  mlflow: MlflowDraft;
}

/** The MLflow form: a server to make (every field optional) or an existing one by its ARN. */
export interface MlflowDraft {
  existing: boolean;
  name: string;
  size: MlflowTrackingServerSize | "";
  artifactStoreUri: string;
  arn: string;
}

/** MLflow's settings as the table shows them. */
export interface MlflowSettings {
  trackingServerArn: string;
  existing: boolean;
  trackingServerName?: string | null;
  trackingServerSize?: MlflowTrackingServerSize | null;
  artifactStoreUri?: string | null;
}

/** A feature with the settings the table shows for it. */
export interface FeatureWithSettings {
  name: FeatureName;
  tieredCheckpointing: TieredSettings | null;
  karpenter: { instanceGroups: readonly string[] } | null;
  deepHealthChecks?: { instanceGroups: readonly string[]; checks: readonly string[] } | null;
  inferenceOperator?: { tlsCertificateBucket: string } | null;
  observability?: { prometheusWorkspaceArn: string } | null;
  s3CsiDriver?: { buckets: readonly string[] } | null;
  mlflow?: MlflowSettings | null;
}

/** What the server uses for an optional setting left empty. */
export const tieredDefaults = { namespace: "default", serviceAccount: "tiered-checkpointing" } as const;

/** The settings' fields, by the server's field paths. */
export const settingsPaths = {
  bucket: "input.tieredCheckpointing.bucket",
  memoryPercentage: "input.tieredCheckpointing.memoryPercentage",
  namespace: "input.tieredCheckpointing.namespace",
  serviceAccount: "input.tieredCheckpointing.serviceAccount",
  instanceGroups: "input.karpenter.instanceGroups",
  tlsBucket: "input.inferenceOperator.tlsCertificateBucket",
  workspaceArn: "input.observability.prometheusWorkspaceArn",
  buckets: "input.s3CsiDriver.buckets",
  mlflowName: "input.mlflow.trackingServerName",
  mlflowSize: "input.mlflow.trackingServerSize",
  mlflowArtifacts: "input.mlflow.artifactStoreUri",
  mlflowArn: "input.mlflow.trackingServerArn",
} as const;

/** The features an enable (or a change) asks settings of. */
const withSettings: readonly FeatureName[] = ["TIERED_CHECKPOINTING", "KARPENTER_AUTOSCALING", "INFERENCE_OPERATOR", "OBSERVABILITY", "S3_CSI_DRIVER", "MLFLOW"];

/** Whether enabling the feature asks for settings (the others take none). */
export function asksSettings(name: FeatureName, action: FeatureAction): boolean {
  return (action === "enable" || action === "change") && withSettings.includes(name);
}

/** A blank tiered checkpointing form, or the settings it has. */
export function tieredDraftOf(settings: TieredSettings | null): TieredDraft {
  return {
    bucket: settings?.bucket ?? "",
    memoryPercentage: settings?.memoryPercentage != null ? String(settings.memoryPercentage) : "",
    namespace: settings?.namespace ?? "",
    serviceAccount: settings?.serviceAccount ?? "",
  };
}

/** The draft of a feature's current settings (blank where it has none). */
export function draftOf(feature: FeatureWithSettings): FeatureDraft {
  return {
    tiered: tieredDraftOf(feature.tieredCheckpointing),
    instanceGroups: [...(feature.karpenter?.instanceGroups ?? [])],
    tlsBucket: feature.inferenceOperator?.tlsCertificateBucket ?? "",
    workspaceArn: feature.observability?.prometheusWorkspaceArn ?? "",
    buckets: (feature.s3CsiDriver?.buckets ?? []).join(", "),
    mlflow: mlflowDraftOf(feature.mlflow ?? null),
  };
}

/** A blank MLflow form (a new server with the server's defaults), or the settings it has. */
export function mlflowDraftOf(settings: MlflowSettings | null): MlflowDraft {
  if (!settings) return { existing: false, name: "", size: "", artifactStoreUri: "", arn: "" };
  if (settings.existing) return { existing: true, name: "", size: "", artifactStoreUri: "", arn: settings.trackingServerArn };
  return { existing: false, name: settings.trackingServerName ?? "", size: settings.trackingServerSize ?? "", artifactStoreUri: settings.artifactStoreUri ?? "", arn: "" };
}

/** A blank draft. */
export function blankDraft(): FeatureDraft {
  return { tiered: tieredDraftOf(null), instanceGroups: [], tlsBucket: "", workspaceArn: "", buckets: "", mlflow: mlflowDraftOf(null) };
}

/** The bucket names of a typed list: separated by commas or white space. */
export function bucketList(typed: string): string[] {
  return typed.split(/[\s,]+/).filter((b) => b !== "");
}

// The server's patterns: S3 bucket names, and Kubernetes (DNS-1123 label) names.
const bucketPattern = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const kubernetesName = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The checks the server makes on tiered checkpointing's settings before it asks AWS anything. */
/** Adds at path what is wrong with bucket, if anything; what names what the bucket is for. */
function checkBucket(errors: FieldErrors, path: string, bucket: string, what: string) {
  if (bucket === "") addError(errors, path, `Give the S3 bucket ${what} (its name, without s3://).`);
  else if (bucket.startsWith("s3://")) addError(errors, path, `Give the bucket's name without s3:// (${bucket.slice(5).split("/")[0]}).`);
  else if (!bucketPattern.test(bucket) || bucket.includes("..")) {
    addError(errors, path, `"${bucket}" is not an S3 bucket name: use 3-63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit.`);
  }
}

export function validateTieredDraft(draft: TieredDraft): FieldErrors {
  const errors: FieldErrors = {};
  checkBucket(errors, settingsPaths.bucket, draft.bucket.trim(), "the checkpoints go to");
  const memory = draft.memoryPercentage.trim();
  if (memory !== "") {
    const n = parseWhole(memory);
    if (n === null || n < 1 || n > 100) addError(errors, settingsPaths.memoryPercentage, "Give a share of instance memory from 1 to 100, or leave it empty for HyperPod's default.");
  }
  const namespace = draft.namespace.trim();
  if (namespace !== "" && !kubernetesName.test(namespace)) {
    addError(errors, settingsPaths.namespace, `"${namespace}" is not a Kubernetes namespace name: use up to 63 lower-case letters, digits and hyphens, starting and ending with a letter or digit.`);
  }
  const account = draft.serviceAccount.trim();
  if (account !== "" && !kubernetesName.test(account)) {
    addError(errors, settingsPaths.serviceAccount, `"${account}" is not a Kubernetes service account name: use up to 63 lower-case letters, digits and hyphens, starting and ending with a letter or digit.`);
  }
  return errors;
}

/** The checks the server makes on the groups Karpenter may scale; groupNames are the cluster's. */
export function validateKarpenterGroups(groups: readonly string[], groupNames: readonly string[]): FieldErrors {
  const errors: FieldErrors = {};
  if (groups.length === 0) addError(errors, settingsPaths.instanceGroups, "Choose the instance groups Karpenter may scale (usually groups at count 0).");
  for (const [i, g] of groups.entries()) {
    if (!groupNames.includes(g)) addError(errors, settingsPaths.instanceGroups, `The cluster has no instance group ${g}: add the group first.`);
    else if (groups.indexOf(g) !== i) addError(errors, settingsPaths.instanceGroups, `Instance group ${g} is chosen twice.`);
  }
  return errors;
}

// A tracking server's name and ARN, as the server checks them (engine/features/mlflow.go).
const trackingServerName = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,255}$/;
const trackingServerArn = /^arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:\d{12}:mlflow-tracking-server\/[a-zA-Z0-9](-*[a-zA-Z0-9]){0,255}$/;

/** The checks the server makes on MLflow's settings before it asks AWS anything. */
export function validateMlflowDraft(draft: MlflowDraft): FieldErrors {
  const errors: FieldErrors = {};
  if (draft.existing) {
    const arn = draft.arn.trim();
    if (arn === "") addError(errors, settingsPaths.mlflowArn, "Give the ARN of the tracking server to use (aws sagemaker list-mlflow-tracking-servers), or make a new one.");
    else if (!trackingServerArn.test(arn)) addError(errors, settingsPaths.mlflowArn, `"${arn}" is not a tracking server ARN: arn:aws:sagemaker:<region>:<account>:mlflow-tracking-server/<name>.`);
    return errors;
  }
  const name = draft.name.trim();
  if (name !== "" && !trackingServerName.test(name)) {
    addError(errors, settingsPaths.mlflowName, `"${name}" is not a tracking server name: up to 256 letters, digits and hyphens, starting and ending with a letter or digit.`);
  }
  const uri = draft.artifactStoreUri.trim();
  if (uri !== "" && !/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(uri)) {
    addError(errors, settingsPaths.mlflowArtifacts, `"${uri}" is not an S3 location: give s3://<shared bucket>/<prefix>/, or leave it empty for s3://<shared bucket>/mlflow/.`);
  }
  return errors;
}

// An Amazon Managed Service for Prometheus workspace ARN, as the server checks it.
const workspacePattern = /^arn:aws[a-z-]*:aps:[a-z0-9-]+:\d{12}:workspace\/ws-[a-zA-Z0-9-]+$/;

/** The checks of the settings an enable of the feature asks for (none for the others). */
export function validateFeatureDraft(name: FeatureName, draft: FeatureDraft, groupNames: readonly string[]): FieldErrors {
  if (name === "TIERED_CHECKPOINTING") return validateTieredDraft(draft.tiered);
  if (name === "KARPENTER_AUTOSCALING") return validateKarpenterGroups(draft.instanceGroups, groupNames);
  if (name === "MLFLOW") return validateMlflowDraft(draft.mlflow);
  const errors: FieldErrors = {};
  if (name === "INFERENCE_OPERATOR") checkBucket(errors, settingsPaths.tlsBucket, draft.tlsBucket.trim(), "the operator keeps its endpoints' TLS certificates in");
  if (name === "OBSERVABILITY") {
    const arn = draft.workspaceArn.trim();
    if (arn === "") addError(errors, settingsPaths.workspaceArn, "Give the ARN of the Amazon Managed Service for Prometheus workspace the metrics go to.");
    else if (!workspacePattern.test(arn)) addError(errors, settingsPaths.workspaceArn, `"${arn}" is not a workspace ARN: arn:aws:aps:<region>:<account>:workspace/ws-….`);
  }
  if (name === "S3_CSI_DRIVER") {
    const buckets = bucketList(draft.buckets);
    if (buckets.length === 0) addError(errors, settingsPaths.buckets, "Name the S3 buckets pods may mount (their names, without s3://).");
    for (const [i, b] of buckets.entries()) {
      if (buckets.indexOf(b) !== i) addError(errors, settingsPaths.buckets, `Bucket ${b} is named twice.`);
      else checkBucket(errors, settingsPaths.buckets, b, "to mount");
    }
  }
  return errors;
}

/** The namespace and service account a draft ends up with, defaults filled in. */
export function tieredIdentity(draft: TieredDraft): { namespace: string; serviceAccount: string } {
  return {
    namespace: draft.namespace.trim() || tieredDefaults.namespace,
    serviceAccount: draft.serviceAccount.trim() || tieredDefaults.serviceAccount,
  };
}

/**
 * The updateClusterFeatures input of one action on one feature: that
 * feature alone, so the others are left as they are. A feature with
 * settings takes those of draft to be enabled, and those it has to be
 * disabled or re-applied: tiered checkpointing's identity (the service
 * account and its role) is named by them, and a re-apply with the same
 * settings is what finds nothing to change.
 */
export function featureInput(feature: FeatureWithSettings, action: FeatureAction, draft?: FeatureDraft): UpdateClusterFeaturesInput {
  const enable = action !== "disable";
  const settings = (action === "enable" || action === "change") && draft ? draft : draftOf(feature);
  switch (feature.name) {
    case "NODE_AUTO_RECOVERY":
      return { nodeAutoRecovery: enable };
    case "TRAINING_OPERATOR":
      return { trainingOperator: enable };
    case "KARPENTER_AUTOSCALING": {
      const karpenter: NonNullable<UpdateClusterFeaturesInput["karpenter"]> = { enabled: enable };
      if (settings.instanceGroups.length > 0) karpenter.instanceGroups = [...settings.instanceGroups];
      return { karpenter };
    }
    case "TIERED_CHECKPOINTING": {
      const t = settings.tiered;
      const tiered: NonNullable<UpdateClusterFeaturesInput["tieredCheckpointing"]> = { enabled: enable };
      const bucket = t.bucket.trim();
      if (bucket !== "") tiered.bucket = bucket;
      const memory = parseWhole(t.memoryPercentage);
      if (enable && memory !== null) tiered.memoryPercentage = memory;
      const namespace = t.namespace.trim();
      if (namespace !== "") tiered.namespace = namespace;
      const account = t.serviceAccount.trim();
      if (account !== "") tiered.serviceAccount = account;
      return { tieredCheckpointing: tiered };
    }
    case "DEEP_HEALTH_CHECKS": {
      const checks: NonNullable<UpdateClusterFeaturesInput["deepHealthChecks"]> = { enabled: enable };
      const current = feature.deepHealthChecks;
      if (action === "reapply" && current && current.instanceGroups.length > 0) {
        checks.instanceGroups = [...current.instanceGroups];
        checks.checks = [...current.checks];
      }
      return { deepHealthChecks: checks };
    }
    case "INFERENCE_OPERATOR": {
      const bucket = settings.tlsBucket.trim();
      return { inferenceOperator: bucket !== "" ? { enabled: enable, tlsCertificateBucket: bucket } : { enabled: enable } };
    }
    case "OBSERVABILITY": {
      const arn = settings.workspaceArn.trim();
      return { observability: arn !== "" ? { enabled: enable, prometheusWorkspaceArn: arn } : { enabled: enable } };
    }
    case "S3_CSI_DRIVER": {
      const buckets = bucketList(settings.buckets);
      return { s3CsiDriver: buckets.length > 0 ? { enabled: enable, buckets } : { enabled: enable } };
    }
    case "KUBERAY":
      return { kubeRay: enable };
    case "KEDA":
      return { keda: enable };
    case "LOAD_BALANCER_CONTROLLER":
      return { loadBalancerController: enable };
    case "FSX_CSI_DRIVER":
      return { fsxCsiDriver: enable };
    case "MLFLOW":
      return { mlflow: enable ? mlflowInput(settings.mlflow) : { enabled: false } };
  }
}

/** The mlflow input of an enable: the existing server's ARN, or the fields of a new one that are given. */
function mlflowInput(d: MlflowDraft): NonNullable<UpdateClusterFeaturesInput["mlflow"]> {
  if (d.existing) return { enabled: true, trackingServerArn: d.arn.trim() };
  const out: NonNullable<UpdateClusterFeaturesInput["mlflow"]> = { enabled: true };
  if (d.name.trim() !== "") out.trackingServerName = d.name.trim();
  if (d.size !== "") out.trackingServerSize = d.size;
  if (d.artifactStoreUri.trim() !== "") out.artifactStoreUri = d.artifactStoreUri.trim();
  return out;
}

/**
 * Where a server error about field belongs: at the settings field it names
 * (input.karpenter.instanceGroups[1] at the groups), else at the top of the
 * dialog (the cluster's state, another operation running, a feature that
 * needs this one).
 */
export function featureFormKey(field: string): string {
  const base = field.replace(/\[\d+\]$/, "");
  return (Object.values(settingsPaths) as string[]).includes(base) ? base : generalKey;
}

/** Sorts the server's errors onto the dialog's fields. */
export function featureServerErrors(errors: readonly ServerError[]): FieldErrors {
  return sortServerErrors(errors, featureFormKey);
}

/** What a no-op result says: the feature was already as asked. */
export function noopMessage(action: FeatureAction): string {
  if (action === "change") return "Already set so: nothing to change.";
  return action === "disable" ? "Already disabled: nothing to change." : "Already enabled: nothing to change.";
}
