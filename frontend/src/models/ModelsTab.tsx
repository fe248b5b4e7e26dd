import { useEffect, useRef, useState } from "react";
import { useQuery } from "urql";
import { Link } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { ModelRowFragment, OperationDetailFragment } from "../gql/graphql";
import { OperationProgress } from "../operations/OperationProgress";
import type { ClusterStorage } from "../storage/useClusterStorage";
import { ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { ModelQuery } from "./documents";
import { DownloadModelForm } from "./DownloadModelForm";
import { ModelProgressBar } from "./ModelProgressBar";
import { bucketNotReady, downloadDenied } from "./modelRules";
import { ModelsTable } from "./ModelsTable";
import type { ClusterModels } from "./useClusterModels";

interface Props {
  cluster: { id: string; name: string; status: string };
  storage: ClusterStorage;
  models: ClusterModels;
  /** The address of the Storage tab, at a folder of the bucket ("" the top). */
  storagePath: (prefix: string) => string;
}

type Started = { what: string; op: OperationDetailFragment; noop: string };

/**
 * The models in the cluster's shared bucket: downloading one from the
 * Hugging Face Hub, its operation followed where it was started with how
 * much of it is there, and the list of those there with the path pods
 * load each from. Models live in the shared bucket, so without one the tab
 * says so and leads to the Storage tab.
 */
export function ModelsTab({ cluster, storage, models, storagePath }: Props) {
  const { me } = useSession();
  const [started, setStarted] = useState<Started | null>(null);
  const [actionError, setActionError] = useState<string[] | null>(null);
  const roleDenied = deniedReason(me.role, "OPERATOR");
  const denied = roleDenied ?? downloadDenied(cluster.status);
  const shared = storage.shared;
  const notReady = bucketNotReady(shared);

  let body;
  if (storage.error && !storage.loaded) {
    body = (
      <ErrorBanner title="The shared bucket could not be read" messages={errorMessages(storage.error)}>
        <button className="button" type="button" onClick={storage.reload}>
          Try again
        </button>
      </ErrorBanner>
    );
  } else if (!storage.loaded) {
    body = <Loading what="the shared bucket" />;
  } else if (notReady || !shared?.s3) {
    body = (
      <section className="card" aria-label="No shared bucket">
        <h2>No shared bucket to download into</h2>
        <p>{notReady ?? "The shared bucket has no S3 bucket."}</p>
        <p>
          <Link to={storagePath("")} className="button button-primary">
            Open the Storage tab
          </Link>
        </p>
      </section>
    );
  } else {
    body = (
      <>
        <DownloadModelForm
          clusterId={cluster.id}
          bucket={shared.s3.name}
          denied={denied}
          onStarted={(op, modelId, folder) =>
            setStarted({ what: `Downloading ${modelId} to models/${folder}/`, op, noop: `${modelId} is in models/${folder}/ already: nothing to download.` })
          }
        />
        <ModelsTable
          models={models}
          denied={roleDenied}
          browsePath={storagePath}
          onActionError={setActionError}
          onRetried={(op, m) => {
            setActionError(null);
            setStarted({ what: `Downloading ${m.modelId ?? m.name} to models/${m.name}/ again`, op, noop: `${m.name} is there already: nothing to download.` });
          }}
        />
      </>
    );
  }

  return (
    <section aria-label="Models">
      <div className="toolbar">
        <p className="muted tab-intro">
          Models in the cluster's shared bucket, one folder each under models/, which training jobs and endpoints load at /s3/models/&lt;name&gt;.
          Kept live as their downloads copy them.
        </p>
        <div className="toolbar-end">
          <button type="button" className="button" onClick={models.reload} disabled={!models.loaded}>
            Read again
          </button>
        </div>
      </div>
      {denied && storage.loaded && !notReady && <p className="muted">{denied}</p>}
      {actionError && <ErrorBanner title="That did not work" messages={actionError} />}
      {started && (
        <OperationProgress key={started.op.id} what={started.what} operation={started.op} noopMessage={started.noop} onDismiss={() => setStarted(null)}>
          <DownloadedSoFar id={started.op.target.id} models={models} />
        </OperationProgress>
      )}
      {body}
    </section>
  );
}

/**
 * How much of the model a download started here is there: its record in
 * the list, or, for one off the page, read by its id again whenever an
 * event tells of a change to the cluster's models.
 */
function DownloadedSoFar({ id, models }: { id: string; models: ClusterModels }) {
  const listed = models.models.find((m) => m.id === id);
  const [{ data }, reexecute] = useQuery({ query: ModelQuery, variables: { id }, pause: listed !== undefined, requestPolicy: "network-only" });
  const seen = useRef(models.changes);
  useEffect(() => {
    if (models.changes === seen.current) return;
    seen.current = models.changes;
    if (!listed) reexecute({ requestPolicy: "network-only" });
  }, [models.changes, listed, reexecute]);
  const model: ModelRowFragment | undefined = listed ?? data?.model;
  if (!model) return null;
  return <ModelProgressBar model={model} />;
}
