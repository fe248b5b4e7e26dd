import { useState } from "react";
import { useMutation } from "urql";
import { Link } from "../app/router";
import type { ModelRowFragment, OperationDetailFragment } from "../gql/graphql";
import { CancelOperationMutation, RetryOperationMutation } from "../operations/documents";
import { CopyButton } from "../ui/CopyButton";
import { ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { ModelProgressBar } from "./ModelProgressBar";
import { filesAndSize } from "./modelProgress";
import { modelAction } from "./modelRules";
import { modelOrigin, modelSourceWords, modelStatusWords } from "./modelWords";
import type { ClusterModels } from "./useClusterModels";

interface Props {
  models: ClusterModels;
  /** Why downloads cannot be cancelled or retried (the caller's role). */
  denied: string | undefined;
  /** The address of the Storage tab's browser at a folder of the bucket. */
  browsePath: (prefix: string) => string;
  onRetried: (op: OperationDetailFragment, model: ModelRowFragment) => void;
  onActionError: (messages: string[]) => void;
}

/**
 * The models of the shared bucket, a page at a time by name: where each
 * comes from and at which commit, whether it is all there (a failed
 * download shows how much of it is, never that it is ready), the path pods
 * load it from, and a way to its files in the bucket browser.
 */
export function ModelsTable({ models, denied, browsePath, onRetried, onActionError }: Props) {
  let body;
  if (models.error && !models.loaded) {
    body = (
      <ErrorBanner title="The models could not be listed" messages={errorMessages(models.error)}>
        <button className="button" type="button" onClick={models.reload}>
          Try again
        </button>
      </ErrorBanner>
    );
  } else if (!models.loaded) {
    body = <Loading what="models" />;
  } else if (models.models.length === 0) {
    body = (
      <p className="muted">
        {models.page > 1
          ? "Nothing more."
          : "No models yet. Download one above, or put a folder of files in models/ of the bucket: it is listed here as it is."}
      </p>
    );
  } else {
    body = (
      <div className="table-wrap">
        <table className="table models">
          <caption className="sr-only">Models in the shared bucket</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Source</th>
              <th scope="col">Model @ revision</th>
              <th scope="col">Status</th>
              <th scope="col">Files and size</th>
              <th scope="col">Pods load it from</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {models.models.map((m) => (
              <ModelRow key={m.id} model={m} denied={denied} browsePath={browsePath} onRetried={onRetried} onActionError={onActionError} />
            ))}
          </tbody>
        </table>
      </div>
    );
  }

  return (
    <section className="card" aria-label="Models in the bucket">
      <div className="section-head">
        <h2>Models</h2>
      </div>
      {models.error && models.loaded && <ErrorBanner title="The models could not be listed again: this is the last listing" messages={errorMessages(models.error)} />}
      {body}
      {models.loaded && (models.hasNextPage || models.page > 1) && (
        <div className="table-foot">
          <span className="muted">Page {models.page}</span>
          {models.page > 1 && (
            <button type="button" className="button" onClick={models.firstPage}>
              First page
            </button>
          )}
          {models.hasNextPage && (
            <button type="button" className="button" onClick={models.nextPage}>
              Next page
            </button>
          )}
        </div>
      )}
    </section>
  );
}

interface RowProps {
  model: ModelRowFragment;
  denied: string | undefined;
  browsePath: (prefix: string) => string;
  onRetried: (op: OperationDetailFragment, model: ModelRowFragment) => void;
  onActionError: (messages: string[]) => void;
}

function ModelRow({ model: m, denied, browsePath, onRetried, onActionError }: RowProps) {
  const origin = modelOrigin(m);
  const whole = m.status === "READY" || m.status === "PRESENT";
  const note = m.statusMessage ?? (m.status === "READY" ? null : modelStatusWords[m.status]);
  return (
    <tr data-model={m.name} className={m.status === "FAILED" ? "row-failed" : undefined}>
      <td>
        <span className="strong">{m.name}</span>
      </td>
      <td>{modelSourceWords[m.source] ?? m.source}</td>
      <td>{origin ? <code className="wrap">{origin}</code> : <span className="muted">No download made it</span>}</td>
      <td>
        <StatusBadge status={m.status} />
        {note && <div className="cell-note cell-message">{note}</div>}
        {m.jobName && m.status !== "READY" && (
          <div className="cell-note">
            Job <code>{m.jobName}</code> in <code>{m.namespace}</code>
          </div>
        )}
      </td>
      <td>{whole ? filesAndSize(m) : <ModelProgressBar model={m} />}</td>
      <td>
        <div className="resource-ref">
          <code className="wrap">{m.path}</code>
          <CopyButton text={m.path} label={`Copy ${m.path}`} />
        </div>
      </td>
      <td>
        <div className="row-actions">
          <Link to={browsePath(`models/${m.name}/`)} className="button" aria-label={`Browse ${m.name}`}>
            Browse
          </Link>
          <ModelActions model={m} denied={denied} onRetried={onRetried} onActionError={onActionError} />
        </div>
      </td>
    </tr>
  );
}

/** Cancel while the model downloads (its Job is deleted, the files stay), Retry once its download failed (it resumes). */
function ModelActions({ model: m, denied, onRetried, onActionError }: Omit<RowProps, "browsePath">) {
  const [cancelState, cancel] = useMutation(CancelOperationMutation);
  const [retryState, retry] = useMutation(RetryOperationMutation);
  // Cancelled, until the record says so: the operation stops after its running phase.
  const [cancelling, setCancelling] = useState<string | null>(null);
  const action = modelAction(m);
  if (!action || !m.lastOperationId) return null;
  const id = m.lastOperationId;

  if (action === "cancel") {
    const requested = cancelling === id;
    const doCancel = async () => {
      const r = await cancel({ id });
      if (r.error) onActionError(errorMessages(r.error));
      else setCancelling(id);
    };
    return (
      <GuardedButton
        className="button button-danger"
        deniedReason={denied}
        disabled={cancelState.fetching || requested}
        aria-label={`Cancel the download of ${m.name}`}
        onClick={() => void doCancel()}
      >
        {cancelState.fetching || requested ? "Cancelling…" : "Cancel"}
      </GuardedButton>
    );
  }
  const doRetry = async () => {
    const r = await retry({ id });
    if (r.error) onActionError(errorMessages(r.error));
    else if (r.data) onRetried(r.data.retryOperation, m);
  };
  return (
    <GuardedButton
      className="button button-primary"
      deniedReason={denied}
      disabled={retryState.fetching}
      aria-label={`Retry the download of ${m.name}`}
      onClick={() => void doRetry()}
    >
      {retryState.fetching ? "Retrying…" : "Retry"}
    </GuardedButton>
  );
}
