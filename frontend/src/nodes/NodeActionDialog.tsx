import { useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { NodeRowFragment, OperationSummaryFragment } from "../gql/graphql";
import { Dialog } from "../ui/Dialog";
import { FieldErrorList } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { newIdempotencyKey } from "../ui/fieldErrors";
import { DeleteNodesMutation, RebootNodesMutation, ReplaceNodesMutation } from "./documents";
import { nodeActionWords, nodesCount, type NodeAction } from "./nodeActions";
import { deleteEffects } from "./nodeGroups";

interface Props {
  action: NodeAction;
  clusterId: string;
  nodes: NodeRowFragment[];
  groups: readonly { id: string; targetCount: number }[];
  onClose: () => void;
  onStarted: (op: OperationSummaryFragment) => void;
}

/** Says what an action will do to the chosen nodes, and starts it when confirmed. */
export function NodeActionDialog({ action, clusterId, nodes, groups, onClose, onStarted }: Props) {
  const [errors, setErrors] = useState<string[] | null>(null);
  const [reboot, rebootNodes] = useMutation(RebootNodesMutation);
  const [replace, replaceNodes] = useMutation(ReplaceNodesMutation);
  const [remove, deleteNodes] = useMutation(DeleteNodesMutation);
  const key = useRef(newIdempotencyKey());
  const words = nodeActionWords[action];
  const busy = reboot.fetching || replace.fetching || remove.fetching;
  const count = nodesCount(nodes.length);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setErrors(null);
    const vars = { clusterId, nodeIds: nodes.map((n) => n.id), idempotencyKey: key.current };
    const r =
      action === "reboot"
        ? await rebootNodes(vars).then((x) => ({ op: x.data?.rebootNodes, error: x.error }))
        : action === "replace"
          ? await replaceNodes(vars).then((x) => ({ op: x.data?.replaceNodes, error: x.error }))
          : await deleteNodes(vars).then((x) => ({ op: x.data?.deleteNodes, error: x.error }));
    if (r.op) onStarted(r.op);
    else if (r.error) setErrors(errorMessages(r.error));
  };

  return (
    <Dialog title={`${words.verb} ${count}?`} onClose={onClose} wide>
      <form onSubmit={submit}>
        {action === "reboot" && (
          <p>
            Each instance restarts. Pods running on it stop and are scheduled again; the instance keeps its id and its volumes. A reboot
            clears most soft faults: the node is RUNNING and SCHEDULABLE again when it did.
          </p>
        )}
        {action === "replace" && (
          <p>
            Each instance is terminated and a new one is launched in its place, with a new instance id. <strong>The instance's local data is
            lost</strong>: its volumes are destroyed with it. Pods running on it stop. The group keeps its count. Replace a node whose fault a
            reboot did not clear, or whose deep health check failed.
          </p>
        )}
        {action === "delete" && (
          <>
            <p>
              Each instance is terminated and not replaced, and <strong>its local data is lost</strong>. Pods running on it stop. Its group's
              target count drops by as many:
            </p>
            <ul>
              {deleteEffects(nodes, groups).map((e) => (
                <li key={e.name}>
                  {e.name}: {nodesCount(e.deleted)}
                  {e.from !== null && `, target count ${e.from} → ${e.to}`}
                </li>
              ))}
            </ul>
          </>
        )}
        <div className="table-wrap dialog-list">
          <table className="table">
            <caption className="sr-only">The nodes to {words.verb.toLowerCase()}</caption>
            <thead>
              <tr>
                <th scope="col">Instance</th>
                <th scope="col">Group</th>
                <th scope="col">Type</th>
                <th scope="col">Health</th>
              </tr>
            </thead>
            <tbody>
              {nodes.map((n) => (
                <tr key={n.id}>
                  <td>
                    <code>{n.instanceId}</code>
                  </td>
                  <td>{n.instanceGroupName}</td>
                  <td>
                    <code>{n.instanceType}</code>
                  </td>
                  <td>{n.health}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <FieldErrorList messages={errors ?? undefined} />
        <div className="form-actions">
          <button type="submit" className={action === "reboot" ? "button button-primary" : "button button-danger"} disabled={busy} autoFocus>
            {busy ? `${words.doing}…` : `${words.verb} ${count}`}
          </button>
          <button type="button" className="button button-quiet" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
