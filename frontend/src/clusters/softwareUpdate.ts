// The software update of a cluster (updateClusterSoftware) as the cluster
// page offers it: which groups run which HyperPod image, which of them an
// update would move, and the rolling-update settings checked before the
// server sees them.
import type { ImageVersionStatus, SoftwareUpdateStatus } from "../gql/graphql";
import { addError, generalKey, parseWhole, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";

/** What the cluster page knows of a group's software. */
export interface GroupSoftware {
  name: string;
  status: string;
  targetCount: number;
  software: {
    imageVersion: string | null;
    targetImageVersion: string | null;
    imageVersionStatus: ImageVersionStatus;
    updateStatus: SoftwareUpdateStatus | null;
  };
}

export const imageStatusWords: Record<ImageVersionStatus, string> = {
  UP_TO_DATE: "up to date",
  UPDATE_AVAILABLE: "update available",
  SECURITY_UPDATE_REQUIRED: "security update required",
  END_OF_LIFE: "end of life",
  UNKNOWN: "not known",
};

export const updateStatusWords: Record<SoftwareUpdateStatus, string> = {
  PENDING: "update requested",
  IN_PROGRESS: "updating",
  SUCCEEDED: "last update succeeded",
  FAILED: "last update stopped on an unhealthy batch",
  ROLLBACK_IN_PROGRESS: "rolling back",
  ROLLBACK_COMPLETE: "last update rolled back",
};

const updating: readonly (SoftwareUpdateStatus | null)[] = ["PENDING", "IN_PROGRESS", "ROLLBACK_IN_PROGRESS"];

/** Whether a software update of the group is under way. */
export function updateRunning(g: GroupSoftware): boolean {
  return updating.includes(g.software.updateStatus);
}

/** Whether a newer image exists for the group (or SageMaker does not say, so an update may find one). */
export function updateOffered(g: GroupSoftware): boolean {
  return g.software.imageVersionStatus !== "UP_TO_DATE";
}

/**
 * The version a group reads as: its image, and where an update is taking
 * it while one runs ("1.5.2 → 1.6.0").
 */
export function versionText(g: GroupSoftware): string {
  const { imageVersion, targetImageVersion } = g.software;
  const current = imageVersion ?? "not known";
  return targetImageVersion && targetImageVersion !== imageVersion ? `${current} → ${targetImageVersion}` : current;
}

/** The groups an update can take: live ones, not being deleted. */
export function updatableGroups<G extends GroupSoftware>(groups: readonly G[]): G[] {
  return groups.filter((g) => g.status !== "DELETED" && g.status !== "DELETING" && g.status !== "PENDING");
}

/**
 * Why the cluster's software cannot be updated now, or undefined when it
 * can: the cluster must be ACTIVE, have a group, and have no update under
 * way.
 */
export function softwareUpdateDenied(cluster: { status: string }, groups: readonly GroupSoftware[]): string | undefined {
  if (cluster.status !== "ACTIVE") return `The cluster is ${cluster.status}; its software can be updated once it is ACTIVE.`;
  const live = updatableGroups(groups);
  if (live.length === 0) return "The cluster has no instance groups to update.";
  const busy = live.filter(updateRunning).map((g) => g.name);
  if (busy.length > 0) return `A software update of ${busy.join(", ")} is under way: wait for it to end.`;
  return undefined;
}

/** The dialog's fields as typed. */
export interface SoftwareDraft {
  groups: ReadonlySet<string>;
  maxUnavailablePercent: string;
  waitIntervalSeconds: string;
  autoRollback: boolean;
}

/** The draft the dialog opens with: every group a newer image exists for (all of them when none says so), a fifth at a time. */
export function softwareDraftOf(groups: readonly GroupSoftware[]): SoftwareDraft {
  const live = updatableGroups(groups);
  const offered = live.filter(updateOffered);
  return {
    groups: new Set((offered.length > 0 ? offered : live).map((g) => g.name)),
    maxUnavailablePercent: "20",
    waitIntervalSeconds: "0",
    autoRollback: true,
  };
}

/** The keys of the dialog's fields, as the server names them. */
export const softwareFields = {
  groups: "instanceGroups",
  percent: "rollingUpdate.maxUnavailablePercent",
  wait: "rollingUpdate.waitIntervalSeconds",
} as const;

/** The server's errors at the dialog's fields: instanceGroups[1] is the groups' field. */
export function softwareServerErrors(errors: readonly ServerError[]): FieldErrors {
  return sortServerErrors(errors, (field) => {
    if (field === softwareFields.groups || field.startsWith(softwareFields.groups + "[")) return softwareFields.groups;
    if (field === softwareFields.percent || field === softwareFields.wait) return field;
    return generalKey;
  });
}

/** The variables of updateClusterSoftware for a valid draft, or the errors by field. */
export function softwareRequest(
  clusterId: string,
  groups: readonly GroupSoftware[],
  d: SoftwareDraft,
): { ok: true; vars: { clusterId: string; instanceGroups: string[]; rollingUpdate: { maxUnavailablePercent: number; waitIntervalSeconds: number; autoRollback: boolean } } } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const live = updatableGroups(groups).map((g) => g.name);
  const chosen = live.filter((name) => d.groups.has(name));
  if (chosen.length === 0) addError(errors, softwareFields.groups, "Choose at least one instance group to update.");
  const pct = parseWhole(d.maxUnavailablePercent);
  if (pct === null || pct < 1 || pct > 100) addError(errors, softwareFields.percent, "Give a whole percentage from 1 to 100.");
  const wait = parseWhole(d.waitIntervalSeconds);
  if (wait === null || wait < 0 || wait > 3600) addError(errors, softwareFields.wait, "Give a whole number of seconds from 0 to 3600.");
  if (Object.keys(errors).length > 0 || pct === null || wait === null) return { ok: false, errors };
  return {
    ok: true,
    vars: {
      clusterId,
      // Named even when all are chosen: the update then takes exactly the groups the user saw.
      instanceGroups: chosen,
      rollingUpdate: { maxUnavailablePercent: pct, waitIntervalSeconds: wait, autoRollback: d.autoRollback },
    },
  };
}

/**
 * How a group of count nodes is replaced at pct percent: nodes per batch
 * (the percentage rounded up, as HyperPod rounds it) and how many batches.
 */
export function batchPlan(count: number, pct: number): { perBatch: number; batches: number } {
  if (count <= 0 || pct <= 0) return { perBatch: 0, batches: 0 };
  const perBatch = Math.max(1, Math.ceil((count * Math.min(pct, 100)) / 100));
  return { perBatch, batches: Math.ceil(count / perBatch) };
}
