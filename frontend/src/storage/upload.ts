/**
 * Uploads into the shared bucket: which key a file goes to, how a large
 * file is cut into parts, and what a resumed upload still has to send. The
 * bytes go from the browser straight to S3 through URLs the server signs.
 */

/** The folders that take uploads. */
export const uploadFolders = ["datasets/", "code/"] as const;
export type UploadFolder = (typeof uploadFolders)[number];

const MiB = 1024 * 1024;
/** Files up to this size go in one PUT; larger ones by parts, which resume. */
export const singlePutLimit = 16 * MiB;
/** The least part size: S3's 5 MiB, rounded up. */
export const minPartSize = 8 * MiB;
/** The most parts a file is cut into (what one request completes). */
export const maxParts = 1000;

/** The key a file goes to: folder, an optional subfolder, and its path in a picked folder. */
export function uploadKey(folder: UploadFolder, subfolder: string, relativePath: string): string {
  const parts = [subfolder, relativePath]
    .flatMap((p) => p.split("/"))
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return folder + parts.join("/");
}

/** Why a key cannot be uploaded to, or undefined: the server's rules, said before asking. */
export function keyProblem(key: string): string | undefined {
  const folder = uploadFolders.find((f) => key.startsWith(f));
  if (!folder) return "uploads go to datasets/ or code/ only";
  if (new TextEncoder().encode(key).length > 1024) return "the key is longer than 1024 bytes";
  if (key.includes("\\")) return "a backslash is not a folder separator";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) return "the name holds a control character";
  const segs = key.slice(folder.length).split("/");
  if (segs.some((s) => s === "")) return "a name is missing (an empty folder name)";
  if (segs.some((s) => s === "." || s === "..")) return "a . or .. folder is not allowed";
  return undefined;
}

/** How a file of size bytes is cut: the part size and the number of parts. */
export function planParts(size: number): { partSize: number; count: number } {
  const partSize = Math.max(minPartSize, Math.ceil(size / maxParts / MiB) * MiB);
  return { partSize, count: Math.max(1, Math.ceil(size / partSize)) };
}

/** The part numbers (1-based) of count that done does not hold. */
export function missingParts(count: number, done: ReadonlyArray<{ partNumber: number }>): number[] {
  const have = new Set(done.map((p) => p.partNumber));
  const out: number[] = [];
  for (let n = 1; n <= count; n++) if (!have.has(n)) out.push(n);
  return out;
}

/** Where a multipart upload's id is remembered, so that a retry, even after a reload, resumes it. */
export function resumeKey(clusterId: string, key: string, file: { size: number; lastModified: number }): string {
  return `instantstart.upload:${clusterId}:${key}:${file.size}:${file.lastModified}`;
}
