import { Link } from "../app/router";
import type { OperationSummaryFragment } from "../gql/graphql";
import { StatusBadge } from "../ui/StatusBadge";
import { formatAgo, formatDuration, formatTime, toMs } from "../ui/time";
import { useNow } from "../ui/useNow";
import { targetPath } from "./targets";

/** Operations as a table, each linking to its page. */
export function OperationsTable({ operations, showTarget = true }: { operations: readonly OperationSummaryFragment[]; showTarget?: boolean }) {
  const now = useNow(true, 5000);
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Operation</th>
            <th scope="col">Status</th>
            {showTarget && <th scope="col">Target</th>}
            <th scope="col">Requested by</th>
            <th scope="col">Created</th>
            <th scope="col" className="num">
              Duration
            </th>
          </tr>
        </thead>
        <tbody>
          {operations.map((op) => {
            const started = toMs(op.startedAt);
            const finished = toMs(op.finishedAt);
            const target = targetPath(op.target);
            return (
              <tr key={op.id}>
                <td>
                  <Link to={`/operations/${encodeURIComponent(op.id)}`} className="strong">
                    {op.kind}
                  </Link>
                  {op.noop && <span className="tag">no change</span>}
                  {op.error && <div className="cell-note cell-error">{op.error.message}</div>}
                </td>
                <td>
                  <StatusBadge status={op.status} />
                </td>
                {showTarget && (
                  <td>
                    {target ? <Link to={target}>{op.target.name ?? op.target.id}</Link> : (op.target.name ?? op.target.id)}{" "}
                    <span className="muted">{op.target.kind.toLowerCase()}</span>
                  </td>
                )}
                <td>{op.requestedBy}</td>
                <td title={formatTime(op.createdAt)}>{formatAgo(op.createdAt, now)}</td>
                <td className="num">{started === null ? "—" : formatDuration((finished ?? now) - started)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
