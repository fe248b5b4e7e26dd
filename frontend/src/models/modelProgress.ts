// How far a model's download is, from its record: the files and bytes
// the bucket holds of it, whole, as the download last saw them.
import { formatSize } from "../storage/objectSize";

interface Counts {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

export interface ModelProgress {
  /** How much is there, 0 to 1: by bytes, or by files for a model of no known size. */
  fraction: number;
  /** The whole percent there, rounded down: 100 only once every file is. */
  percent: number;
  /** "12 of 20 files". */
  files: string;
  /** "9.1 GiB of 15.3 GiB". */
  bytes: string;
  /** Whether every file is there. */
  complete: boolean;
}

function filesWord(n: number): string {
  return n === 1 ? "file" : "files";
}

/** How far the download of m is. */
export function modelProgress(m: Counts): ModelProgress {
  const raw = m.bytesTotal > 0 ? m.bytesDone / m.bytesTotal : m.filesTotal > 0 ? m.filesDone / m.filesTotal : 0;
  const complete = m.filesTotal > 0 && m.filesDone >= m.filesTotal;
  const fraction = complete ? 1 : Math.min(Math.max(raw, 0), 1);
  // 99.97% is not done: the bar says 100 only once the files are all there.
  const percent = complete ? 100 : Math.min(Math.floor(fraction * 100), 99);
  return {
    fraction,
    percent,
    files: `${m.filesDone} of ${m.filesTotal} ${filesWord(m.filesTotal)}`,
    bytes: `${formatSize(m.bytesDone)} of ${formatSize(m.bytesTotal)}`,
    complete,
  };
}

/**
 * The files and size of a model as its row says them: the whole count for
 * one that is all there (READY) or listed as it is (PRESENT), how much of
 * it is there for the others, FAILED ones included.
 */
export function filesAndSize(m: Counts & { status: string }): string {
  if (m.status === "READY" || m.status === "PRESENT") return `${m.filesTotal} ${filesWord(m.filesTotal)}, ${formatSize(m.bytesTotal)}`;
  const p = modelProgress(m);
  return `${p.files}, ${p.bytes}`;
}
