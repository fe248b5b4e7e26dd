import { useState } from "react";
import { useQuery } from "urql";
import { queryParam, useLocationPath } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { OperationDetailFragment, StorageRowFragment } from "../gql/graphql";
import { OperationQuery } from "../operations/documents";
import { OperationProgress } from "../operations/OperationProgress";
import { ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { GuardedButton } from "../ui/GuardedButton";
import { AddFileSystemForm } from "./AddFileSystemForm";
import { AddStorageForm } from "./AddStorageForm";
import { blankAddStorageDraft, retryDraft } from "./addStorageForm";
import { BucketBrowser } from "./BucketBrowser";
import { prefixOf } from "./bucketPaths";
import { FileSystemCard } from "./FileSystemCard";
import { fileSystemAddDenied, fileSystemRemoveDenied } from "./fileSystems";
import { RemoveFileSystemDialog } from "./RemoveFileSystemDialog";
import { RemoveStorageDialog } from "./RemoveStorageDialog";
import { SharedBucketCard } from "./SharedBucketCard";
import { UploadCard } from "./UploadCard";
import { browsable, storageBusy, storageChangeDenied } from "./sharedBucket";
import type { ClusterStorage } from "./useClusterStorage";

interface Props {
  cluster: { id: string; name: string; status: string; region: string };
  /** The zones of the cluster's compute subnets, where a file system can go. */
  computeZones: readonly string[];
  storage: ClusterStorage;
  /** The address of the tab listing a folder of the bucket. */
  pathOf: (prefix: string) => string;
}

type Started = { what: string; op: OperationDetailFragment; noop: string };

/**
 * The cluster's storage: its shared S3 bucket (what it is and how pods
 * mount it, adding and removing it, and a browser of its folders and
 * objects) and its FSx for Lustre file systems (each one's card, adding
 * and removing them), every operation followed where it was started. The
 * folder browsed is in the address (?prefix=models/), so Back goes up
 * again.
 */
export function StorageTab({ cluster, computeZones, storage, pathOf }: Props) {
  const { me } = useSession();
  const prefix = prefixOf(queryParam(useLocationPath(), "prefix"));
  const [removing, setRemoving] = useState(false);
  const [addingFileSystem, setAddingFileSystem] = useState(false);
  const [removingFileSystem, setRemovingFileSystem] = useState<StorageRowFragment | null>(null);
  const [started, setStarted] = useState<Started | null>(null);
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(new Set());
  // Counts the files uploaded, so that the bucket browser reads S3 again.
  const [uploaded, setUploaded] = useState(0);
  const shared = storage.shared;
  const roleDenied = deniedReason(me.role, "OPERATOR");
  const denied = roleDenied ?? storageChangeDenied(cluster.status, shared);
  const fileSystemDenied = roleDenied ?? fileSystemAddDenied(cluster.status);

  // Operations under way that this page did not start (another browser,
  // an agent, a reload) are followed too.
  const followed = [shared, ...storage.fileSystems].flatMap((s) =>
    s && storageBusy(s.status) && s.lastOperationId && s.lastOperationId !== started?.op.id && !dismissed.has(s.lastOperationId)
      ? [{ id: s.lastOperationId, what: followedWords(s) }]
      : [],
  );

  const start = (s: Started) => {
    setStarted(s);
    storage.reload();
  };

  let body;
  if (storage.error && !storage.loaded) {
    body = (
      <ErrorBanner title="The storage could not be read" messages={errorMessages(storage.error)}>
        <button className="button" type="button" onClick={storage.reload}>
          Try again
        </button>
      </ErrorBanner>
    );
  } else if (!storage.loaded) {
    body = <Loading what="storage" />;
  } else if (!shared) {
    body = (
      <AddStorageForm
        cluster={cluster}
        initial={blankAddStorageDraft()}
        denied={denied}
        title="Add shared bucket"
        onStarted={(op, bucket) => start({ what: `Adding the shared bucket ${bucket}`, op, noop: `${bucket} is the shared bucket already: nothing to change.` })}
      />
    );
  } else {
    body = (
      <>
        <SharedBucketCard storage={shared} removeDenied={denied} onRemove={() => setRemoving(true)} />
        {shared.status === "FAILED" && shared.s3 && (
          <AddStorageForm
            key={shared.id}
            cluster={cluster}
            initial={retryDraft(shared.s3)}
            denied={denied}
            title="Add the shared bucket again"
            onStarted={(op, bucket) => start({ what: `Adding the shared bucket ${bucket}`, op, noop: `${bucket} is the shared bucket already: nothing to change.` })}
          />
        )}
        {browsable(shared.status) && shared.s3 && (
          <UploadCard
            clusterId={cluster.id}
            denied={roleDenied ?? (shared.status === "AVAILABLE" ? undefined : "The bucket takes uploads once it is AVAILABLE.")}
            onUploaded={() => setUploaded((n) => n + 1)}
          />
        )}
        {browsable(shared.status) && shared.s3 && (
          <BucketBrowser
            clusterId={cluster.id}
            bucket={shared.s3.name}
            mountPath={shared.mountPath}
            prefix={prefix}
            pathOf={pathOf}
            refresh={uploaded}
          />
        )}
      </>
    );
  }

  return (
    <section aria-label="Storage">
      <div className="toolbar">
        <p className="muted tab-intro">
          The cluster's shared S3 bucket, mounted by pods at /s3 through a PersistentVolumeClaim: data sets, models, checkpoints and outputs
          in one place that outlives every node. Next to it, FSx for Lustre file systems at /fsx/&lt;name&gt; for fast shared scratch and
          checkpoint space. Kept live as their operations change them.
        </p>
        <div className="toolbar-end">
          <button type="button" className="button" onClick={storage.reload} disabled={!storage.loaded}>
            Read again
          </button>
        </div>
      </div>
      {denied && storage.loaded && <p className="muted">{denied}</p>}
      {storage.error && storage.loaded && <ErrorBanner title="The storage could not be read again: this is the last reading" messages={errorMessages(storage.error)} />}
      {started && <OperationProgress key={started.op.id} what={started.what} operation={started.op} noopMessage={started.noop} onDismiss={() => setStarted(null)} />}
      {followed.map((f) => (
        <FollowedOperation key={f.id} id={f.id} what={f.what} onDismiss={() => setDismissed((d) => new Set(d).add(f.id))} />
      ))}
      {body}
      {storage.loaded && (
        <>
          <section className="card" aria-label="FSx for Lustre">
            <div className="section-head">
              <h2>FSx for Lustre</h2>
              {!addingFileSystem && (
                <GuardedButton className="button" deniedReason={fileSystemDenied} onClick={() => setAddingFileSystem(true)}>
                  Add FSx for Lustre
                </GuardedButton>
              )}
            </div>
            <p className="muted">
              {storage.fileSystems.length === 0 ? "No file systems. " : ""}A file system lives in one zone of the cluster's compute subnets; pods
              mount it through its claim fsx-&lt;name&gt; at /fsx/&lt;name&gt;. A PERSISTENT_2 one can link the shared bucket, whose objects
              then appear in it.
            </p>
          </section>
          {addingFileSystem && (
            <AddFileSystemForm
              clusterId={cluster.id}
              zones={computeZones}
              bucketStatus={shared?.status ?? null}
              bucket={shared?.s3?.name ?? null}
              denied={fileSystemDenied}
              onCancel={() => setAddingFileSystem(false)}
              onStarted={(op, name) => {
                setAddingFileSystem(false);
                start({ what: `Adding the file system ${name}`, op, noop: `The file system ${name} is there already: nothing to change.` });
              }}
            />
          )}
          {storage.fileSystems.map((fs) => (
            <FileSystemCard
              key={fs.id}
              storage={fs}
              removeDenied={roleDenied ?? fileSystemRemoveDenied(cluster.status, fs)}
              onRemove={() => setRemovingFileSystem(fs)}
            />
          ))}
        </>
      )}
      {removing && shared && (
        <RemoveStorageDialog
          storage={shared}
          onClose={() => setRemoving(false)}
          onStarted={(op, deleteBucket) => {
            setRemoving(false);
            const bucket = shared.s3?.name ?? "";
            start({
              what: deleteBucket ? `Removing the shared bucket ${bucket} and deleting it` : `Removing the shared bucket ${bucket}, keeping the bucket`,
              op,
              noop: "The shared bucket is removed already: nothing to change.",
            });
          }}
        />
      )}
      {removingFileSystem && (
        <RemoveFileSystemDialog
          storage={removingFileSystem}
          onClose={() => setRemovingFileSystem(null)}
          onStarted={(op) => {
            const name = removingFileSystem.fsx?.name ?? "";
            setRemovingFileSystem(null);
            start({ what: `Removing the file system ${name}`, op, noop: `The file system ${name} is removed already: nothing to change.` });
          }}
        />
      )}
    </section>
  );
}

/** What an operation under way on a storage does, as its progress's heading. */
function followedWords(s: StorageRowFragment): string {
  const doing = s.status === "DELETING" ? "Removing" : "Adding";
  return s.kind === "FSX_LUSTRE" ? `${doing} the file system ${s.fsx?.name ?? ""}` : `${doing} the shared bucket`;
}

/** The progress of an operation on a storage, read by its id first. */
function FollowedOperation({ id, what, onDismiss }: { id: string; what: string; onDismiss: () => void }) {
  const [{ data }] = useQuery({ query: OperationQuery, variables: { id } });
  if (!data) return null;
  return <OperationProgress what={what} operation={data.operation} noopMessage="Nothing to change." onDismiss={onDismiss} />;
}
