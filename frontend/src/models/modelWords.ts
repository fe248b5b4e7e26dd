// What the Models tab says about a model: its status and its source, and
// what it was downloaded from.

/** What a model's status means, said next to its badge. */
export const modelStatusWords: Record<string, string> = {
  DOWNLOADING: "Being copied into the shared bucket by a Job on the cluster.",
  READY: "Every file is there: jobs and endpoints can load it from its path.",
  FAILED: "The download failed. The files copied stay: Retry resumes it.",
  CANCELLED: "The download was cancelled. The files copied stay: downloading it again resumes.",
  PRESENT: "Put in models/ by hand or by another tool, not by a download: listed as it is, whole or not.",
};

/** Where a model comes from, in words. */
export const modelSourceWords: Record<string, string> = {
  HUGGING_FACE: "Hugging Face",
  UNKNOWN: "Put there by hand",
};

/** A commit id as people read it: its first 7 characters. */
export function shortCommit(commit: string): string {
  return commit.slice(0, 7);
}

/**
 * What a model was downloaded from: "Qwen/Qwen3-8B @ main (a1b2c3d)", the
 * commit left out when the revision asked was that commit. null for a
 * folder no download made.
 */
export function modelOrigin(m: { modelId: string | null; revision: string | null; commit: string | null }): string | null {
  if (!m.modelId) return null;
  const revision = m.revision ?? "main";
  const commit = m.commit && !m.commit.startsWith(revision) ? ` (${shortCommit(m.commit)})` : "";
  return `${m.modelId} @ ${revision}${commit}`;
}
