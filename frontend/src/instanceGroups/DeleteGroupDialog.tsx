import type { OperationSummaryFragment } from "../gql/graphql";
import { DeleteDialog } from "../ui/DeleteDialog";
import { DeleteInstanceGroupMutation } from "./documents";

interface Props {
  group: { id: string; name: string; currentCount: number; instanceType: string };
  onClose: () => void;
  onStarted: (op: OperationSummaryFragment) => void;
}

/** Asks to confirm deleting a group by typing its name, then starts deleteInstanceGroup; the group's page and tab both offer it. */
export function DeleteGroupDialog({ group, onClose, onStarted }: Props) {
  return (
    <DeleteDialog
      title={`Delete ${group.name}?`}
      action="Delete group"
      mutation={DeleteInstanceGroupMutation}
      id={group.id}
      started={(result) => result.deleteInstanceGroup}
      confirmName={group.name}
      cancel="Keep it"
      onClose={onClose}
      onStarted={onStarted}
    >
      <p>
        This removes the group from the HyperPod cluster and terminates its {group.currentCount === 1 ? "instance" : `${group.currentCount} instances`} of{" "}
        <code>{group.instanceType}</code>. Pods running on them stop, and the instances' local data (their volumes) is lost. The zone's
        compute subnet stays for other groups.
      </p>
    </DeleteDialog>
  );
}
