import { Field, FieldErrorList } from "../ui/Field";
import type { FieldErrors } from "../ui/fieldErrors";
import { rayPaths, workerPath, type RayDraft, type RayWorkersDraft } from "./rayForm";

interface Props {
  draft: RayDraft;
  groups: readonly { name: string; instanceType: string }[];
  errors: FieldErrors;
  onChange: (draft: RayDraft, path: string) => void;
}

/** The RAY recipe's fields: the script's arguments, the runtime environment and the worker groups. */
export function RayFields({ draft, groups, errors, onChange }: Props) {
  const setWorker = (i: number, patch: Partial<RayWorkersDraft>, field: keyof RayWorkersDraft) =>
    onChange({ ...draft, workers: draft.workers.map((w, j) => (j === i ? { ...w, ...patch } : w)) }, workerPath(i, field));
  return (
    <section className="card form-section" aria-label="Ray program">
      <h2>Ray program</h2>
      <p className="muted">
        The script runs as the RayJob's entrypoint, <code>python /s3/&lt;script&gt;</code>, on a Ray cluster whose head is one node of the instance group above.
      </p>
      <Field path={rayPaths.args} label="Arguments (optional)" errors={errors} hint="One argument a line, each passed as one word; at most 64.">
        {(props) => <textarea {...props} rows={3} spellCheck={false} placeholder={"--epochs\n3"} value={draft.args} onChange={(e) => onChange({ ...draft, args: e.target.value }, rayPaths.args)} />}
      </Field>
      <Field path={rayPaths.pip} label="pip packages (optional)" errors={errors} hint="One requirement a line, such as torch==2.5.1; the runtime environment installs them. At most 64.">
        {(props) => <textarea {...props} rows={3} spellCheck={false} placeholder="datasets==3.2.0" value={draft.pip} onChange={(e) => onChange({ ...draft, pip: e.target.value }, rayPaths.pip)} />}
      </Field>
      <Field
        path={rayPaths.env}
        label="Environment variables (optional)"
        errors={errors}
        hint="One NAME=value a line; not for secrets. The program also gets MAX_STEPS, CHECKPOINT_STEPS, CHECKPOINT_DIR, OUTPUT_DIR and DATASET_PATH."
      >
        {(props) => <textarea {...props} rows={3} spellCheck={false} placeholder="WANDB_MODE=offline" value={draft.env} onChange={(e) => onChange({ ...draft, env: e.target.value }, rayPaths.env)} />}
      </Field>
      <h3>Worker groups</h3>
      <p className="muted">{draft.workers.length === 0 ? "None: the program runs on the head alone." : "One per instance group."}</p>
      <FieldErrorList messages={errors[rayPaths.workerGroups]} />
      {draft.workers.map((w, i) => (
        <fieldset key={i} className="worker-group" aria-label={`Worker group ${i + 1}`}>
          <Field path={workerPath(i, "instanceGroup")} label="Instance group" errors={errors}>
            {(props) => (
              <select {...props} value={w.instanceGroup} onChange={(e) => setWorker(i, { instanceGroup: e.target.value }, "instanceGroup")}>
                <option value="">Choose an instance group</option>
                {groups.map((g) => (
                  <option key={g.name} value={g.name}>
                    {g.name} — {g.instanceType}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field path={workerPath(i, "replicas")} label="Workers" errors={errors}>
            {(props) => <input {...props} type="number" inputMode="numeric" min={1} max={256} step={1} value={w.replicas} onChange={(e) => setWorker(i, { replicas: e.target.value }, "replicas")} />}
          </Field>
          <Field path={workerPath(i, "gpusPerNode")} label="GPUs per worker (optional)" errors={errors}>
            {(props) => (
              <input {...props} type="number" inputMode="numeric" min={1} step={1} placeholder="all" value={w.gpusPerNode} onChange={(e) => setWorker(i, { gpusPerNode: e.target.value }, "gpusPerNode")} />
            )}
          </Field>
          <button className="button button-quiet" type="button" onClick={() => onChange({ ...draft, workers: draft.workers.filter((_, j) => j !== i) }, rayPaths.workerGroups)}>
            Remove
          </button>
        </fieldset>
      ))}
      {draft.workers.length < 8 && (
        <button className="button" type="button" onClick={() => onChange({ ...draft, workers: [...draft.workers, { instanceGroup: "", replicas: "1", gpusPerNode: "" }] }, rayPaths.workerGroups)}>
          Add a worker group
        </button>
      )}
    </section>
  );
}
