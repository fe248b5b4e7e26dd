import { Link } from "../app/router";

/** Says that an operation started, with a link to follow its progress. */
export function OperationStarted({ what, operationId, onDismiss }: { what: string; operationId: string; onDismiss: () => void }) {
  return (
    <div className="banner banner-info notice" role="status">
      <span>
        {what}. <Link to={`/operations/${encodeURIComponent(operationId)}`}>Follow its progress</Link>
      </span>
      <button type="button" className="button button-quiet" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
