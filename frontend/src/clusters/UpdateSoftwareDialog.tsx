import { useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { OperationSummaryFragment } from "../gql/graphql";
import { Dialog } from "../ui/Dialog";
import { FieldErrorList, WholeNumberField } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { clearField, generalKey, newIdempotencyKey, parseWhole, type FieldErrors } from "../ui/fieldErrors";
import { StatusBadge } from "../ui/StatusBadge";
import { UpdateClusterSoftwareMutation } from "./documents";
import {
  batchPlan,
  imageStatusWords,
  softwareDraftOf,
  softwareFields,
  softwareRequest,
  softwareServerErrors,
  updatableGroups,
  versionText,
  type GroupSoftware,
  type SoftwareDraft,
} from "./softwareUpdate";

interface Props {
  clusterId: string;
  groups: readonly GroupSoftware[];
  onClose: () => void;
  onStarted: (op: OperationSummaryFragment, groups: string[]) => void;
}

/**
 * Starts a rolling software update (updateClusterSoftware): the groups to
 * move to the latest HyperPod image, how many of a group's nodes are
 * replaced at once, the wait between batches, and whether an unhealthy
 * batch rolls back.
 */
export function UpdateSoftwareDialog({ clusterId, groups, onClose, onStarted }: Props) {
  const live = updatableGroups(groups);
  const [draft, setDraft] = useState<SoftwareDraft>(() => softwareDraftOf(groups));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [{ fetching }, update] = useMutation(UpdateClusterSoftwareMutation);
  const key = useRef<{ draft: string; key: string } | null>(null);

  const change = (patch: Partial<SoftwareDraft>, field: string) => {
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((e) => clearField(clearField(e, field), generalKey));
  };
  const toggle = (name: string, on: boolean) => {
    const next = new Set(draft.groups);
    if (on) next.add(name);
    else next.delete(name);
    change({ groups: next }, softwareFields.groups);
  };

  const pct = parseWhole(draft.maxUnavailablePercent);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = softwareRequest(clusterId, groups, draft);
    if (!r.ok) {
      setErrors(r.errors);
      return;
    }
    const asked = JSON.stringify(r.vars);
    if (key.current?.draft !== asked) key.current = { draft: asked, key: newIdempotencyKey() };
    setErrors({});
    const result = await update({ ...r.vars, idempotencyKey: key.current.key });
    if (result.data) onStarted(result.data.updateClusterSoftware, r.vars.instanceGroups);
    else if (result.error)
      setErrors(result.error.graphQLErrors.length > 0 ? softwareServerErrors(result.error.graphQLErrors) : { [generalKey]: errorMessages(result.error) });
  };

  return (
    <Dialog title="Update the cluster's software" onClose={onClose} wide>
      <form onSubmit={submit} noValidate>
        <p>
          Moves the chosen groups to the latest HyperPod image. Each node is drained and its root volume is replaced with the new image,{" "}
          <strong>so data on a node's root volume is lost</strong>; pods on it stop and are scheduled again. Nodes are replaced in batches, and
          each batch must come back healthy before the next starts.
        </p>
        <fieldset className="field">
          <legend className="label">Instance groups</legend>
          <div className="table-wrap dialog-list">
            <table className="table">
              <caption className="sr-only">The groups to update</caption>
              <thead>
                <tr>
                  <th scope="col" className="check-col">
                    <span className="sr-only">Update</span>
                  </th>
                  <th scope="col">Group</th>
                  <th scope="col" className="num">
                    Nodes
                  </th>
                  <th scope="col">Image</th>
                  <th scope="col">Newer image</th>
                  <th scope="col">Batches</th>
                </tr>
              </thead>
              <tbody>
                {live.map((g) => {
                  const plan = pct !== null ? batchPlan(g.targetCount, pct) : null;
                  return (
                    <tr key={g.name}>
                      <td className="check-col">
                        <input
                          type="checkbox"
                          aria-label={`Update ${g.name}`}
                          checked={draft.groups.has(g.name)}
                          onChange={(e) => toggle(g.name, e.target.checked)}
                        />
                      </td>
                      <td>{g.name}</td>
                      <td className="num">{g.targetCount}</td>
                      <td>
                        <code>{versionText(g)}</code>
                      </td>
                      <td>
                        <StatusBadge status={g.software.imageVersionStatus} label={imageStatusWords[g.software.imageVersionStatus]} />
                      </td>
                      <td className="nowrap">
                        {plan && plan.batches > 0 ? `${plan.batches} ${plan.batches === 1 ? "batch" : "batches"} of up to ${plan.perBatch}` : <span className="muted">—</span>}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <p className="hint">
            SageMaker lists no image releases: a group marked up to date runs the latest, and an update moves the others to it. The version a
            group moves to shows once its update starts.
          </p>
          <FieldErrorList id="f-software-groups-error" messages={errors[softwareFields.groups]} />
        </fieldset>
        <div className="two-col">
          <WholeNumberField
            path={softwareFields.percent}
            label="Nodes replaced at once (% of a group)"
            hint="1 to 100, rounded up to whole nodes."
            errors={errors}
            min={1}
            max={100}
            value={draft.maxUnavailablePercent}
            onChange={(v) => change({ maxUnavailablePercent: v }, softwareFields.percent)}
          />
          <WholeNumberField
            path={softwareFields.wait}
            label="Wait between batches (seconds)"
            hint="0 to 3600, after each healthy batch."
            errors={errors}
            min={0}
            max={3600}
            value={draft.waitIntervalSeconds}
            onChange={(v) => change({ waitIntervalSeconds: v }, softwareFields.wait)}
          />
        </div>
        <div className="field">
          <label className="check">
            <input type="checkbox" checked={draft.autoRollback} onChange={(e) => change({ autoRollback: e.target.checked }, generalKey)} />
            <span>Roll back when a batch is unhealthy</span>
          </label>
          <p className="hint">The nodes already updated go back to their previous image; otherwise they keep the new one and the update stops.</p>
        </div>
        <FieldErrorList messages={errors[generalKey]} />
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={fetching}>
            {fetching ? "Starting…" : "Start the update"}
          </button>
          <button type="button" className="button button-quiet" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
