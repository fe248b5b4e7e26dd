// How jobs are named in words: recipes, restart reasons, the shape of a
// job (nodes × GPUs) and its restarts.

export const recipeWords: Record<string, string> = {
  PYTORCH: "PyTorch script",
  LLAMA_FACTORY: "LLaMA-Factory",
  MS_SWIFT: "ms-swift",
  VERL: "verl",
  RAY: "Ray program",
};

export const restartReasonWords: Record<string, string> = {
  PROCESS_CRASH: "A training process crashed",
  NODE_FAILURE: "A node failed",
  HANG: "The job hung",
  SLOW: "The job slowed down",
  OTHER: "Another reason",
};

export const jobStatusWords: Record<string, string> = {
  PENDING: "Waiting for its pods: nodes (Karpenter may be adding them), images or the operator.",
  RUNNING: "Every pod is running and training.",
  RESTARTING: "Recovering from a fault: it restarts from its last checkpoint.",
  SUCCEEDED: "Training finished.",
  FAILED: "Training failed.",
  DELETED: "Deleted: its object and pods are gone; outputs and checkpoints stay in the bucket.",
};

/** The statuses a job ends in. */
export const terminalJobStatuses: ReadonlySet<string> = new Set(["SUCCEEDED", "FAILED", "DELETED"]);

/** "2 × 4 GPUs", "1 × 1 GPU". */
export function shapeWords(nodes: number, gpusPerNode: number): string {
  return `${nodes} × ${gpusPerNode} ${gpusPerNode === 1 ? "GPU" : "GPUs"}`;
}

/** "1/5", the restarts used of those allowed. */
export function restartsWords(b: { restartsUsed: number; restartsAllowed: number }): string {
  return `${b.restartsUsed}/${b.restartsAllowed}`;
}

/** The path of a job's page. */
export function jobPath(clusterId: string, jobId: string): string {
  return `/clusters/${encodeURIComponent(clusterId)}/jobs/${encodeURIComponent(jobId)}`;
}

/** The path of the submit form of a cluster. */
export function submitJobPath(clusterId: string): string {
  return `/clusters/${encodeURIComponent(clusterId)}/jobs/new`;
}

/** A recipe as its choice reads: "LLaMA-Factory 0.9.3". */
export function recipeLabel(r: { recipe: string; version: string }): string {
  return `${recipeWords[r.recipe] ?? r.recipe} ${r.version}`;
}
