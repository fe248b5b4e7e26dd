import { Link } from "../app/router";
import type { StorageRowFragment } from "../gql/graphql";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { formatTime } from "../ui/time";
import { Copyable, Item } from "./MetaItems";
import { deploymentTypeWords, fileSystemStatusWords } from "./storageWords";

interface Props {
  storage: StorageRowFragment;
  /** Why it cannot be removed now. */
  removeDenied: string | undefined;
  onRemove: () => void;
}

/**
 * One FSx for Lustre file system of the cluster: what FSx made (its id,
 * DNS and mount names, lifecycle), where it is (zone, subnet, security
 * group), the bucket linked to it, and the claim pods mount it through.
 */
export function FileSystemCard({ storage: s, removeDenied, onRemove }: Props) {
  const f = s.fsx;
  const name = f?.name ?? s.claimName;
  const pvc = `kubectl get pvc -n ${s.namespace} ${s.claimName}`;
  return (
    <section className="card" aria-label={`File system ${name}`} data-file-system={name}>
      <div className="section-head">
        <h2>
          {name} <StatusBadge status={s.status} />
        </h2>
        <GuardedButton className="button button-danger" deniedReason={removeDenied} onClick={onRemove} aria-label={`Remove file system ${name}`}>
          Remove
        </GuardedButton>
      </div>
      <p className={s.status === "FAILED" ? "phase-error" : "muted"}>{s.statusMessage ?? fileSystemStatusWords[s.status]}</p>
      <dl className="meta">
        <Item label="Deployment type">{f ? (deploymentTypeWords[f.deploymentType] ?? f.deploymentType) : "—"}</Item>
        <Item label="Capacity">{f ? `${f.storageCapacityGiB.toLocaleString("en-US")} GiB` : "—"}</Item>
        <Item label="Throughput">{f?.throughputPerTiB != null ? `${f.throughputPerTiB} MB/s per TiB` : "Follows the capacity (scratch)"}</Item>
        <Item label="Zone and subnet">
          {f ? (
            <>
              {f.zone} <code>{f.subnetId}</code>
            </>
          ) : (
            "—"
          )}
        </Item>
        <Item label="Security group">{f?.securityGroupId ? <Copyable text={f.securityGroupId} /> : "—"}</Item>
        <Item label="File system id">{f?.fileSystemId ? <Copyable text={f.fileSystemId} /> : <span className="muted">Not made yet</span>}</Item>
        <Item label="DNS name" wide>
          {f?.dnsName ? <Copyable text={f.dnsName} /> : "—"}
        </Item>
        <Item label="Mount name">{f?.mountName ? <code>{f.mountName}</code> : "—"}</Item>
        <Item label="Lifecycle">{f?.lifecycle ? <StatusBadge status={f.lifecycle} /> : "—"}</Item>
        <Item label="Linked bucket" wide>
          {f?.dataRepositoryPath ? (
            <>
              <code>{f.dataRepositoryPath}</code> at <code>/s3</code> in the file system
              {f.dataRepositoryAssociationId && (
                <>
                  {" "}
                  (association <code>{f.dataRepositoryAssociationId}</code>)
                </>
              )}
            </>
          ) : (
            "Not linked"
          )}
        </Item>
        <Item label="Claim (PersistentVolumeClaim)" wide>
          <code>{s.claimName}</code> in namespace <code>{s.namespace}</code>
          <Copyable text={pvc} />
        </Item>
        <Item label="Mount path in pods">
          <code>{s.mountPath}</code>
        </Item>
        <Item label="Last operation">
          {s.lastOperationId ? <Link to={`/operations/${encodeURIComponent(s.lastOperationId)}`}>Open the operation</Link> : "—"}
        </Item>
        <Item label="Added">{formatTime(s.createdAt)}</Item>
      </dl>
    </section>
  );
}
