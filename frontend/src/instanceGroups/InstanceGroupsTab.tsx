import { useState } from "react";
import { Link } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { ClusterCompute } from "../clusters/useClusterCompute";
import type { InstanceGroupRowFragment } from "../gql/graphql";
import { OperationStarted } from "../operations/OperationStarted";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { DeleteGroupDialog } from "./DeleteGroupDialog";
import { ScaleGroupDialog } from "./ScaleGroupDialog";
import { capacityWords, groupChangeDenied, planNameOf } from "./words";

interface Props {
  cluster: { id: string; name: string; status: string; region: string };
  compute: ClusterCompute;
}

type Open = { dialog: "scale" | "delete"; group: InstanceGroupRowFragment } | null;

/** The cluster's instance groups, live, with add, scale, edit and delete. */
export function InstanceGroupsTab({ cluster, compute }: Props) {
  const { me } = useSession();
  const [open, setOpen] = useState<Open>(null);
  const [started, setStarted] = useState<{ what: string; id: string } | null>(null);
  const roleDenied = deniedReason(me.role, "OPERATOR");
  const addDenied = roleDenied ?? (cluster.status !== "ACTIVE" ? `The cluster is ${cluster.status}; groups can be added once it is ACTIVE.` : undefined);
  const addPath = `/clusters/${encodeURIComponent(cluster.id)}/instance-groups/new`;
  const groupPath = (g: InstanceGroupRowFragment) => `/clusters/${encodeURIComponent(cluster.id)}/instance-groups/${encodeURIComponent(g.id)}`;

  const addButton = addDenied ? (
    <GuardedButton className="button button-primary" deniedReason={addDenied}>
      Add instance group
    </GuardedButton>
  ) : (
    <Link to={addPath} className="button button-primary">
      Add instance group
    </Link>
  );

  let body;
  if (compute.error && !compute.loaded) {
    body = (
      <ErrorBanner title="The instance groups could not be loaded" messages={errorMessages(compute.error)}>
        <button className="button" type="button" onClick={compute.reload}>
          Try again
        </button>
      </ErrorBanner>
    );
  } else if (!compute.loaded) {
    body = <Loading what="instance groups" />;
  } else if (compute.groups.length === 0) {
    body = (
      <EmptyState title="No instance groups yet">
        <p>
          An instance group is a set of instances of one type (or a prioritised list of types) in one of the cluster's zones. Choose the zone,
          the instance type, how many and how they are bought; InstantStart finds or makes the zone's compute subnet and adds the group.
        </p>
        {addButton}
      </EmptyState>
    );
  } else {
    body = (
      <div className="table-wrap">
        <table className="table">
          <caption className="sr-only">Instance groups of {cluster.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Instance type</th>
              <th scope="col">Zone</th>
              <th scope="col">Capacity</th>
              <th scope="col" className="num">
                Current / target
              </th>
              <th scope="col">Status</th>
              <th scope="col">Status message</th>
              <th scope="col">Last operation</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {compute.groups.map((g) => {
              const denied = roleDenied ?? groupChangeDenied(cluster, g);
              return (
                <tr key={g.id} className={g.status === "FAILED" ? "row-failed" : undefined}>
                  <td className="nowrap">
                    <Link to={groupPath(g)} className="strong">
                      {g.name}
                    </Link>
                    {!g.managed && (
                      <span className="tag" title="Found in HyperPod; not added by InstantStart">
                        found
                      </span>
                    )}
                  </td>
                  <td>
                    {g.flexible ? (
                      <ol className="type-list" aria-label="Instance types in priority order">
                        {g.instanceTypes.map((t) => (
                          <li key={t}>
                            <code>{t}</code>
                          </li>
                        ))}
                      </ol>
                    ) : (
                      <code>{g.instanceType}</code>
                    )}
                  </td>
                  <td className="nowrap">{g.zone}</td>
                  <td className="nowrap">
                    {capacityWords[g.capacityType]}
                    {g.trainingPlanArn && <div className="cell-note">{planNameOf(g.trainingPlanArn)}</div>}
                  </td>
                  <td className="num">
                    {g.currentCount} / {g.targetCount}
                    {g.minCount !== null && g.minCount !== g.targetCount && <div className="cell-note">min {g.minCount}</div>}
                  </td>
                  <td>
                    <StatusBadge status={g.status} />
                  </td>
                  <td className="cell-message">{g.statusMessage ?? <span className="muted">—</span>}</td>
                  <td>
                    {g.lastOperation ? (
                      <>
                        <Link to={`/operations/${encodeURIComponent(g.lastOperation.id)}`}>{g.lastOperation.kind}</Link>
                        <div>
                          <StatusBadge status={g.lastOperation.status} />
                        </div>
                      </>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td>
                    <div className="row-actions">
                      <Link to={groupPath(g)} className="button">
                        {denied ? "View" : "Edit"}
                      </Link>
                      <GuardedButton className="button" deniedReason={denied} onClick={() => setOpen({ dialog: "scale", group: g })} aria-label={`Scale ${g.name}`}>
                        Scale
                      </GuardedButton>
                      <GuardedButton
                        className="button button-danger"
                        deniedReason={denied}
                        onClick={() => setOpen({ dialog: "delete", group: g })}
                        aria-label={`Delete ${g.name}`}
                      >
                        Delete
                      </GuardedButton>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    );
  }

  return (
    <section aria-label="Instance groups">
      <div className="toolbar">
        <p className="muted tab-intro">
          Groups as last read from HyperPod, with those being added. Counts and states change here as instances launch, scale or fail.
        </p>
        {compute.groups.length > 0 && <div className="toolbar-end">{addButton}</div>}
      </div>
      {started && <OperationStarted what={started.what} operationId={started.id} onDismiss={() => setStarted(null)} />}
      {body}
      {open?.dialog === "scale" && (
        <ScaleGroupDialog
          group={open.group}
          region={cluster.region}
          onClose={() => setOpen(null)}
          onStarted={(op, count) => {
            setOpen(null);
            setStarted({ what: `Scaling ${open.group.name} to ${count}`, id: op.id });
          }}
        />
      )}
      {open?.dialog === "delete" && (
        <DeleteGroupDialog
          group={open.group}
          onClose={() => setOpen(null)}
          onStarted={(op) => {
            setOpen(null);
            setStarted({ what: `Deleting ${open.group.name}`, id: op.id });
          }}
        />
      )}
    </section>
  );
}
