import { useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { FeatureRowFragment, OperationDetailFragment } from "../gql/graphql";
import { Dialog } from "../ui/Dialog";
import { Field, FieldErrorList, FormErrors, inputId, useFocusFirstError } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { clearField, generalKey, hasErrors, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { UpdateClusterFeaturesMutation } from "./documents";
import {
  actionWords,
  asksSettings,
  blankDraft,
  draftOf,
  featureInput,
  featureServerErrors,
  settingsPaths,
  tieredDefaults,
  tieredIdentity,
  validateFeatureDraft,
  type FeatureAction,
  type FeatureDraft,
  type MlflowDraft,
  type TieredDraft,
} from "./featureToggle";
import { featureEffects, inSentence, resourceKindWords } from "./featureWords";

/** An instance group Karpenter may be given. */
export interface GroupChoice {
  name: string;
  status: string;
  currentCount: number;
  targetCount: number;
}

interface Props {
  clusterId: string;
  feature: FeatureRowFragment;
  action: FeatureAction;
  /** The cluster's instance groups, to choose Karpenter's from. */
  groups: readonly GroupChoice[];
  onClose: () => void;
  onStarted: (op: OperationDetailFragment) => void;
}

/**
 * Says what a toggle will make or remove, asks for the settings of a
 * feature that has some when it is turned on (tiered checkpointing's
 * bucket and identity, the groups Karpenter scales), and starts
 * updateClusterFeatures for that one feature when confirmed.
 */
export function FeatureToggleDialog({ clusterId, feature, action, groups, onClose, onStarted }: Props) {
  const [draft, setDraft] = useState<FeatureDraft>(() => (action === "change" ? draftOf(feature) : blankDraft()));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [attempt, setAttempt] = useState(0);
  const formRef = useFocusFirstError(attempt);
  const key = useRef<string | null>(null);
  const [{ fetching }, update] = useMutation(UpdateClusterFeaturesMutation);
  const words = actionWords[action];
  const asks = asksSettings(feature.name, action);

  const change = (patch: Partial<FeatureDraft>, path: string) => {
    key.current = null; // a different request deserves its own key
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((e) => clearField(clearField(e, path), generalKey));
  };
  const changeTiered = (patch: Partial<TieredDraft>, path: string) => change({ tiered: { ...draft.tiered, ...patch } }, path);
  const changeMlflow = (patch: Partial<MlflowDraft>, path: string) => change({ mlflow: { ...draft.mlflow, ...patch } }, path);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (asks) {
      const found = validateFeatureDraft(feature.name, draft, groups.map((g) => g.name));
      if (hasErrors(found)) {
        setErrors(found);
        setAttempt((n) => n + 1);
        return;
      }
    }
    setErrors({});
    key.current ??= newIdempotencyKey();
    const input = featureInput(feature, action, draft);
    const r = await update({ clusterId, input, idempotencyKey: key.current });
    if (r.data) {
      onStarted(r.data.updateClusterFeatures);
      return;
    }
    if (r.error) {
      setErrors(r.error.graphQLErrors.length > 0 ? featureServerErrors(r.error.graphQLErrors) : { [generalKey]: errorMessages(r.error) });
      setAttempt((n) => n + 1);
    }
  };

  const own = feature.resources.filter((r) => !r.shared);
  const shared = feature.resources.filter((r) => r.shared);
  const identity = tieredIdentity(draft.tiered);

  return (
    <Dialog title={`${words.verb} ${inSentence(feature.title)}?`} onClose={onClose} wide>
      <form ref={formRef} onSubmit={submit} noValidate aria-busy={fetching}>
        <FormErrors title={`${feature.title} was not ${action === "disable" ? "disabled" : "enabled"}`} messages={errors[generalKey]} />
        {action === "reapply" ? (
          <p>
            Turns {inSentence(feature.title)} on again with its current settings: whatever of it is missing is made again, and when all of it
            exists nothing changes. {featureEffects[feature.name].enable}
          </p>
        ) : (
          <p>{action === "change" ? featureEffects[feature.name].change : featureEffects[feature.name][action]}</p>
        )}

        {action === "disable" && <ResourceList title="Removed" resources={own} />}
        {action === "disable" && <ResourceList title="Left in place: other features use them" resources={shared} />}
        {action !== "disable" && action !== "change" && (
          <ResourceList title={action === "reapply" ? "Checked, and made again if missing" : "Already there"} resources={feature.resources} />
        )}

        {action === "reapply" && feature.tieredCheckpointing && <TieredSummary settings={feature.tieredCheckpointing} />}
        {action === "reapply" && feature.karpenter && (
          <p>
            Instance groups it scales: {feature.karpenter.instanceGroups.join(", ") || "—"}.
          </p>
        )}

        {asks && feature.name === "KARPENTER_AUTOSCALING" && (
          <GroupsField
            groups={groups}
            chosen={draft.instanceGroups}
            errors={errors[settingsPaths.instanceGroups]}
            onChange={(instanceGroups) => change({ instanceGroups }, settingsPaths.instanceGroups)}
          />
        )}

        {asks && feature.name === "INFERENCE_OPERATOR" && (
          <TextSetting
            path={settingsPaths.tlsBucket}
            label="S3 bucket for TLS certificates"
            hint="The bucket's name, without s3://. The operator keeps its endpoints' certificates there; its role may use this bucket only."
            errors={errors}
            value={draft.tlsBucket}
            onChange={(tlsBucket) => change({ tlsBucket }, settingsPaths.tlsBucket)}
          />
        )}
        {asks && feature.name === "OBSERVABILITY" && (
          <TextSetting
            path={settingsPaths.workspaceArn}
            label="Amazon Managed Service for Prometheus workspace ARN"
            hint="arn:aws:aps:<region>:<account>:workspace/ws-…, in the cluster's region. Create one with aws amp create-workspace."
            errors={errors}
            value={draft.workspaceArn}
            onChange={(workspaceArn) => change({ workspaceArn }, settingsPaths.workspaceArn)}
          />
        )}
        {asks && feature.name === "S3_CSI_DRIVER" && (
          <TextSetting
            path={settingsPaths.buckets}
            label="S3 buckets pods may mount"
            hint="Bucket names without s3://, separated by commas or spaces. The driver's role may read and write these buckets only."
            errors={errors}
            value={draft.buckets}
            onChange={(buckets) => change({ buckets }, settingsPaths.buckets)}
          />
        )}

        {asks && feature.name === "MLFLOW" && <MlflowFields draft={draft.mlflow} errors={errors} onChange={changeMlflow} />}
        {action === "reapply" && feature.mlflow && (
          <p>
            Tracking server <code className="wrap">{feature.mlflow.trackingServerArn}</code>
            {feature.mlflow.existing ? " (existing: it is only used)." : "."}
          </p>
        )}

        {asks && feature.name === "TIERED_CHECKPOINTING" && (
          <>
            <TextSetting
              path={settingsPaths.bucket}
              label="S3 bucket"
              hint="The bucket's name, without s3://: 3-63 lower-case letters, digits, dots and hyphens. The role may read and write this bucket only."
              errors={errors}
              value={draft.tiered.bucket}
              onChange={(bucket) => changeTiered({ bucket }, settingsPaths.bucket)}
            />
            <Field
              path={settingsPaths.memoryPercentage}
              label="Memory for checkpoints (optional)"
              errors={errors}
              hint="The share of each instance's memory kept for checkpoints, 1 to 100 percent. Empty: HyperPod's default."
            >
              {(props) => (
                <input
                  {...props}
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={100}
                  step={1}
                  value={draft.tiered.memoryPercentage}
                  onChange={(e) => changeTiered({ memoryPercentage: e.target.value }, settingsPaths.memoryPercentage)}
                />
              )}
            </Field>
            <Field path={settingsPaths.namespace} label="Namespace (optional)" errors={errors} hint={`Empty: ${tieredDefaults.namespace}. Made when missing.`}>
              {(props) => (
                <input
                  {...props}
                  type="text"
                  autoComplete="off"
                  spellCheck={false}
                  placeholder={tieredDefaults.namespace}
                  value={draft.tiered.namespace}
                  onChange={(e) => changeTiered({ namespace: e.target.value }, settingsPaths.namespace)}
                />
              )}
            </Field>
            <Field
              path={settingsPaths.serviceAccount}
              label="Service account (optional)"
              errors={errors}
              hint={`Empty: ${tieredDefaults.serviceAccount}. Only pods that run as ${identity.namespace}/${identity.serviceAccount} may write checkpoints.`}
            >
              {(props) => (
                <input
                  {...props}
                  type="text"
                  autoComplete="off"
                  spellCheck={false}
                  placeholder={tieredDefaults.serviceAccount}
                  value={draft.tiered.serviceAccount}
                  onChange={(e) => changeTiered({ serviceAccount: e.target.value }, settingsPaths.serviceAccount)}
                />
              )}
            </Field>
          </>
        )}

        <div className="form-actions">
          <button type="submit" className={action === "disable" ? "button button-danger" : "button button-primary"} disabled={fetching} autoFocus={!asks}>
            {fetching ? `${words.doing}…` : `${words.verb} ${inSentence(feature.title)}`}
          </button>
          <button type="button" className="button button-quiet" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** One text setting of a feature. */
function TextSetting({
  path,
  label,
  hint,
  errors,
  value,
  onChange,
}: {
  path: string;
  label: string;
  hint: string;
  errors: FieldErrors;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <Field path={path} label={label} errors={errors} hint={hint}>
      {(props) => <input {...props} type="text" autoComplete="off" spellCheck={false} autoFocus value={value} onChange={(e) => onChange(e.target.value)} />}
    </Field>
  );
}

const mlflowSizes = [
  { value: "SMALL", words: "Small: up to 25 users" },
  { value: "MEDIUM", words: "Medium: up to 50 users" },
  { value: "LARGE", words: "Large: up to 100 users" },
] as const;

/** MLflow's settings: a new tracking server (each field with a default) or an existing one. */
function MlflowFields({ draft, errors, onChange }: { draft: MlflowDraft; errors: FieldErrors; onChange: (patch: Partial<MlflowDraft>, path: string) => void }) {
  return (
    <>
      <fieldset className="field">
        <legend className="label">Tracking server</legend>
        <div className="checks">
          <label className="check">
            <input type="radio" name="mlflow-server" checked={!draft.existing} onChange={() => onChange({ existing: false }, settingsPaths.mlflowArn)} />
            <span>Make a new one for this cluster</span>
          </label>
          <label className="check">
            <input type="radio" name="mlflow-server" checked={draft.existing} onChange={() => onChange({ existing: true }, settingsPaths.mlflowName)} />
            <span>Use an existing one (it is never deleted here)</span>
          </label>
        </div>
      </fieldset>
      {draft.existing ? (
        <TextSetting
          path={settingsPaths.mlflowArn}
          label="Tracking server ARN"
          hint="arn:aws:sagemaker:<region>:<account>:mlflow-tracking-server/<name>, in the cluster's region and Created."
          errors={errors}
          value={draft.arn}
          onChange={(arn) => onChange({ arn }, settingsPaths.mlflowArn)}
        />
      ) : (
        <>
          <Field path={settingsPaths.mlflowName} label="Name (optional)" errors={errors} hint="Letters, digits and hyphens. Empty: <cluster name>-mlflow.">
            {(props) => (
              <input {...props} type="text" autoComplete="off" spellCheck={false} value={draft.name} onChange={(e) => onChange({ name: e.target.value }, settingsPaths.mlflowName)} />
            )}
          </Field>
          <Field path={settingsPaths.mlflowSize} label="Size" errors={errors} hint="How many people and how much logging it takes; larger costs more per hour.">
            {(props) => (
              <select {...props} value={draft.size} onChange={(e) => onChange({ size: e.target.value as MlflowDraft["size"] }, settingsPaths.mlflowSize)}>
                <option value="">Small (default)</option>
                {mlflowSizes.map((z) => (
                  <option key={z.value} value={z.value}>
                    {z.words}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field
            path={settingsPaths.mlflowArtifacts}
            label="Artifact location (optional)"
            errors={errors}
            hint="s3://<shared bucket>/<prefix>/, in the cluster's shared bucket. Empty: s3://<shared bucket>/mlflow/."
          >
            {(props) => (
              <input
                {...props}
                type="text"
                autoComplete="off"
                spellCheck={false}
                value={draft.artifactStoreUri}
                onChange={(e) => onChange({ artifactStoreUri: e.target.value }, settingsPaths.mlflowArtifacts)}
              />
            )}
          </Field>
        </>
      )}
    </>
  );
}

function GroupsField({
  groups,
  chosen,
  errors,
  onChange,
}: {
  groups: readonly GroupChoice[];
  chosen: readonly string[];
  errors: string[] | undefined;
  onChange: (groups: string[]) => void;
}) {
  const id = inputId(settingsPaths.instanceGroups);
  return (
    <fieldset className="field" aria-describedby={`${id}-hint${errors ? ` ${id}-error` : ""}`} aria-invalid={errors ? true : undefined} id={id} tabIndex={-1}>
      <legend className="label">Instance groups Karpenter may scale</legend>
      <p id={`${id}-hint`} className="hint">
        Usually groups added at count 0: Karpenter starts their instances when pods are pending.
      </p>
      {groups.length === 0 ? (
        <p className="muted">The cluster has no instance groups yet: add one (at count 0) on the Instance groups tab first.</p>
      ) : (
        <div className="checks">
          {groups.map((g) => (
            <label key={g.name} className="check">
              <input
                type="checkbox"
                checked={chosen.includes(g.name)}
                onChange={(e) => onChange(e.target.checked ? [...chosen, g.name] : chosen.filter((n) => n !== g.name))}
              />
              <span>
                {g.name}{" "}
                <span className="muted">
                  {g.currentCount} of {g.targetCount} instances · {g.status}
                </span>
              </span>
            </label>
          ))}
        </div>
      )}
      <FieldErrorList id={`${id}-error`} messages={errors} />
    </fieldset>
  );
}

function ResourceList({ title, resources }: { title: string; resources: FeatureRowFragment["resources"] }) {
  if (resources.length === 0) return null;
  return (
    <div className="dialog-resources">
      <h3>{title}</h3>
      <ul className="resource-list">
        {resources.map((r) => (
          <li key={`${r.kind} ${r.ref}`}>
            <code title={resourceKindWords[r.kind]}>{r.kind}</code> <code className="wrap">{r.ref}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

function TieredSummary({ settings }: { settings: NonNullable<FeatureRowFragment["tieredCheckpointing"]> }) {
  return (
    <dl className="meta meta-stack">
      <div>
        <dt>S3 bucket</dt>
        <dd>{settings.bucket ? <code>{settings.bucket}</code> : "—"}</dd>
      </div>
      <div>
        <dt>Memory for checkpoints</dt>
        <dd>{settings.memoryPercentage != null ? `${settings.memoryPercentage}%` : "HyperPod's default"}</dd>
      </div>
      <div>
        <dt>Service account</dt>
        <dd>
          <code>
            {settings.namespace}/{settings.serviceAccount}
          </code>
        </dd>
      </div>
    </dl>
  );
}
