import { useState } from "react";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { ClusterDetailFragment, InstanceGroupRowFragment } from "../gql/graphql";
import { OperationStarted } from "../operations/OperationStarted";
import { Loading } from "../ui/feedback";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { imageStatusWords, softwareUpdateDenied, updatableGroups, updateStatusWords, versionText } from "./softwareUpdate";
import { UpdateSoftwareDialog } from "./UpdateSoftwareDialog";

/**
 * The HyperPod image each group runs, whether a newer one is available,
 * its last software update, and the rolling update that patches them.
 */
export function SoftwareCard({ cluster, groups }: { cluster: ClusterDetailFragment; groups: InstanceGroupRowFragment[] | null }) {
  const { me } = useSession();
  const [open, setOpen] = useState(false);
  const [started, setStarted] = useState<{ what: string; id: string } | null>(null);
  const live = groups ? updatableGroups(groups) : [];
  const denied = deniedReason(me.role, "OPERATOR") ?? (groups ? softwareUpdateDenied(cluster, groups) : "Loading the instance groups…");
  return (
    <section className="card" aria-label="Software">
      <div className="section-head">
        <h2>Software</h2>
        <GuardedButton className="button" deniedReason={denied} onClick={() => setOpen(true)}>
          Update software
        </GuardedButton>
      </div>
      {started && <OperationStarted what={started.what} operationId={started.id} onDismiss={() => setStarted(null)} />}
      {groups === null ? (
        <Loading what="the instance groups" />
      ) : live.length === 0 ? (
        <p className="muted">No instance groups yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">The HyperPod image of each instance group</caption>
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col">Image release</th>
                <th scope="col">Newer image</th>
                <th scope="col">Last update</th>
              </tr>
            </thead>
            <tbody>
              {live.map((g) => (
                <tr key={g.id} data-group={g.name}>
                  <td>{g.name}</td>
                  <td>
                    <code>{versionText(g)}</code>
                  </td>
                  <td>
                    <StatusBadge status={g.software.imageVersionStatus} label={imageStatusWords[g.software.imageVersionStatus]} />
                  </td>
                  <td>
                    {g.software.updateStatus ? (
                      <StatusBadge status={g.software.updateStatus} label={updateStatusWords[g.software.updateStatus]} />
                    ) : (
                      <span className="muted">none yet</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open && groups && (
        <UpdateSoftwareDialog
          clusterId={cluster.id}
          groups={groups}
          onClose={() => setOpen(false)}
          onStarted={(op, names) => {
            setOpen(false);
            setStarted({ what: `Updating the software of ${names.join(", ")}`, id: op.id });
          }}
        />
      )}
    </section>
  );
}

