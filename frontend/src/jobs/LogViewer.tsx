import { stringifyDocument } from "@urql/core";
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useSession } from "../app/session";
import { describeStreamError } from "../ui/LiveIndicator";
import { EndpointLogsSubscription, JobLogsSubscription } from "./documents";
import { appendChunk, emptyLogBuffer, highlight, searchLines, type LogBuffer } from "./logBuffer";
import { ResumableLogs, type LogStreamEnd } from "./logStream";

/** How many of the newest lines a viewer starts with. */
const tailLines = 500;

/** Following live, reading up to now once, or neither. */
type Mode = "follow" | "once" | "paused";

type StreamState = { kind: "connecting" } | { kind: "live" } | { kind: "retrying"; why: string } | { kind: "paused" } | { kind: "ended"; end: LogStreamEnd; why?: string };

const endWords: Record<LogStreamEnd, string> = {
  ENDED: "ENDED: the pods' containers ended; there are no more lines.",
  DONE: "DONE: every line so far is shown. Follow to see new ones as they come.",
  ERROR: "The log stopped",
};

/**
 * A job's log, live: the newest lines of every pod (or one), then each
 * line as the pods write it, the newest 5000 kept. Following can be
 * paused and resumed with no gap (the stream continues from the cursor of
 * the last chunk, as it does by itself after a reconnect or when the
 * server says it fell behind). A search filters the lines held and marks
 * what it found. The view stays at the bottom while it is there.
 *
 * A stream that ended while the job still runs (its pods were made again
 * by a restart, or had not started) continues from its cursor when the
 * pods change: podsKey says when they do.
 *
 * With endpointId instead of jobId it is an endpoint's model servers' log
 * (endpointLogs): every replica's pod, or one.
 */
export function LogViewer({
  jobId,
  endpointId,
  pods,
  podsKey,
  running,
}: {
  jobId?: string;
  endpointId?: string;
  pods: readonly string[];
  podsKey: string;
  running: boolean;
}) {
  const { api } = useSession();
  const [pod, setPod] = useState("");
  const [mode, setMode] = useState<Mode>("follow");
  const [reads, setReads] = useState(0);
  const [search, setSearch] = useState("");
  const [buffer, setBuffer] = useState<LogBuffer>(emptyLogBuffer);
  const [state, setState] = useState<StreamState>({ kind: "connecting" });
  // The cursor to continue from, across pauses; it belongs to one pod filter.
  const cursor = useRef<{ pod: string; cursor: string | null }>({ pod: "", cursor: null });
  const view = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const podId = useId();
  const searchId = useId();

  useEffect(() => {
    if (cursor.current.pod !== pod) {
      cursor.current = { pod, cursor: null };
      setBuffer(emptyLogBuffer());
    }
    if (mode === "paused") {
      setState({ kind: "paused" });
      return;
    }
    setState({ kind: "connecting" });
    const stream = new ResumableLogs({
      subscribe: (payload, sink) => api.ws.subscribe(payload, sink as Parameters<typeof api.ws.subscribe>[1]),
      query: stringifyDocument(endpointId !== undefined ? EndpointLogsSubscription : JobLogsSubscription),
      ...(endpointId !== undefined ? { endpointId } : { jobId: jobId ?? "" }),
      pod: pod || null,
      tail: tailLines,
      follow: mode === "follow",
      onChunk: (chunk) => {
        cursor.current = { pod, cursor: chunk.cursor };
        setState((s) => (s.kind === "live" ? s : { kind: "live" }));
        setBuffer((b) => appendChunk(b, chunk));
      },
      onRetry: (err) => setState({ kind: "retrying", why: describeStreamError(err) }),
      onEnd: (end, err) => setState({ kind: "ended", end, ...(err !== undefined && { why: describeStreamError(err) }) }),
    });
    stream.start(cursor.current.cursor);
    return () => stream.stop();
  }, [api, jobId, endpointId, pod, mode, reads]);

  const endedEarly = running && mode === "follow" && state.kind === "ended" && state.end !== "DONE";
  const seenPods = useRef(podsKey);
  useEffect(() => {
    if (seenPods.current === podsKey) return;
    seenPods.current = podsKey;
    if (endedEarly) setReads((n) => n + 1);
  }, [podsKey, endedEarly]);

  const shown = useMemo(() => searchLines(buffer.lines, search.trim()), [buffer.lines, search]);

  useLayoutEffect(() => {
    const v = view.current;
    if (v && atBottom.current) v.scrollTop = v.scrollHeight;
  }, [shown]);

  const onScroll = () => {
    const v = view.current;
    if (v) atBottom.current = v.scrollHeight - v.scrollTop - v.clientHeight < 24;
  };

  const query = search.trim();
  const following = mode === "follow" && (state.kind === "live" || state.kind === "connecting" || state.kind === "retrying");
  return (
    <section className="card log-viewer" aria-label="Logs">
      <div className="section-head">
        <h2>Logs</h2>
        <LogStatus state={state} />
      </div>
      <div className="toolbar filters log-controls">
        <label htmlFor={podId}>
          Pod
          <select id={podId} value={pod} onChange={(e) => setPod(e.target.value)}>
            <option value="">All pods</option>
            {pods.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label htmlFor={searchId}>
          Search
          <input id={searchId} type="search" value={search} placeholder="NCCL WARN, loss, step=" onChange={(e) => setSearch(e.target.value)} />
        </label>
        <label className="check log-follow">
          <input type="checkbox" checked={mode === "follow"} onChange={(e) => setMode(e.target.checked ? "follow" : "paused")} />
          <span>Follow</span>
        </label>
        {mode !== "follow" && (
          <button
            type="button"
            className="button"
            onClick={() => {
              setMode("once");
              setReads((n) => n + 1);
            }}
          >
            Read new lines
          </button>
        )}
        <span className="muted log-count" aria-live="polite">
          {query ? `${shown.length} of ${buffer.lines.length} lines match` : `${buffer.lines.length} lines`}
          {buffer.dropped > 0 && ` (the ${buffer.dropped} oldest let go)`}
        </span>
      </div>
      <div ref={view} className="log-lines" role="log" aria-label="Log lines" aria-live={following ? "off" : undefined} tabIndex={0} onScroll={onScroll}>
        {shown.length === 0 ? (
          <p className="muted">{buffer.lines.length === 0 ? (state.kind === "connecting" ? "Reading the log…" : "No lines yet.") : "No line matches."}</p>
        ) : (
          shown.map((l) => (
            <div key={l.seq} className="log-line" data-pod={l.pod}>
              {!pod && <span className="log-pod">{l.pod}</span>}
              <span className="log-text">
                {highlight(l.text, query).map((s, i) => (s.match ? <mark key={i}>{s.text}</mark> : <span key={i}>{s.text}</span>))}
              </span>
            </div>
          ))
        )}
      </div>
    </section>
  );
}

function LogStatus({ state }: { state: StreamState }) {
  switch (state.kind) {
    case "connecting":
      return <span className="live">Connecting…</span>;
    case "live":
      return (
        <span className="live">
          <span className="live-dot" aria-hidden="true" /> Live
        </span>
      );
    case "retrying":
      return (
        <span className="live live-off" role="status">
          Reconnecting, to continue after the last line: {state.why}
        </span>
      );
    case "paused":
      return (
        <span className="live live-off" role="status">
          Paused: follow again to continue after the last line.
        </span>
      );
    case "ended":
      return (
        <span className={`live ${state.end === "ERROR" ? "live-off" : ""}`} role="status" data-end={state.end}>
          {endWords[state.end]}
          {state.why ? `: ${state.why}` : ""}
        </span>
      );
  }
}
