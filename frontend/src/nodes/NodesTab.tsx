import { useMemo, useState } from "react";
import { Link } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import { nodesPage, type ClusterCompute } from "../clusters/useClusterCompute";
import type { InstanceGroupRowFragment, NodeRowFragment } from "../gql/graphql";
import { capacityWords } from "../instanceGroups/words";
import { OperationStarted } from "../operations/OperationStarted";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { formatAgo, formatTime } from "../ui/time";
import { useNow } from "../ui/useNow";
import { nodeActionWords, nodesCount, type NodeAction } from "./nodeActions";
import { NodeActionDialog } from "./NodeActionDialog";
import { NodeDiagnosisDialog } from "./NodeDiagnosisDialog";
import { groupNodes, healthCounts, healthWords, keepPresent, type HealthCount, type NodeSection } from "./nodeGroups";

interface Props {
  cluster: { id: string; name: string; status: string };
  compute: ClusterCompute;
}

/**
 * The cluster's nodes by instance group, live: health at a glance, each
 * node's state, and reboot, replace and delete of the selected nodes.
 */
export function NodesTab({ cluster, compute }: Props) {
  const { me } = useSession();
  const now = useNow(true, 15_000);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [action, setAction] = useState<NodeAction | null>(null);
  const [diagnosing, setDiagnosing] = useState<string | null>(null);
  const [started, setStarted] = useState<{ what: string; id: string } | null>(null);

  const sections = useMemo(() => groupNodes(compute.groups, compute.nodes), [compute.groups, compute.nodes]);
  const overall = useMemo(() => healthCounts(compute.nodes), [compute.nodes]);
  // A replaced or deleted node leaves the list, and the selection.
  const selected = keepPresent(chosen, compute.nodes);
  const selectedNodes = compute.nodes.filter((n) => selected.has(n.id));

  const toggle = (ids: string[], on: boolean) => {
    const next = new Set(selected);
    for (const id of ids) {
      if (on) next.add(id);
      else next.delete(id);
    }
    setChosen(next);
  };

  const actDenied =
    deniedReason(me.role, "OPERATOR") ?? (cluster.status !== "ACTIVE" ? `The cluster is ${cluster.status}; its nodes can change only while it is ACTIVE.` : undefined);

  let body;
  if (compute.error && !compute.loaded) {
    body = (
      <ErrorBanner title="The nodes could not be loaded" messages={errorMessages(compute.error)}>
        <button className="button" type="button" onClick={compute.reload}>
          Try again
        </button>
      </ErrorBanner>
    );
  } else if (!compute.loaded) {
    body = <Loading what="nodes" />;
  } else if (sections.length === 0) {
    body = (
      <EmptyState title="No nodes yet">
        <p>Nodes are the instances of the cluster's instance groups. Add an instance group, and its instances show here as they launch.</p>
        <Link to={`/clusters/${encodeURIComponent(cluster.id)}/instance-groups`} className="button">
          Go to the instance groups
        </Link>
      </EmptyState>
    );
  } else {
    body = sections.map((s) => (
      <GroupSection
        key={s.id}
        section={s}
        selected={selected}
        now={now}
        onToggle={toggle}
        onDiagnose={(id) => setDiagnosing(id)}
      />
    ));
  }

  return (
    <section aria-label="Nodes">
      <div className="toolbar nodes-toolbar">
        <div>
          <p className="strong nodes-total">{nodesCount(compute.nodes.length)}</p>
          <HealthChips counts={overall} label="Health of all nodes" />
        </div>
      </div>
      {compute.nodesTruncated && <p className="muted">The cluster has more than {nodesPage} nodes: this lists the first {nodesPage}.</p>}
      {started && <OperationStarted what={started.what} operationId={started.id} onDismiss={() => setStarted(null)} />}
      {compute.nodes.length > 0 && (
        <div className="selection-bar" role="group" aria-label="Act on the selected nodes">
          <span className="muted">{selected.size === 0 ? "Select nodes to act on them" : `${nodesCount(selected.size)} selected`}</span>
          {(["reboot", "replace", "delete"] as const).map((a) => (
            <GuardedButton
              key={a}
              className={a === "reboot" ? "button" : "button button-danger"}
              deniedReason={actDenied}
              disabled={selected.size === 0}
              onClick={() => setAction(a)}
            >
              {nodeActionWords[a].verb}
            </GuardedButton>
          ))}
          {actDenied && <span className="muted">{actDenied}</span>}
          {selected.size > 0 && (
            <button type="button" className="button button-quiet" onClick={() => setChosen(new Set())}>
              Clear selection
            </button>
          )}
        </div>
      )}
      {body}
      {action && (
        <NodeActionDialog
          action={action}
          clusterId={cluster.id}
          nodes={selectedNodes}
          groups={compute.groups}
          onClose={() => setAction(null)}
          onStarted={(op) => {
            setAction(null);
            setChosen(new Set());
            setStarted({ what: `${nodeActionWords[action].doing} ${nodesCount(selectedNodes.length)}`, id: op.id });
          }}
        />
      )}
      {diagnosing && <NodeDiagnosisDialog nodeId={diagnosing} onClose={() => setDiagnosing(null)} />}
    </section>
  );
}

interface SectionProps {
  section: NodeSection<InstanceGroupRowFragment, NodeRowFragment>;
  selected: ReadonlySet<string>;
  now: number;
  onToggle: (ids: string[], on: boolean) => void;
  onDiagnose: (id: string) => void;
}

function GroupSection({ section, selected, now, onToggle, onDiagnose }: SectionProps) {
  const g = section.group;
  const ids = section.nodes.map((n) => n.id);
  const all = ids.length > 0 && ids.every((id) => selected.has(id));
  const some = ids.some((id) => selected.has(id));
  const headingId = `nodes-of-${section.id}`;
  return (
    <section className="card node-group" aria-labelledby={headingId}>
      <div className="section-head">
        <h2 id={headingId}>
          {section.name} {g && <StatusBadge status={g.status} />}
        </h2>
        {g && (
          <span className="muted">
            {g.currentCount} of {g.targetCount} instances · <code>{g.instanceType}</code>
            {g.flexible && " and others"} · {g.zone}
          </span>
        )}
      </div>
      <HealthChips counts={section.health} label={`Health of ${section.name}'s nodes`} />
      {section.nodes.length === 0 ? (
        <p className="muted">{g && g.targetCount > 0 ? "No instances yet: they show here as they launch." : "The group has no instances."}</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">Nodes of {section.name}</caption>
            <thead>
              <tr>
                <th scope="col" className="check-col">
                  <input
                    type="checkbox"
                    aria-label={`Select all nodes of ${section.name}`}
                    checked={all}
                    ref={(el) => {
                      if (el) el.indeterminate = some && !all;
                    }}
                    onChange={(e) => onToggle(ids, e.target.checked)}
                  />
                </th>
                <th scope="col">Instance</th>
                <th scope="col">Type</th>
                <th scope="col">Zone</th>
                <th scope="col">Status</th>
                <th scope="col">Health</th>
                <th scope="col">Deep health check</th>
                <th scope="col">Capacity</th>
                <th scope="col">Launched</th>
                <th scope="col">
                  <span className="sr-only">Diagnose</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {section.nodes.map((n) => (
                <tr key={n.id} className={n.status === "FAILURE" || n.deepHealthCheck === "FAILED" ? "row-failed" : undefined} data-node={n.id}>
                  <td className="check-col">
                    <input type="checkbox" aria-label={`Select ${n.instanceId}`} checked={selected.has(n.id)} onChange={(e) => onToggle([n.id], e.target.checked)} />
                  </td>
                  <td className="nowrap">
                    <code>{n.instanceId}</code>
                    {n.kubernetesNodeName && n.kubernetesNodeName !== `hyperpod-${n.instanceId}` && (
                      <div className="cell-note" title="Kubernetes node">
                        {n.kubernetesNodeName}
                      </div>
                    )}
                  </td>
                  <td>
                    <code>{n.instanceType}</code>
                  </td>
                  <td className="nowrap">{n.zone}</td>
                  <td>
                    <StatusBadge status={n.status} kind="node" />
                    {n.statusMessage && <div className="cell-note">{n.statusMessage}</div>}
                  </td>
                  <td>
                    <StatusBadge status={n.health} />
                  </td>
                  <td>
                    <StatusBadge status={n.deepHealthCheck} />
                  </td>
                  <td className="nowrap">{capacityWords[n.capacityType]}</td>
                  <td className="nowrap" title={formatTime(n.launchTime)}>
                    {formatAgo(n.launchTime, now)}
                  </td>
                  <td>
                    <button type="button" className="button" onClick={() => onDiagnose(n.id)} aria-label={`Diagnose ${n.instanceId}`}>
                      Diagnose
                    </button>
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

/** How many nodes carry each health label, in the health label's colour. */
function HealthChips({ counts, label }: { counts: HealthCount[]; label: string }) {
  if (counts.length === 0) return null;
  return (
    <ul className="health-chips" aria-label={label}>
      {counts.map((c) => (
        <li key={c.health}>
          <StatusBadge status={c.health} label={`${c.count} ${healthWords[c.health]}`} title={c.health} />
        </li>
      ))}
    </ul>
  );
}
