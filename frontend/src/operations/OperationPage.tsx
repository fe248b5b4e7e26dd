import { useState } from "react";
import { useMutation, useQuery } from "urql";
import { Link } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import { ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { GuardedButton } from "../ui/GuardedButton";
import { LiveIndicator } from "../ui/LiveIndicator";
import { StatusBadge } from "../ui/StatusBadge";
import { formatDuration, formatTime, toMs } from "../ui/time";
import { useNow } from "../ui/useNow";
import { CancelOperationMutation, OperationQuery, RetryOperationMutation } from "./documents";
import { PhaseTimeline } from "./PhaseTimeline";
import { targetPath } from "./targets";
import { newestState, terminalStatuses as terminal, useOperationUpdates } from "./useOperationUpdates";

/** One operation: its phases live, a timeline, and retry and cancel. */
export function OperationPage({ id }: { id: string }) {
  const { me } = useSession();
  const [generation, setGeneration] = useState(0);
  const [{ data, error, fetching }] = useQuery({ query: OperationQuery, variables: { id } });
  const live = useOperationUpdates(id, generation);
  const [retryState, retry] = useMutation(RetryOperationMutation);
  const [cancelState, cancel] = useMutation(CancelOperationMutation);
  const [actionError, setActionError] = useState<string[] | null>(null);

  const op = newestState(data?.operation, live.latest, retryState.data?.retryOperation, cancelState.data?.cancelOperation);
  const running = op !== null && !terminal.has(op.status);
  const now = useNow(running);

  if (!op) {
    if (error) {
      return (
        <ErrorBanner title="The operation could not be loaded" messages={errorMessages(error)}>
          <p>
            <Link to="/operations">See all operations</Link>
          </p>
        </ErrorBanner>
      );
    }
    return fetching || !live.error ? <Loading what="the operation" /> : <ErrorBanner title="The operation could not be loaded" messages={[live.error]} />;
  }

  // Retry shows for a failed or cancelled operation, cancel for a running
  // one; either is disabled, with the reason, for a role that may not.
  const roleDenied = deniedReason(me.role, "OPERATOR");
  const canRetry = op.status === "FAILED" || op.status === "CANCELLED";
  const cancelDenied = roleDenied ?? (op.cancelRequested ? "Cancellation was requested; the operation stops after its running phases." : undefined);

  const doRetry = async () => {
    setActionError(null);
    const r = await retry({ id: op.id });
    if (r.error) setActionError(errorMessages(r.error));
    else setGeneration((g) => g + 1);
  };
  const doCancel = async () => {
    setActionError(null);
    const r = await cancel({ id: op.id });
    if (r.error) setActionError(errorMessages(r.error));
  };

  const started = toMs(op.startedAt);
  const finished = toMs(op.finishedAt);
  const target = targetPath(op.target);

  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/operations">Operations</Link> /
          </p>
          <h1>
            {op.kind} {op.target.name && <span className="muted">{op.target.name}</span>}
          </h1>
          <p className="head-status">
            <StatusBadge status={op.status} />
            {op.noop && <span className="tag">no change needed</span>}
            {op.cancelRequested && !terminal.has(op.status) && <span className="tag">cancelling</span>}
            {running && <LiveIndicator error={live.error ? `Live updates paused: ${live.error}` : null} />}
          </p>
        </div>
        <div className="actions">
          {canRetry && (
            <GuardedButton className="button button-primary" deniedReason={roleDenied} disabled={retryState.fetching} onClick={() => void doRetry()}>
              {retryState.fetching ? "Retrying…" : "Retry"}
            </GuardedButton>
          )}
          {running && (
            <GuardedButton className="button button-danger" deniedReason={cancelDenied} disabled={cancelState.fetching} onClick={() => void doCancel()}>
              {cancelState.fetching ? "Cancelling…" : "Cancel"}
            </GuardedButton>
          )}
        </div>
      </div>

      {actionError && <ErrorBanner title="That did not work" messages={actionError} />}
      {op.error && (
        <ErrorBanner title={`Failed: ${op.error.code}${op.error.upstreamCode ? ` (${op.error.upstreamCode})` : ""}`} messages={[op.error.message]}>
          {op.error.retryable && <p className="muted">Retrying may succeed: the failed phases run again, finished ones do not.</p>}
        </ErrorBanner>
      )}

      <dl className="meta card">
        <div>
          <dt>Target</dt>
          <dd>
            {target ? <Link to={target}>{op.target.name ?? op.target.id}</Link> : (op.target.name ?? op.target.id)}{" "}
            <span className="muted">{op.target.kind.toLowerCase()}</span>
          </dd>
        </div>
        <div>
          <dt>Requested by</dt>
          <dd>{op.requestedBy}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatTime(op.createdAt)}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatTime(op.startedAt)}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>{formatTime(op.finishedAt)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{started === null ? "—" : formatDuration((finished ?? now) - started)}</dd>
        </div>
        <div>
          <dt>Confirmed by</dt>
          <dd>
            <code>{op.statusQuery}</code> query
          </dd>
        </div>
        <div>
          <dt>Operation id</dt>
          <dd>
            <code>{op.id}</code>
          </dd>
        </div>
      </dl>

      <section className="card">
        <h2>Timeline</h2>
        <PhaseTimeline phases={op.phases} now={now} />
      </section>

      <section className="card">
        <h2>Phases</h2>
        <div className="table-wrap">
          <table className="table phases">
            <thead>
              <tr>
                <th scope="col">Phase</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Attempt
                </th>
                <th scope="col" className="num">
                  Duration
                </th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {op.phases.map((p) => {
                const s = toMs(p.startedAt);
                const f = toMs(p.finishedAt);
                return (
                  <tr key={p.name} className={p.status === "FAILED" ? "row-failed" : undefined}>
                    <td>
                      <div className="strong">{p.title}</div>
                      <div className="cell-note">
                        <code>{p.name}</code>
                        {p.dependsOn.length > 0 && <> · after {p.dependsOn.join(", ")}</>}
                      </div>
                    </td>
                    <td>
                      <StatusBadge status={p.status} />
                    </td>
                    <td className="num">{p.attempt}</td>
                    <td className="num">{s === null ? "—" : formatDuration((f ?? now) - s)}</td>
                    <td>
                      {p.message && !p.error?.message.includes(p.message) && <div>{p.message}</div>}
                      {p.error && (
                        <div className="phase-error">
                          <strong>
                            {p.error.code}
                            {p.error.upstreamCode ? ` (${p.error.upstreamCode})` : ""}:
                          </strong>{" "}
                          {p.error.message}
                          {p.error.retryable && <span className="tag">retryable</span>}
                        </div>
                      )}
                      {p.outputs.length > 0 && (
                        <details className="outputs">
                          <summary>{p.outputs.length === 1 ? "1 output" : `${p.outputs.length} outputs`}</summary>
                          <dl>
                            {p.outputs.map((o) => (
                              <div key={o.key}>
                                <dt>{o.key}</dt>
                                <dd>
                                  <code>{o.value}</code>
                                </dd>
                              </div>
                            ))}
                          </dl>
                        </details>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
