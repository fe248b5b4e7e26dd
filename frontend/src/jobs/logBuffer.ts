// The lines a log viewer holds: the newest few thousand, in the order the
// server sent them, and the cursor after the last chunk, from which a new
// subscription continues with no gap and no line twice.

/** One line as jobLogs sends it. */
export interface LogLine {
  pod: string;
  time: string;
  text: string;
}

/** A line held, with a number that stays its own as older lines are dropped (a React key). */
export interface HeldLine extends LogLine {
  seq: number;
}

export interface LogBuffer {
  /** The lines held, oldest first. */
  lines: readonly HeldLine[];
  /** The cursor of the last chunk taken in: pass it as since to continue; null before the first. */
  cursor: string | null;
  /** How many older lines were let go to stay within the bound. */
  dropped: number;
  /** The seq of the next line. */
  next: number;
}

/** How many lines a viewer holds: enough to scroll back through, few enough for the page to stay quick. */
export const maxHeldLines = 5000;

/** An empty buffer, before any chunk. */
export function emptyLogBuffer(): LogBuffer {
  return { lines: [], cursor: null, dropped: 0, next: 0 };
}

/**
 * Takes in one chunk: its lines after those held (only the newest max
 * kept) and its cursor. A chunk with no lines still moves the cursor.
 */
export function appendChunk(buf: LogBuffer, chunk: { lines: readonly LogLine[]; cursor: string }, max: number = maxHeldLines): LogBuffer {
  if (chunk.lines.length === 0) return chunk.cursor === buf.cursor ? buf : { ...buf, cursor: chunk.cursor };
  // Only the newest max of the chunk can stay: skip the rest unseen.
  const skip = Math.max(0, chunk.lines.length - max);
  const added: HeldLine[] = [];
  for (let i = skip; i < chunk.lines.length; i++) {
    const l = chunk.lines[i]!;
    added.push({ pod: l.pod, time: l.time, text: l.text, seq: buf.next + i });
  }
  const keepOld = Math.max(0, max - added.length);
  const old = buf.lines.length > keepOld ? buf.lines.slice(buf.lines.length - keepOld) : buf.lines;
  return {
    lines: old.length === 0 ? added : [...old, ...added],
    cursor: chunk.cursor,
    dropped: buf.dropped + skip + (buf.lines.length - old.length),
    next: buf.next + chunk.lines.length,
  };
}

/** The lines that contain query, case-insensitive; all of them for an empty query. */
export function searchLines<L extends LogLine>(lines: readonly L[], query: string): readonly L[] {
  const q = query.toLowerCase();
  if (q === "") return lines;
  return lines.filter((l) => l.text.toLowerCase().includes(q));
}

/** A piece of a line: a match of the search, or the text between. */
export interface Segment {
  text: string;
  match: boolean;
}

/** Splits text at every match of query (case-insensitive), to mark the matches. */
export function highlight(text: string, query: string): Segment[] {
  if (query === "") return [{ text, match: false }];
  const lower = text.toLowerCase();
  const q = query.toLowerCase();
  const out: Segment[] = [];
  let from = 0;
  for (let at = lower.indexOf(q); at >= 0; at = lower.indexOf(q, at + q.length)) {
    if (at > from) out.push({ text: text.slice(from, at), match: false });
    out.push({ text: text.slice(at, at + q.length), match: true });
    from = at + q.length;
  }
  if (from < text.length || out.length === 0) out.push({ text: text.slice(from), match: false });
  return out;
}
