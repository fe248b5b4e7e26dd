import { useRef, useState } from "react";
import { useMutation } from "urql";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { ClusterDetailFragment } from "../gql/graphql";
import { OperationStarted } from "../operations/OperationStarted";
import { FieldErrorList } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { newIdempotencyKey } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { RepairClusterDependenciesMutation } from "./documents";

/**
 * HyperPod's cluster dependencies (the health-monitoring agent and the
 * device plugins) as last read, and the repair that reinstalls those that
 * are missing or broken.
 */
export function DependenciesCard({ cluster }: { cluster: ClusterDetailFragment }) {
  const { me } = useSession();
  const [started, setStarted] = useState<string | null>(null);
  const [errors, setErrors] = useState<string[] | null>(null);
  const [{ fetching }, repair] = useMutation(RepairClusterDependenciesMutation);
  const key = useRef(newIdempotencyKey());
  const broken = cluster.dependencies.filter((d) => d.status === "MISSING" || d.status === "FAILED" || d.status === "OUTDATED");
  const denied =
    deniedReason(me.role, "OPERATOR") ??
    (cluster.status !== "ACTIVE"
      ? `The cluster is ${cluster.status}; a retry of its operation installs the dependencies.`
      : broken.length === 0
        ? "Every dependency is installed."
        : undefined);
  const start = async () => {
    setErrors(null);
    const r = await repair({ clusterId: cluster.id, idempotencyKey: key.current });
    if (r.data) {
      setStarted(r.data.repairClusterDependencies.id);
      key.current = newIdempotencyKey();
    } else if (r.error) setErrors(errorMessages(r.error));
  };
  return (
    <section className="card" aria-label="Cluster dependencies">
      <div className="section-head">
        <h2>Cluster dependencies</h2>
        <GuardedButton className="button" deniedReason={fetching ? "Starting…" : denied} onClick={start}>
          Repair dependencies
        </GuardedButton>
      </div>
      {started && <OperationStarted what="Repairing the cluster's dependencies" operationId={started} onDismiss={() => setStarted(null)} />}
      <FieldErrorList messages={errors ?? undefined} />
      {cluster.dependencies.length === 0 ? (
        <p className="muted">Not read yet: they are read once the cluster is created or imported.</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">HyperPod's cluster dependencies</caption>
            <thead>
              <tr>
                <th scope="col">Dependency</th>
                <th scope="col">Installed as</th>
                <th scope="col">Version</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {cluster.dependencies.map((d) => (
                <tr key={d.name} data-dependency={d.name} className={d.status === "FAILED" || d.status === "MISSING" ? "row-failed" : undefined}>
                  <td>
                    <code>{d.name}</code>
                  </td>
                  <td>{d.kind === "HELM" ? "Helm chart" : "EKS add-on"}</td>
                  <td>{d.version ? <code>{d.version}</code> : <span className="muted">—</span>}</td>
                  <td>
                    <StatusBadge status={d.status} />
                    {d.message && <div className="cell-note">{d.message}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

