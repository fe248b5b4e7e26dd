// The add-instance-group form's model: the decisions the user makes, the
// checks the server makes on them (engine/compute and engine/capacity,
// mirrored so that mistakes show before sending), the addInstanceGroup input
// they become, and where the server's errors (extensions.field) belong.
import type { AddInstanceGroupInput, CapacityType, NetworkInterfaceMode } from "../gql/graphql";
import { addError, generalKey, parseWhole, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";
import { checkLabels, checkTaints, labelInputs, taintInputs, type LabelRow, type TaintRow } from "./kubernetesConfig";

export interface AddGroupDraft {
  name: string;
  capacityType: CapacityType;
  /** The chosen plan's ARN, for TRAINING_PLAN capacity. */
  trainingPlanArn: string;
  /** One of the cluster's zones; a training plan's zone is used instead. */
  zone: string;
  /** A prioritised list of types instead of one type. */
  flexible: boolean;
  instanceType: string;
  /** The flexible group's types, first choice first. */
  instanceTypes: string[];
  count: string;
  /** As typed; empty means "the count". */
  minCount: string;
  networkInterfaceMode: NetworkInterfaceMode;
  /** Empty means the server's default (see defaultThreadsPerCore). */
  threadsPerCore: "" | "1" | "2";
  volumeSizeGb: string;
  deepHealthChecks: string[];
  labels: LabelRow[];
  taints: TaintRow[];
}

/** What the form knows besides the draft: the cluster and the chosen plan. */
export interface AddGroupContext {
  zones: readonly string[];
  /** The names of the cluster's groups, which a new one may not reuse. */
  groupNames: readonly string[];
  /** The chosen training plan, when capacity is TRAINING_PLAN and one is chosen. */
  plan: PlanLike | null;
}

export interface PlanLike {
  arn: string;
  name: string;
  status: string;
  instanceType: string | null;
  zone: string | null;
  availableCount: number;
}

export const deepHealthCheckNames = ["InstanceStress", "InstanceConnectivity"] as const;

export const defaultVolumeSizeGb = 500;

export function newAddDraft(zone: string): AddGroupDraft {
  return {
    name: "",
    capacityType: "ON_DEMAND",
    trainingPlanArn: "",
    zone,
    flexible: false,
    instanceType: "",
    instanceTypes: [],
    count: "1",
    minCount: "",
    networkInterfaceMode: "STANDARD",
    threadsPerCore: "",
    volumeSizeGb: String(defaultVolumeSizeGb),
    deepHealthChecks: [],
    labels: [],
    taints: [],
  };
}

/** The form's fields, by the server's field paths. */
export const addPaths = {
  name: "input.name",
  capacityType: "input.capacityType",
  trainingPlanArn: "input.trainingPlanArn",
  zone: "input.zone",
  instanceType: "input.instanceType",
  instanceTypes: "input.instanceTypes",
  count: "input.count",
  minCount: "input.minCount",
  networkInterfaceMode: "input.networkInterfaceMode",
  threadsPerCore: "input.threadsPerCore",
  volumeSizeGb: "input.volumeSizeGb",
  deepHealthChecks: "input.deepHealthChecks",
  labels: "input.labels",
  taints: "input.taints",
} as const;

// HyperPod's pattern for instance group names.
const groupNamePattern = /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

/**
 * The threads per core the server uses when none is given: 2 on the p4, p5
 * and p6 families and on training plans, else 1.
 */
export function defaultThreadsPerCore(instanceType: string, trainingPlan: boolean): 1 | 2 {
  if (trainingPlan) return 2;
  const ec2 = instanceType.replace(/^ml\./, "");
  return ["p4", "p5", "p6"].some((family) => ec2.startsWith(family)) ? 2 : 1;
}

/** Whether the plan fixes the group's instance type (most plans do). */
export function planFixesType(draft: AddGroupDraft, plan: PlanLike | null): plan is PlanLike & { instanceType: string } {
  return draft.capacityType === "TRAINING_PLAN" && plan !== null && plan.instanceType !== null;
}

/** The zone the group will run in: the plan's for TRAINING_PLAN capacity. */
export function effectiveZone(draft: AddGroupDraft, plan: PlanLike | null): string {
  return draft.capacityType === "TRAINING_PLAN" ? (plan?.zone ?? "") : draft.zone;
}

/** The group's (first) instance type as the draft stands. */
export function effectiveType(draft: AddGroupDraft, plan: PlanLike | null): string {
  if (planFixesType(draft, plan)) return plan.instanceType;
  return draft.flexible ? (draft.instanceTypes[0] ?? "") : draft.instanceType;
}

/** Whether a flexible list is allowed with the draft's capacity type. */
export function flexibleAllowed(capacityType: CapacityType): boolean {
  return capacityType === "ON_DEMAND";
}

/** The checks the server makes before it asks AWS anything, plus the plan's. */
export function validateAddDraft(draft: AddGroupDraft, ctx: AddGroupContext): FieldErrors {
  const errors: FieldErrors = {};
  const name = draft.name.trim();
  if (name === "") addError(errors, addPaths.name, "Give the group a name.");
  else if (!groupNamePattern.test(name)) {
    addError(errors, addPaths.name, "Use 1-63 letters, digits and hyphens, starting and ending with a letter or digit.");
  } else if (ctx.groupNames.includes(name)) {
    addError(errors, addPaths.name, `The cluster already has a group named ${name}: choose another name.`);
  }

  const training = draft.capacityType === "TRAINING_PLAN";
  const count = parseWhole(draft.count);
  if (training) {
    const plan = ctx.plan;
    if (!draft.trainingPlanArn || !plan) addError(errors, addPaths.trainingPlanArn, "Choose a training plan.");
    else {
      if (plan.status !== "Active" && plan.status !== "Scheduled") {
        addError(errors, addPaths.trainingPlanArn, `Plan ${plan.name} is ${plan.status}: only an Active or Scheduled plan takes instance groups.`);
      }
      if (plan.zone && !ctx.zones.includes(plan.zone)) {
        addError(
          errors,
          addPaths.trainingPlanArn,
          `Plan ${plan.name} reserves capacity in ${plan.zone}, which is not one of the cluster's zones (${ctx.zones.join(", ")}): choose another plan.`,
        );
      }
      if (count !== null && count > plan.availableCount) {
        addError(errors, addPaths.count, `Plan ${plan.name} has ${plan.availableCount} instances left: lower the count or choose another plan.`);
      }
    }
  } else if (!draft.zone) addError(errors, addPaths.zone, "Choose the group's availability zone.");
  else if (!ctx.zones.includes(draft.zone)) {
    addError(errors, addPaths.zone, `Zone ${draft.zone} is not one of the cluster's zones (${ctx.zones.join(", ")}): choose one of those.`);
  }

  if (draft.flexible && !planFixesType(draft, ctx.plan)) {
    const types = draft.instanceTypes;
    if (draft.capacityType === "SPOT") {
      addError(errors, addPaths.capacityType, "A flexible group cannot use Spot capacity: choose On-demand, or one instance type for Spot.");
    } else if (training) {
      addError(errors, addPaths.capacityType, "A training plan reserves one instance type: turn off the prioritised list.");
    }
    if (types.length < 2 || types.length > 10) {
      addError(errors, addPaths.instanceTypes, `A flexible group takes 2 to 10 instance types in priority order, not ${types.length}.`);
    }
    const twice = types.filter((t, i) => types.indexOf(t) !== i);
    if (twice.length > 0) addError(errors, addPaths.instanceTypes, `Instance type ${twice[0]} is listed twice: list each type once.`);
    for (const t of types) if (!t.startsWith("ml.")) addError(errors, addPaths.instanceTypes, `Use HyperPod's form of ${t}, for example ml.p5.48xlarge.`);
  } else if (!planFixesType(draft, ctx.plan) && !(training && ctx.plan === null)) {
    // (With no plan chosen yet, the plan's error says what to do first.)
    if (!draft.instanceType) addError(errors, addPaths.instanceType, "Choose an instance type.");
    else if (!draft.instanceType.startsWith("ml.")) addError(errors, addPaths.instanceType, "Use HyperPod's form of the type, for example ml.p5.48xlarge.");
  }

  if (count === null) addError(errors, addPaths.count, "Enter a whole number from 0 to 1000.");
  else if (count < 0 || count > 1000) addError(errors, addPaths.count, "Use 0 to 1000 instances.");
  if (draft.minCount.trim() !== "") {
    const min = parseWhole(draft.minCount);
    if (min === null || min < 0) addError(errors, addPaths.minCount, "Enter a whole number from 0 to the count, or leave it empty for the count.");
    else if (count !== null && min > count) addError(errors, addPaths.minCount, `The minimum count cannot exceed the count (${count}).`);
  }

  const volume = parseWhole(draft.volumeSizeGb);
  if (volume === null || volume < 50 || volume > 16384) addError(errors, addPaths.volumeSizeGb, "Use 50 to 16384 GiB.");

  for (const c of draft.deepHealthChecks) {
    if (!(deepHealthCheckNames as readonly string[]).includes(c)) addError(errors, addPaths.deepHealthChecks, `${c} is not a deep health check.`);
  }
  for (const m of checkLabels(draft.labels)) addError(errors, addPaths.labels, m);
  for (const m of checkTaints(draft.taints)) addError(errors, addPaths.taints, m);
  return errors;
}

/** The addInstanceGroup input of a valid draft: what was decided, and no more. */
export function toAddInput(clusterId: string, draft: AddGroupDraft, plan: PlanLike | null): AddInstanceGroupInput {
  const input: AddInstanceGroupInput = {
    clusterId,
    name: draft.name.trim(),
    count: parseWhole(draft.count) ?? 0,
    capacityType: draft.capacityType,
    networkInterfaceMode: draft.networkInterfaceMode,
    volumeSizeGb: parseWhole(draft.volumeSizeGb) ?? defaultVolumeSizeGb,
  };
  if (draft.capacityType === "TRAINING_PLAN") {
    // The plan settles the zone; its type is the group's.
    input.trainingPlanArn = draft.trainingPlanArn;
    input.instanceType = planFixesType(draft, plan) ? plan.instanceType : draft.instanceType;
  } else {
    input.zone = draft.zone;
    if (draft.flexible) input.instanceTypes = [...draft.instanceTypes];
    else input.instanceType = draft.instanceType;
  }
  if (draft.minCount.trim() !== "") input.minCount = parseWhole(draft.minCount) ?? 0;
  if (draft.threadsPerCore !== "") input.threadsPerCore = Number(draft.threadsPerCore);
  if (draft.deepHealthChecks.length > 0) input.deepHealthChecks = deepHealthCheckNames.filter((c) => draft.deepHealthChecks.includes(c));
  const labels = labelInputs(draft.labels);
  if (labels.length > 0) input.labels = labels;
  const taints = taintInputs(draft.taints);
  if (taints.length > 0) input.taints = taints;
  return input;
}

const formFields = new Set(Object.values(addPaths));

/**
 * Where a server error about field belongs on the form. The server names
 * input.instanceType for a flexible group's types too, and input.zone or
 * input.instanceType for what a training plan settles: those go to the
 * control the user chose them with.
 */
export function addFormKey(field: string, draft: AddGroupDraft, plan: PlanLike | null): string {
  const training = draft.capacityType === "TRAINING_PLAN";
  if (field === addPaths.zone && training) return addPaths.trainingPlanArn;
  if (field === addPaths.instanceType || field === addPaths.instanceTypes) {
    if (planFixesType(draft, plan)) return addPaths.trainingPlanArn;
    return draft.flexible && !training ? addPaths.instanceTypes : addPaths.instanceType;
  }
  return formFields.has(field as (typeof addPaths)[keyof typeof addPaths]) ? field : generalKey;
}

/** Sorts the server's errors onto the form's fields. */
export function addServerErrors(errors: readonly ServerError[], draft: AddGroupDraft, plan: PlanLike | null): FieldErrors {
  return sortServerErrors(errors, (field) => addFormKey(field, draft, plan));
}
