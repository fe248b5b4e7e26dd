// Editors of an instance group's Kubernetes labels and taints: rows of
// inputs, checked by kubernetesConfig.ts, errors under the rows.
import type { TaintEffect } from "../gql/graphql";
import { FieldErrorList, inputId } from "../ui/Field";
import { rowKey, taintEffects, taintEffectWords, type LabelRow, type TaintRow } from "./kubernetesConfig";

interface EditorProps<R> {
  path: string;
  rows: R[];
  errors: string[] | undefined;
  onChange: (rows: R[]) => void;
}

export function LabelsEditor({ path, rows, errors, onChange }: EditorProps<LabelRow>) {
  const id = inputId(path);
  const set = (i: number, patch: Partial<LabelRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset className="field rows-editor" aria-describedby={`${id}-hint${errors ? ` ${id}-error` : ""}`}>
      <legend className="label">Labels</legend>
      <p id={`${id}-hint`} className="hint">
        Set on the group's Kubernetes nodes, for node selectors and affinity. Keys are [prefix/]name; the sagemaker.amazonaws.com/ prefix is
        HyperPod's own.
      </p>
      {rows.map((r, i) => (
        <div className="editor-row" key={r.row}>
          <input
            type="text"
            id={i === 0 ? id : undefined}
            aria-label={`Label ${i + 1} key`}
            placeholder="key"
            autoComplete="off"
            spellCheck={false}
            value={r.key}
            aria-invalid={errors ? true : undefined}
            onChange={(e) => set(i, { key: e.target.value })}
          />
          <span aria-hidden="true">=</span>
          <input
            type="text"
            aria-label={`Label ${i + 1} value`}
            placeholder="value"
            autoComplete="off"
            spellCheck={false}
            value={r.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <button type="button" className="button button-quiet" onClick={() => onChange(rows.filter((_, j) => j !== i))} aria-label={`Remove label ${i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <div>
        <button type="button" className="button" onClick={() => onChange([...rows, { row: rowKey(), key: "", value: "" }])}>
          Add a label
        </button>
      </div>
      <FieldErrorList id={`${id}-error`} messages={errors} />
    </fieldset>
  );
}

export function TaintsEditor({ path, rows, errors, onChange }: EditorProps<TaintRow>) {
  const id = inputId(path);
  const set = (i: number, patch: Partial<TaintRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset className="field rows-editor" aria-describedby={`${id}-hint${errors ? ` ${id}-error` : ""}`}>
      <legend className="label">Taints</legend>
      <p id={`${id}-hint`} className="hint">
        Keep pods without a matching toleration off the group's nodes: NoSchedule keeps new pods off, PreferNoSchedule avoids the nodes,
        NoExecute also evicts running pods.
      </p>
      {rows.map((r, i) => (
        <div className="editor-row" key={r.row}>
          <input
            type="text"
            id={i === 0 ? id : undefined}
            aria-label={`Taint ${i + 1} key`}
            placeholder="key"
            autoComplete="off"
            spellCheck={false}
            value={r.key}
            aria-invalid={errors ? true : undefined}
            onChange={(e) => set(i, { key: e.target.value })}
          />
          <span aria-hidden="true">=</span>
          <input
            type="text"
            aria-label={`Taint ${i + 1} value`}
            placeholder="value (optional)"
            autoComplete="off"
            spellCheck={false}
            value={r.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <select aria-label={`Taint ${i + 1} effect`} value={r.effect} onChange={(e) => set(i, { effect: e.target.value as TaintEffect })}>
            {taintEffects.map((t) => (
              <option key={t} value={t}>
                {taintEffectWords[t]}
              </option>
            ))}
          </select>
          <button type="button" className="button button-quiet" onClick={() => onChange(rows.filter((_, j) => j !== i))} aria-label={`Remove taint ${i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <div>
        <button type="button" className="button" onClick={() => onChange([...rows, { row: rowKey(), key: "", value: "", effect: "NO_SCHEDULE" }])}>
          Add a taint
        </button>
      </div>
      <FieldErrorList id={`${id}-error`} messages={errors} />
    </fieldset>
  );
}

interface ChecksProps {
  path: string;
  names: readonly string[];
  chosen: string[];
  errors: string[] | undefined;
  onChange: (chosen: string[]) => void;
}

/** The deep health checks to run when instances start. */
export function DeepHealthChecksField({ path, names, chosen, errors, onChange }: ChecksProps) {
  const id = inputId(path);
  return (
    <fieldset className="field" aria-describedby={`${id}-hint`}>
      <legend className="label">Deep health checks</legend>
      <div className="checks" id={id}>
        {names.map((c) => (
          <label key={c} className="check">
            <input
              type="checkbox"
              checked={chosen.includes(c)}
              onChange={(e) => onChange(e.target.checked ? [...chosen, c] : chosen.filter((x) => x !== c))}
            />
            {c}
          </label>
        ))}
      </div>
      <p id={`${id}-hint`} className="hint">
        Run when instances start, before they take work: InstanceStress tests the accelerators under load, InstanceConnectivity tests EFA
        networking between instances. They add time to every launch; an instance that fails them is replaced.
      </p>
      <FieldErrorList messages={errors} />
    </fieldset>
  );
}
