// What the Storage tab says about the shared bucket and the file systems.

/** The fixed layout of the shared bucket (see the Storage type's doc). */
export const bucketLayout: readonly { folder: string; holds: string }[] = [
  { folder: "datasets/", holds: "Data sets to train and evaluate on." },
  { folder: "models/<name>/", holds: "Model weights and configs, one folder per model." },
  { folder: "checkpoints/<job>/", holds: "A training job's checkpoints, one folder per job." },
  { folder: "outputs/<job>/", holds: "What a job writes out: logs, metrics, results." },
];

/** What a storage's status means, said next to its badge. */
export const storageStatusWords: Record<string, string> = {
  CREATING: "Being added: the bucket, the S3 CSI driver's access to it, then the volume and its claim.",
  AVAILABLE: "Pods can mount its claim.",
  FAILED: "Its last operation failed: add it again, or remove it.",
  DELETING: "Being removed.",
  DELETED: "Removed.",
};

/** What a file system's status means, said next to its badge. */
export const fileSystemStatusWords: Record<string, string> = {
  CREATING: "Being added: the FSx CSI driver, a security group, the file system (FSx takes several minutes), its link to the bucket, then the volume and its claim.",
  AVAILABLE: "Pods can mount its claim.",
  FAILED: "Its last operation failed: add it again with the same settings, or remove it.",
  DELETING: "Being removed: the claim and volume, the link, the file system, then its security group.",
  DELETED: "Removed.",
};

/** The deployment types as the card names them. */
export const deploymentTypeWords: Record<string, string> = {
  PERSISTENT_2: "PERSISTENT_2 (replicated in its zone)",
  PERSISTENT_1: "PERSISTENT_1 (replicated in its zone)",
  SCRATCH_2: "SCRATCH_2 (temporary, not replicated)",
};
