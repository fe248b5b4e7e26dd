import { useId, useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { InstanceGroupRowFragment, OperationSummaryFragment } from "../gql/graphql";
import { Dialog } from "../ui/Dialog";
import { FieldErrorList } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { newIdempotencyKey, parseWhole } from "../ui/fieldErrors";
import { ScaleInstanceGroupMutation } from "./documents";
import { countProblem } from "./editGroupForm";
import { QuotaHint } from "./QuotaHint";

interface Props {
  group: InstanceGroupRowFragment;
  /** The cluster's region, where the quota applies. */
  region: string;
  onClose: () => void;
  onStarted: (op: OperationSummaryFragment, count: number) => void;
}

/** Sets a group's target count (scaleInstanceGroup). */
export function ScaleGroupDialog({ group, region, onClose, onStarted }: Props) {
  const [count, setCount] = useState(String(group.targetCount));
  const [errors, setErrors] = useState<string[] | null>(null);
  const [{ fetching }, scale] = useMutation(ScaleInstanceGroupMutation);
  const key = useRef<{ count: string; key: string } | null>(null);
  const id = useId();

  const n = parseWhole(count);
  const problem = countProblem(count);
  const unchanged = n === group.targetCount;
  const min = group.minCount ?? 0;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (problem) {
      setErrors([problem]);
      return;
    }
    if (n === null || unchanged) return;
    if (key.current?.count !== count) key.current = { count, key: newIdempotencyKey() };
    setErrors(null);
    const r = await scale({ id: group.id, count: n, idempotencyKey: key.current.key });
    if (r.data) onStarted(r.data.scaleInstanceGroup, n);
    else if (r.error) setErrors(errorMessages(r.error));
  };

  return (
    <Dialog title={`Scale ${group.name}`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <p>
          The group has {group.currentCount} of {group.targetCount} instances of <code>{group.instanceType}</code> in {group.zone}. Growing it
          launches instances; shrinking it terminates some, and their local data is lost.
        </p>
        <div className="field">
          <label htmlFor={`${id}-count`}>Target count</label>
          <input
            id={`${id}-count`}
            type="number"
            inputMode="numeric"
            min={0}
            max={1000}
            step={1}
            autoFocus
            value={count}
            aria-invalid={errors ? true : undefined}
            aria-describedby={`${id}-hint`}
            onChange={(e) => {
              setCount(e.target.value);
              setErrors(null);
            }}
          />
          <p id={`${id}-hint`} className="hint">
            0 to 1000.{n !== null && n < min && ` The minimum count (${min}) drops to ${n} with it.`}
          </p>
          {n !== null && !problem && n > group.targetCount && group.capacityType !== "TRAINING_PLAN" && (
            <QuotaHint region={region} instanceType={group.instanceType} adding={n - group.targetCount} />
          )}
          <FieldErrorList messages={errors ?? undefined} />
        </div>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={fetching || unchanged}>
            {fetching ? "Scaling…" : unchanged ? "Scale" : `Scale to ${n ?? "?"}`}
          </button>
          <button type="button" className="button button-quiet" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
