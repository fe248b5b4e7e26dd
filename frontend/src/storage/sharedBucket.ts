// The cluster's shared bucket among its storages, and what its state allows:
// changing it, browsing it, following the operation under way on it.
import type { ServerError } from "../ui/fieldErrors";

interface StorageLike {
  kind: string;
  status: string;
}

/** The storage that is the cluster's shared bucket, or null: a cluster has one S3 storage not DELETED. */
export function sharedBucket<T extends StorageLike>(storages: readonly T[]): T | null {
  return storages.find((s) => s.kind === "S3" && s.status !== "DELETED") ?? null;
}

/** Whether an operation is making or removing the storage. */
export function storageBusy(status: string): boolean {
  return status === "CREATING" || status === "DELETING";
}

/** Why the shared bucket cannot be added or removed now, or undefined when it can. */
export function storageChangeDenied(clusterStatus: string, storage: StorageLike | null): string | undefined {
  if (clusterStatus !== "ACTIVE") return `The cluster is ${clusterStatus}; its storage can change only while it is ACTIVE.`;
  if (storage?.status === "CREATING") return "The shared bucket is being added.";
  if (storage?.status === "DELETING") return "The shared bucket is being removed.";
  return undefined;
}

/** Whether the bucket may be listed: once it is there, and until it is being removed. */
export function browsable(status: string): boolean {
  return status === "AVAILABLE" || status === "FAILED";
}

/**
 * The heading of a failed listing. A PRECONDITION error says the bucket
 * cannot be listed as things stand (it no longer exists, or the cluster
 * has no shared bucket): its message says what to do.
 */
export function browseErrorTitle(errors: readonly ServerError[]): string {
  return errors.some((e) => e.extensions?.code === "PRECONDITION") ? "The shared bucket cannot be listed" : "The bucket could not be listed";
}
