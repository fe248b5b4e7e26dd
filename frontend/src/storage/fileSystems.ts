// The cluster's FSx for Lustre file systems among its storages, what their
// state allows, and the confirmation their removal asks for.

interface StorageLike {
  kind: string;
  status: string;
}

/** The storages that are FSx for Lustre file systems, not DELETED, in the list's order. */
export function fileSystems<T extends StorageLike>(storages: readonly T[]): T[] {
  return storages.filter((s) => s.kind === "FSX_LUSTRE" && s.status !== "DELETED");
}

/** Why file systems cannot be added now, or undefined when they can. */
export function fileSystemAddDenied(clusterStatus: string): string | undefined {
  return clusterStatus === "ACTIVE" ? undefined : `The cluster is ${clusterStatus}; its storage can change only while it is ACTIVE.`;
}

/** Why a file system cannot be removed now, or undefined when it can. */
export function fileSystemRemoveDenied(clusterStatus: string, fs: StorageLike): string | undefined {
  if (clusterStatus !== "ACTIVE") return fileSystemAddDenied(clusterStatus);
  if (fs.status === "CREATING") return "The file system is being added.";
  if (fs.status === "DELETING") return "The file system is being removed.";
  return undefined;
}

/** Whether the name typed to confirm removing file system name is its name. */
export function fileSystemRemoveConfirmed(typed: string, name: string): boolean {
  return name !== "" && typed.trim() === name;
}
