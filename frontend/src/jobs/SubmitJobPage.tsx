import { useId, useRef, useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { Link, navigate } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { OperationDetailFragment, SubmitJobFormQuery as FormData } from "../gql/graphql";
import { OperationProgress } from "../operations/OperationProgress";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { Field, FieldErrorList, FormErrors, WholeNumberField, inputId, useFocusFirstError } from "../ui/Field";
import { clearField, generalKey, hasErrors, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { SubmitJobFormQuery, SubmitTrainingJobMutation } from "./documents";
import { jobPath, recipeLabel } from "./jobWords";
import { RayFields } from "./RayFields";
import { defaultSettings, settingControl, settingPath, settingsToSend, type SettingInfo } from "./recipeSettings";
import {
  advancedHasErrors,
  blankSubmitDraft,
  recoveryDefaults,
  recoveryGiven,
  submitPaths,
  submitServerErrors,
  submitVariables,
  takesScript,
  validateSubmit,
  type RecoveryDraft,
  type SubmitDraft,
} from "./submitForm";
import { useGroupAccelerators, type Accelerators } from "./useGroupAccelerators";

/** The form to submit a training job on a cluster, at /clusters/:id/jobs/new. */
export function SubmitJobPage({ clusterId }: { clusterId: string }) {
  const [{ data, fetching, error }, reload] = useQuery({ query: SubmitJobFormQuery, variables: { clusterId }, requestPolicy: "cache-and-network" });
  const jobsPath = `/clusters/${encodeURIComponent(clusterId)}/jobs`;
  if (!data) {
    if (error) {
      return (
        <ErrorBanner title="The form could not be loaded" messages={errorMessages(error)}>
          <p>
            <Link to={jobsPath}>Back to the cluster's jobs</Link>{" "}
            <button className="button" type="button" onClick={() => reload({ requestPolicy: "network-only" })}>
              Try again
            </button>
          </p>
        </ErrorBanner>
      );
    }
    return fetching ? <Loading what="the recipes, groups and models" /> : <EmptyState title="No such cluster" />;
  }
  return <SubmitJobForm data={data} jobsPath={jobsPath} />;
}

type Group = FormData["instanceGroups"]["edges"][number]["node"];

function SubmitJobForm({ data, jobsPath }: { data: FormData; jobsPath: string }) {
  const { me } = useSession();
  const cluster = data.cluster;
  const recipes = data.trainingRecipes;
  const groups = data.instanceGroups.edges.map((e) => e.node).filter((g) => g.status !== "DELETED");
  const models = data.models.edges.map((e) => e.node).filter((m) => m.status === "READY" || m.status === "PRESENT");
  const accelerators = useGroupAccelerators(cluster.region, groups.map((g) => g.zone));

  const [draft, setDraft] = useState<SubmitDraft>(blankSubmitDraft);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [attempt, setAttempt] = useState(0);
  const [advancedOpen, setAdvancedOpen] = useState(false);
  const [started, setStarted] = useState<{ op: OperationDetailFragment; name: string } | null>(null);
  const formRef = useFocusFirstError(attempt);
  const key = useRef<string | null>(null);
  const [{ fetching }, submitJob] = useMutation(SubmitTrainingJobMutation);
  const headingId = useId();

  const recipe = recipes.find((r) => r.recipe === draft.recipe);
  const group = groups.find((g) => g.name === draft.instanceGroup);
  const groupAccelerators = group ? accelerators.get(group.instanceType) : undefined;
  const denied = deniedReason(me.role, "OPERATOR") ?? (cluster.status === "ACTIVE" ? undefined : `The cluster is ${cluster.status}: jobs run only on an ACTIVE cluster.`);
  const clusterPath = `/clusters/${encodeURIComponent(cluster.id)}`;
  const tieredOn = data.clusterFeatures.some((f) => f.name === "TIERED_CHECKPOINTING" && f.status === "ENABLED");

  const change = (patch: Partial<SubmitDraft>, path: string) => {
    key.current = null; // a different request deserves its own key
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((e) => clearField(clearField(e, path), generalKey));
  };
  const changeRecipe = (value: string) => {
    const next = recipes.find((r) => r.recipe === value);
    change({ recipe: next?.recipe ?? "", settings: next ? defaultSettings(next.settings) : {}, ...(!next?.needsModel && { model: "" }) }, submitPaths.recipe);
    // The settings are another recipe's now: their errors go with them.
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !k.startsWith("input.settings"))));
  };
  const changeSetting = (k: string, value: string) => change({ settings: { ...draft.settings, [k]: value } }, settingPath(k));
  const changeRecovery = (patch: Partial<RecoveryDraft>, path: string) => change({ recovery: { ...draft.recovery, ...patch } }, path);

  const fail = (found: FieldErrors) => {
    setErrors(found);
    if (advancedHasErrors(found)) setAdvancedOpen(true);
    setAttempt((n) => n + 1);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateSubmit(draft, recipe, groupAccelerators?.count ?? null);
    if (hasErrors(found) || !recipe) {
      fail(found);
      return;
    }
    setErrors({});
    key.current ??= newIdempotencyKey();
    const variables = submitVariables(cluster.id, draft, recipe, key.current);
    const r = await submitJob(variables);
    if (r.data) {
      key.current = null;
      setStarted({ op: r.data.submitTrainingJob, name: variables.input.name });
      return;
    }
    if (r.error) {
      fail(r.error.graphQLErrors.length > 0 ? submitServerErrors(r.error.graphQLErrors, settingsToSend(recipe.settings, draft.settings)) : { [generalKey]: errorMessages(r.error) });
    }
  };

  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/clusters">Clusters</Link> / <Link to={clusterPath}>{cluster.name}</Link> / <Link to={jobsPath}>Jobs</Link> /
          </p>
          <h1 id={headingId}>Submit a training job</h1>
          <p className="muted">
            Decide what to train, on what, and on how much; InstantStart derives the processes, EFA interfaces, volumes, paths, NCCL settings and
            the restart policy, and checks the model, dataset and group before it makes the job.
          </p>
        </div>
      </div>

      {started && (
        <OperationProgress
          key={started.op.id}
          what={`Submitting ${started.name}`}
          operation={started.op}
          noopMessage={`${started.name} was submitted already.`}
          onDismiss={() => setStarted(null)}
          onSucceeded={(op) => navigate(jobPath(cluster.id, op.target.id))}
        />
      )}

      <form ref={formRef} className="form" onSubmit={submit} noValidate aria-busy={fetching} aria-labelledby={headingId}>
        <FormErrors title="The job was not submitted" messages={errors[generalKey]} />

        <section className="card form-section" aria-label="What to train">
          <h2>What to train</h2>
          <Field path={submitPaths.name} label="Name" errors={errors} hint="Up to 40 lower-case letters, digits and '-', starting with a letter. Outputs go to outputs/<name>/, checkpoints to checkpoints/<name>/.">
            {(props) => (
              <input {...props} type="text" autoComplete="off" spellCheck={false} placeholder="sft-qwen" value={draft.name} onChange={(e) => change({ name: e.target.value }, submitPaths.name)} />
            )}
          </Field>
          <Field
            path={submitPaths.recipe}
            label="Recipe"
            errors={errors}
            hint={recipe ? <>Runs <code>{recipe.image}</code> as a {recipe.kind === "RAY_JOB" ? "RayJob (KubeRay)" : "HyperPodPyTorchJob (training operator)"}.</> : "What runs, in a pinned image."}
          >
            {(props) => (
              <select {...props} value={draft.recipe} onChange={(e) => changeRecipe(e.target.value)}>
                <option value="">Choose a recipe</option>
                {recipes.map((r) => (
                  <option key={r.recipe} value={r.recipe}>
                    {recipeLabel(r)} — {r.image}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {recipe?.needsModel && (
            <Field
              path={submitPaths.model}
              label="Model"
              errors={errors}
              hint={
                models.length === 0 ? (
                  <>
                    The shared bucket has no model ready. <Link to={`${clusterPath}/models`}>Download one on the Models tab</Link>.
                  </>
                ) : (
                  "A model of the shared bucket, ready or put there by hand: pods load it from /s3/models/<name>."
                )
              }
            >
              {(props) => (
                <select {...props} value={draft.model} onChange={(e) => change({ model: e.target.value }, submitPaths.model)}>
                  <option value="">Choose a model</option>
                  {models.map((m) => (
                    <option key={m.id} value={m.name}>
                      {m.name}
                      {m.modelId ? ` (${m.modelId})` : ""}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
          {takesScript(draft.recipe) && (
            <Field
              path={submitPaths.script}
              label="Script"
              errors={errors}
              hint={
                draft.recipe === "RAY"
                  ? "A file of the shared bucket, the Ray program's entrypoint (python /s3/<script>): for example code/train.py."
                  : "A file of the shared bucket, run with torchrun, one process per GPU: for example code/train.py."
              }
            >
              {(props) => (
                <input {...props} type="text" autoComplete="off" spellCheck={false} placeholder="code/train.py" value={draft.script} onChange={(e) => change({ script: e.target.value }, submitPaths.script)} />
              )}
            </Field>
          )}
          <Field path={submitPaths.datasetPath} label="Dataset" errors={errors} hint="A file or folder under datasets/ in the shared bucket: for example datasets/alpaca/ or datasets/gsm8k/train.parquet.">
            {(props) => (
              <input
                {...props}
                type="text"
                autoComplete="off"
                spellCheck={false}
                placeholder="datasets/alpaca/"
                value={draft.datasetPath}
                onChange={(e) => change({ datasetPath: e.target.value }, submitPaths.datasetPath)}
              />
            )}
          </Field>
        </section>

        <section className="card form-section" aria-label="Where it runs">
          <h2>Where it runs</h2>
          <Field path={submitPaths.instanceGroup} label="Instance group" errors={errors} hint={groupHint(group, groupAccelerators)}>
            {(props) => (
              <select {...props} value={draft.instanceGroup} onChange={(e) => change({ instanceGroup: e.target.value, gpusPerNode: "" }, submitPaths.instanceGroup)}>
                <option value="">{groups.length === 0 ? "The cluster has no instance groups" : "Choose an instance group"}</option>
                {groups.map((g) => {
                  const a = accelerators.get(g.instanceType);
                  return (
                    <option key={g.id} value={g.name} disabled={a?.count === 0}>
                      {g.name} — {g.instanceType}
                      {a ? (a.count === 0 ? ", no GPUs" : `, ${a.count} × ${a.name ?? "GPU"}`) : ""}
                    </option>
                  );
                })}
              </select>
            )}
          </Field>
          <WholeNumberField
            path={submitPaths.nodes}
            label="Nodes"
            errors={errors}
            min={1}
            max={256}
            value={draft.nodes}
            onChange={(v) => change({ nodes: v }, submitPaths.nodes)}
            hint={group ? `One pod per node. The group has ${group.currentCount} of ${group.targetCount} nodes; with autoscaling, Karpenter adds what is missing.` : "One pod per node."}
          />
          <Field
            path={submitPaths.gpusPerNode}
            label="GPUs per node (optional)"
            errors={errors}
            hint={groupAccelerators?.count ? `Leave it empty for all ${groupAccelerators.count}.` : "Leave it empty for all of the instance type's."}
          >
            {(props) => (
              <input
                {...props}
                type="number"
                inputMode="numeric"
                min={1}
                max={groupAccelerators?.count || undefined}
                step={1}
                placeholder={groupAccelerators?.count ? `all ${groupAccelerators.count}` : "all"}
                value={draft.gpusPerNode}
                onChange={(e) => change({ gpusPerNode: e.target.value }, submitPaths.gpusPerNode)}
              />
            )}
          </Field>
          <Field
            path={submitPaths.checkpointing}
            label="Checkpointing"
            errors={errors}
            hint={
              tieredOn ? (
                "S3 writes a checkpoint to the shared bucket every save_steps. Tiered also keeps one in the nodes' memory every save_steps/10 steps: a crash loses fewer steps and the job resumes sooner."
              ) : (
                <>
                  Tiered checkpointing needs the cluster's TIERED_CHECKPOINTING feature: <Link to={`${clusterPath}/features`}>turn it on on the Features tab</Link>. Until
                  then checkpoints go to S3 every save_steps.
                </>
              )
            }
          >
            {(props) => (
              <select {...props} value={draft.checkpointing} onChange={(e) => change({ checkpointing: e.target.value === "TIERED" ? "TIERED" : "S3" }, submitPaths.checkpointing)}>
                <option value="S3">S3 (shared bucket)</option>
                <option value="TIERED" disabled={!tieredOn}>
                  Tiered: memory, then S3{tieredOn ? "" : " (TIERED_CHECKPOINTING is off)"}
                </option>
              </select>
            )}
          </Field>
        </section>

        {draft.recipe === "RAY" && <RayFields draft={draft.ray} groups={groups} errors={errors} onChange={(ray, path) => change({ ray }, path)} />}

        {recipe && recipe.settings.length > 0 && (
          <section className="card form-section" aria-label="Recipe settings">
            <h2>{recipeLabel(recipe)} settings</h2>
            <p className="muted">Each starts at the recipe's default; only those you change are sent.</p>
            <FieldErrorList messages={errors[submitPaths.settings]} />
            {recipe.settings.map((info) => (
              <SettingField key={info.key} info={info} value={draft.settings[info.key] ?? info.default} errors={errors} onChange={(v) => changeSetting(info.key, v)} />
            ))}
          </section>
        )}

        <details className="card form-section advanced" open={advancedOpen} onToggle={(e) => setAdvancedOpen(e.currentTarget.open)}>
          <summary>Advanced: recovery and experiment{recoveryGiven(draft.recovery) ? " (changed)" : ""}</summary>
          <p className="muted">
            A fault (a crash, a lost node, a hang) restarts the job from its last checkpoint and spends its budget. Empty fields take the
            training operator's usual values.
          </p>
          <RecoveryField path={submitPaths.maxRestarts} label="Restarts in all" min={0} max={100} fallback={recoveryDefaults.maxRestarts} value={draft.recovery.maxRestarts} errors={errors} onChange={(v) => changeRecovery({ maxRestarts: v }, submitPaths.maxRestarts)} />
          <RecoveryField path={submitPaths.windowSeconds} label="Evaluation window (seconds)" min={60} max={604800} fallback={recoveryDefaults.windowSeconds} value={draft.recovery.windowSeconds} errors={errors} onChange={(v) => changeRecovery({ windowSeconds: v }, submitPaths.windowSeconds)} />
          <RecoveryField path={submitPaths.maxFullJobRestarts} label="Full job restarts per window" min={0} max={20} fallback={recoveryDefaults.maxFullJobRestarts} value={draft.recovery.maxFullJobRestarts} errors={errors} onChange={(v) => changeRecovery({ maxFullJobRestarts: v }, submitPaths.maxFullJobRestarts)} />
          <RecoveryField
            path={submitPaths.restartsBeforeFullJobRestart}
            label="Restarts before a full job restart"
            min={0}
            max={20}
            fallback={recoveryDefaults.restartsBeforeFullJobRestart}
            value={draft.recovery.restartsBeforeFullJobRestart}
            errors={errors}
            onChange={(v) => changeRecovery({ restartsBeforeFullJobRestart: v }, submitPaths.restartsBeforeFullJobRestart)}
          />
          <div className="field">
            <label className="check">
              <input
                id={inputId(submitPaths.detectHangs)}
                type="checkbox"
                checked={draft.recovery.detectHangs}
                aria-invalid={errors[submitPaths.detectHangs] ? true : undefined}
                onChange={(e) => changeRecovery({ detectHangs: e.target.checked }, submitPaths.detectHangs)}
              />
              <span>Detect hangs and slowness from the logs</span>
            </label>
            <FieldErrorList id={`${inputId(submitPaths.detectHangs)}-error`} messages={errors[submitPaths.detectHangs]} />
          </div>
          <Field path={submitPaths.experiment} label="MLflow experiment (optional)" errors={errors} hint="With the cluster's MLFLOW feature on; empty for the cluster's name.">
            {(props) => (
              <input {...props} type="text" autoComplete="off" placeholder={cluster.name} value={draft.experiment} onChange={(e) => change({ experiment: e.target.value }, submitPaths.experiment)} />
            )}
          </Field>
        </details>

        <div className="form-actions">
          <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={fetching || started !== null}>
            {fetching ? "Submitting…" : "Submit job"}
          </GuardedButton>
          <Link to={jobsPath} className="button button-quiet">
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}

function groupHint(group: Group | undefined, a: Accelerators | undefined): string {
  if (!group) return "A group of GPU or Trainium instances; the job's pods run one per node.";
  const gpus = a ? (a.count === 0 ? "no GPUs: choose a GPU group" : `${a.count} × ${a.name ?? "GPU"} per node`) : "reading its GPUs…";
  return `${group.instanceType}, ${gpus}; ${group.currentCount} of ${group.targetCount} nodes, ${group.status}.`;
}

function SettingField({ info, value, errors, onChange }: { info: SettingInfo; value: string; errors: FieldErrors; onChange: (v: string) => void }) {
  const control = settingControl(info);
  const hint = (
    <>
      {info.description} Default: <code>{info.default || "empty"}</code>.
    </>
  );
  return (
    <Field path={settingPath(info.key)} label={info.key} errors={errors} hint={hint}>
      {(props) =>
        control.kind === "select" ? (
          <select {...props} value={value} onChange={(e) => onChange(e.target.value)}>
            {control.options.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        ) : control.kind === "number" ? (
          <input {...props} type="number" inputMode="decimal" step={control.step} value={value} onChange={(e) => onChange(e.target.value)} />
        ) : (
          <input {...props} type="text" autoComplete="off" spellCheck={false} value={value} onChange={(e) => onChange(e.target.value)} />
        )
      }
    </Field>
  );
}

interface RecoveryFieldProps {
  path: string;
  label: string;
  min: number;
  max: number;
  fallback: number;
  value: string;
  errors: FieldErrors;
  onChange: (v: string) => void;
}

function RecoveryField({ path, label, min, max, fallback, value, errors, onChange }: RecoveryFieldProps) {
  return (
    <Field path={path} label={`${label} (optional)`} errors={errors} hint={`${min} to ${max}; empty for ${fallback}.`}>
      {(props) => <input {...props} type="number" inputMode="numeric" min={min} max={max} step={1} placeholder={String(fallback)} value={value} onChange={(e) => onChange(e.target.value)} />}
    </Field>
  );
}
