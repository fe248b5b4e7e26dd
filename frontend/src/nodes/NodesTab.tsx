import { useMemo, useState } from "react";
import { Link } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { ClusterCompute } from "../clusters/useClusterCompute";
import type { InstanceGroupRowFragment, NodeRowFragment } from "../gql/graphql";
import { imageStatusWords } from "../clusters/softwareUpdate";
import { capacityWords } from "../instanceGroups/words";
import { OperationStarted } from "../operations/OperationStarted";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { formatAgo, formatTime } from "../ui/time";
import { useNow } from "../ui/useNow";
import { maxNodesPerAction, nodeActionWords, nodesCount, type NodeAction } from "./nodeActions";
import { NodeActionDialog } from "./NodeActionDialog";
import { NodeDiagnosisDialog } from "./NodeDiagnosisDialog";
import { groupNodes, healthCounts, healthWords, keepPresent, type HealthCount, type NodeSection } from "./nodeGroups";
import { listedOf, pagingNote } from "./nodePaging";
import { useClusterNodes, type ClusterNodes } from "./useClusterNodes";

interface Props {
  cluster: { id: string; name: string; status: string };
  compute: ClusterCompute;
}

/**
 * The cluster's nodes by instance group, live: health at a glance, each
 * node's state, and reboot, replace and delete of the selected nodes. It
 * reads every node, page by page; until its first page arrives it shows
 * the first page the cluster page holds.
 */
export function NodesTab({ cluster, compute }: Props) {
  const { me } = useSession();
  const all = useClusterNodes(cluster.id, compute.liveNodes);
  const nodes = all.nodes ?? compute.nodes;
  const loaded = all.nodes !== null || compute.loaded;
  const now = useNow(true, 15_000);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [action, setAction] = useState<NodeAction | null>(null);
  const [diagnosing, setDiagnosing] = useState<string | null>(null);
  const [started, setStarted] = useState<{ what: string; id: string } | null>(null);

  const sections = useMemo(() => groupNodes(compute.groups, nodes), [compute.groups, nodes]);
  const overall = useMemo(() => healthCounts(nodes), [nodes]);
  // A replaced or deleted node leaves the list, and the selection.
  const selected = keepPresent(chosen, nodes);
  const selectedNodes = nodes.filter((n) => selected.has(n.id));

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
  const tooMany = selected.size > maxNodesPerAction ? `Select at most ${maxNodesPerAction} nodes: an action takes that many at a time.` : undefined;

  const loadError = all.error ?? compute.error;
  let body;
  if (loadError && !loaded) {
    body = (
      <ErrorBanner title="The nodes could not be loaded" messages={errorMessages(loadError)}>
        <button
          className="button"
          type="button"
          onClick={() => {
            all.retry();
            compute.reload();
          }}
        >
          Try again
        </button>
      </ErrorBanner>
    );
  } else if (!loaded) {
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
          <p className="strong nodes-total">{nodesCount(nodes.length)}</p>
          <HealthChips counts={overall} label="Health of all nodes" />
        </div>
      </div>
      {loaded && <PagingStatus all={all} listed={nodes.length} />}
      {started && <OperationStarted what={started.what} operationId={started.id} onDismiss={() => setStarted(null)} />}
      {nodes.length > 0 && (
        <div className="selection-bar" role="group" aria-label="Act on the selected nodes">
          <span className="muted">{selected.size === 0 ? "Select nodes to act on them" : `${nodesCount(selected.size)} selected`}</span>
          {(["reboot", "replace", "delete"] as const).map((a) => (
            <GuardedButton
              key={a}
              className={a === "reboot" ? "button" : "button button-danger"}
              deniedReason={actDenied ?? tooMany}
              disabled={selected.size === 0}
              onClick={() => setAction(a)}
            >
              {nodeActionWords[a].verb}
            </GuardedButton>
          ))}
          {(actDenied ?? tooMany) && <span className="muted">{actDenied ?? tooMany}</span>}
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

/** How far reading the pages got, when not every node is listed yet; and why live updates stopped. */
function PagingStatus({ all, listed }: { all: ClusterNodes; listed: number }) {
  const note = pagingNote(all.paging, listed);
  return (
    <>
      {all.error ? (
        <ErrorBanner title="Not every node could be loaded" messages={errorMessages(all.error)}>
          <p>
            This lists {listedOf(listed, all.paging.totalCount)}, and the health counts cover only those.{" "}
            <button className="button" type="button" onClick={all.retry}>
              Try again
            </button>
          </p>
        </ErrorBanner>
      ) : note?.loading ? (
        <div className="loading" role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" />
          {note.text}
        </div>
      ) : (
        note && <p className="muted">{note.text}</p>
      )}
    </>
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
                <th scope="col">Image</th>
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
                  <td className="nowrap" title={imageStatusWords[n.imageVersionStatus]}>
                    {n.imageVersion ? <code>{n.imageVersion}</code> : <span className="muted">—</span>}
                    {n.imageVersionStatus !== "UP_TO_DATE" && n.imageVersionStatus !== "UNKNOWN" && (
                      <div className="cell-note">{imageStatusWords[n.imageVersionStatus]}</div>
                    )}
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
