// What the cluster's state allows for its models: downloading one (the
// shared bucket must be AVAILABLE, the cluster ACTIVE), and what each
// model's row offers (cancelling its download, retrying it).

/**
 * Why models cannot be listed or downloaded as the shared bucket is, or
 * null when it is AVAILABLE: models live in it.
 */
export function bucketNotReady(shared: { status: string } | null): string | null {
  if (!shared) return "The cluster has no shared bucket, and models live in it: add one in the Storage tab first.";
  switch (shared.status) {
    case "AVAILABLE":
      return null;
    case "CREATING":
      return "The shared bucket is being added: models can be downloaded once it is AVAILABLE.";
    case "DELETING":
      return "The shared bucket is being removed: models cannot be downloaded into it.";
    default:
      return `The shared bucket is ${shared.status}: add it again in the Storage tab, then download models into it.`;
  }
}

/** Why a model cannot be downloaded now, or undefined when it can. */
export function downloadDenied(clusterStatus: string): string | undefined {
  return clusterStatus === "ACTIVE" ? undefined : `The cluster is ${clusterStatus}; models can be downloaded only while it is ACTIVE.`;
}

/** What a model's row offers: cancelling its download, or retrying it. */
export type ModelAction = "cancel" | "retry";

/** The action a model offers: Cancel while it downloads, Retry once its download failed. */
export function modelAction(m: { status: string; lastOperationId: string | null }): ModelAction | null {
  if (!m.lastOperationId) return null;
  if (m.status === "DOWNLOADING") return "cancel";
  if (m.status === "FAILED") return "retry";
  return null;
}
