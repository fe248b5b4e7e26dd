import { Link } from "../app/router";
import type { StorageRowFragment } from "../gql/graphql";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { formatTime } from "../ui/time";
import { Copyable, Item } from "./MetaItems";
import { podPath } from "./bucketPaths";
import { bucketLayout, storageStatusWords } from "./storageWords";

interface Props {
  storage: StorageRowFragment;
  /** Why it cannot be removed now. */
  removeDenied: string | undefined;
  onRemove: () => void;
}

/**
 * The cluster's shared bucket: the bucket itself, the Kubernetes objects
 * pods mount it through (with the kubectl commands that show them), and the
 * fixed layout jobs and endpoints agree on.
 */
export function SharedBucketCard({ storage: s, removeDenied, onRemove }: Props) {
  const b = s.s3;
  const pvc = `kubectl get pvc -n ${s.namespace} ${s.claimName}`;
  const pv = `kubectl get pv ${s.volumeName}`;
  return (
    <section className="card" aria-label="Shared bucket">
      <div className="section-head">
        <h2>
          Shared bucket <StatusBadge status={s.status} />
        </h2>
        <GuardedButton className="button button-danger" deniedReason={removeDenied} onClick={onRemove}>
          Remove
        </GuardedButton>
      </div>
      <p className={s.status === "FAILED" ? "phase-error" : "muted"}>
        {s.statusMessage ?? storageStatusWords[s.status]}
      </p>
      <dl className="meta">
        <Item label="Bucket">{b ? <Copyable text={b.name} /> : "—"}</Item>
        <Item label="Region">{b?.region ?? "—"}</Item>
        <Item label="ARN">{b ? <Copyable text={b.arn} /> : "—"}</Item>
        <Item label="Created by InstantStart">{b ? (b.createdByInstantStart ? "Yes: addStorage made it" : "No: the account's bucket, used as it was") : "—"}</Item>
        <Item label="Claim (PersistentVolumeClaim)" wide>
          <code>{s.claimName}</code> in namespace <code>{s.namespace}</code>
          <Copyable text={pvc} />
        </Item>
        <Item label="Volume (PersistentVolume)" wide>
          <code className="wrap">{s.volumeName}</code>
          <Copyable text={pv} />
        </Item>
        <Item label="Mount path in pods">
          <code>{s.mountPath}</code>
        </Item>
        <Item label="Last operation">
          {s.lastOperationId ? <Link to={`/operations/${encodeURIComponent(s.lastOperationId)}`}>Open the operation</Link> : "—"}
        </Item>
        <Item label="Added">{formatTime(s.createdAt)}</Item>
      </dl>
      <h3>Layout</h3>
      <p className="muted">Jobs and endpoints read and write these folders; pods see them under {s.mountPath}.</p>
      <table className="table bucket-layout">
        <caption className="sr-only">The layout of the shared bucket</caption>
        <thead>
          <tr>
            <th scope="col">Folder</th>
            <th scope="col">Pods see it at</th>
            <th scope="col">Holds</th>
          </tr>
        </thead>
        <tbody>
          {bucketLayout.map((l) => (
            <tr key={l.folder}>
              <td>
                <code>{l.folder}</code>
              </td>
              <td>
                <code>{podPath(s.mountPath, l.folder)}</code>
              </td>
              <td>{l.holds}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
