import { useId, useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { OperationSummaryFragment } from "../gql/graphql";
import { Dialog } from "../ui/Dialog";
import { FieldErrorList } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { newIdempotencyKey } from "../ui/fieldErrors";
import { DeleteInstanceGroupMutation } from "./documents";

interface Props {
  group: { id: string; name: string; currentCount: number; instanceType: string };
  onClose: () => void;
  onStarted: (op: OperationSummaryFragment) => void;
}

/** Asks to confirm deleting a group by typing its name, then starts deleteInstanceGroup. */
export function DeleteGroupDialog({ group, onClose, onStarted }: Props) {
  const [typed, setTyped] = useState("");
  const [errors, setErrors] = useState<string[] | null>(null);
  const [{ fetching }, remove] = useMutation(DeleteInstanceGroupMutation);
  const key = useRef(newIdempotencyKey());
  const inputId = useId();
  const confirmed = typed.trim() === group.name;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!confirmed) return;
    setErrors(null);
    const r = await remove({ id: group.id, idempotencyKey: key.current });
    if (r.data) onStarted(r.data.deleteInstanceGroup);
    else if (r.error) setErrors(errorMessages(r.error));
  };

  return (
    <Dialog title={`Delete ${group.name}?`} onClose={onClose}>
      <form onSubmit={submit}>
        <p>
          This removes the group from the HyperPod cluster and terminates its {group.currentCount === 1 ? "instance" : `${group.currentCount} instances`} of{" "}
          <code>{group.instanceType}</code>. Pods running on them stop, and the instances' local data (their volumes) is lost. The zone's
          compute subnet stays for other groups.
        </p>
        <div className="field">
          <label htmlFor={inputId}>
            Type <strong>{group.name}</strong> to confirm
          </label>
          <input id={inputId} type="text" autoComplete="off" spellCheck={false} autoFocus value={typed} onChange={(e) => setTyped(e.target.value)} />
        </div>
        <FieldErrorList messages={errors ?? undefined} />
        <div className="form-actions">
          <button type="submit" className="button button-danger" disabled={fetching || !confirmed}>
            {fetching ? "Deleting…" : "Delete group"}
          </button>
          <button type="button" className="button button-quiet" onClick={onClose}>
            Keep it
          </button>
        </div>
      </form>
    </Dialog>
  );
}
