import { useEffect, useRef, type ReactNode } from "react";
import { Link } from "../app/router";
import type { OperationDetailFragment } from "../gql/graphql";
import { StatusBadge } from "../ui/StatusBadge";
import { newestState, terminalStatuses, useOperationUpdates } from "./useOperationUpdates";

interface Props {
  /** What the operation does, as a heading: "Enabling Training operator". */
  what: string;
  /** The operation as the mutation returned it. */
  operation: OperationDetailFragment;
  /** What to say when the operation had nothing to do. */
  noopMessage: string;
  onDismiss: () => void;
  /** What to show below the phases: how far a download is. */
  children?: ReactNode;
  /** Called once when the operation succeeds: a form goes on to what it made. */
  onSucceeded?: (op: OperationDetailFragment) => void;
}

/**
 * An operation just started from a page, followed live where it was
 * started: its status and each phase's, with a link to its own page. One
 * that had nothing to do says so plainly instead.
 */
export function OperationProgress({ what, operation, noopMessage, onDismiss, children, onSucceeded }: Props) {
  const live = useOperationUpdates(operation.id, 0);
  const op = newestState(operation, live.latest) ?? operation;
  const told = useRef(false);
  useEffect(() => {
    if (told.current || op.status !== "SUCCEEDED" || !onSucceeded) return;
    told.current = true;
    onSucceeded(op);
  }, [op, onSucceeded]);
  const opPath = `/operations/${encodeURIComponent(op.id)}`;

  if (op.noop) {
    return (
      <div className="banner banner-info notice" role="status">
        <span>
          <strong>{noopMessage}</strong> <Link to={opPath}>See the operation</Link>
        </span>
        <button type="button" className="button button-quiet" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
    );
  }

  const running = !terminalStatuses.has(op.status);
  return (
    <section className="card op-progress" aria-label={what}>
      <div className="section-head">
        <h2>
          {what} <StatusBadge status={op.status} />
        </h2>
        <span className="op-progress-links">
          <Link to={opPath}>Open the operation</Link>
          <button type="button" className="button button-quiet" onClick={onDismiss}>
            Dismiss
          </button>
        </span>
      </div>
      {running && live.error && <p className="live live-off">Live updates paused: {live.error}</p>}
      {op.error && (
        <p className="phase-error">
          <strong>{op.error.code}:</strong> {op.error.message}
          {op.error.retryable && " Retry it on the operation's page."}
        </p>
      )}
      <ol className="op-phases" aria-label="Phases">
        {op.phases.map((p) => (
          <li key={p.name}>
            <StatusBadge status={p.status} />
            <span>
              {p.title}
              {p.error ? <span className="phase-error"> {p.error.message}</span> : p.message && <span className="cell-note"> {p.message}</span>}
            </span>
          </li>
        ))}
      </ol>
      {children}
    </section>
  );
}
