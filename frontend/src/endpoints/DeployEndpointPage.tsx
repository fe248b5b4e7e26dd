import { useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import { useMutation, useQuery } from "urql";
import { Link, navigate } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { DeployEndpointFormQuery as FormData, OperationDetailFragment } from "../gql/graphql";
import { useGroupAccelerators, type Accelerators } from "../jobs/useGroupAccelerators";
import { OperationProgress } from "../operations/OperationProgress";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { Field, FieldErrorList, FormErrors, WholeNumberField, inputId, useFocusFirstError } from "../ui/Field";
import { clearField, generalKey, hasErrors, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { DeployEndpointFormQuery, DeployEndpointMutation } from "./documents";
import {
  blankDeployDraft,
  deployPaths,
  deployServerErrors,
  deployVariables,
  fileSystemChoices,
  instanceTypeChoices,
  modelFromBucket,
  needsGpus,
  servableModels,
  suggestedImages,
  validateDeploy,
  type DeployDraft,
  type InstanceTypeChoice,
} from "./endpointForm";
import { endpointPath, kvBackendWords, routingStrategyWords } from "./endpointWords";

/** The form to deploy an inference endpoint on a cluster, at /clusters/:id/endpoints/new. */
export function DeployEndpointPage({ clusterId }: { clusterId: string }) {
  const [{ data, fetching, error }, reload] = useQuery({ query: DeployEndpointFormQuery, variables: { clusterId }, requestPolicy: "cache-and-network" });
  const endpointsPath = `/clusters/${encodeURIComponent(clusterId)}/endpoints`;
  if (!data) {
    if (error) {
      return (
        <ErrorBanner title="The form could not be loaded" messages={errorMessages(error)}>
          <p>
            <Link to={endpointsPath}>Back to the cluster's endpoints</Link>{" "}
            <button className="button" type="button" onClick={() => reload({ requestPolicy: "network-only" })}>
              Try again
            </button>
          </p>
        </ErrorBanner>
      );
    }
    return fetching ? <Loading what="the groups, models and storage" /> : <EmptyState title="No such cluster" />;
  }
  return <DeployEndpointForm data={data} endpointsPath={endpointsPath} />;
}

const pathOptions: [DeployDraft["path"] & string, string, string][] = [
  ["SELF_MANAGED", "Self-managed", "vLLM or SGLang in an image of your choice, as a Deployment with a Service in the form you choose."],
  ["MANAGED", "Managed", "Through the HyperPod inference operator (the INFERENCE_OPERATOR feature), with tiered KV cache and intelligent routing."],
];

const sourceOptions: [DeployDraft["modelSource"], string, string][] = [
  ["BUCKET", "Shared bucket", "A model of models/ in the shared bucket, downloaded on the Models tab."],
  ["FSX", "FSx for Lustre", "A path on one of the cluster's FSx for Lustre file systems."],
  ["JUMPSTART", "SageMaker JumpStart", "A JumpStart model id, deployed as a JumpStartModel; its server sizes itself."],
];

const engineOptions: [NonNullable<DeployDraft["engine"]> & string, string, string][] = [
  ["VLLM", "vLLM", "vLLM's OpenAI-compatible server (vllm serve), port 8000."],
  ["SGLANG", "SGLang", "SGLang's server, port 30000; the SGLang router can be put in front of it later."],
];

const formOptions: [NonNullable<DeployDraft["serviceForm"]> & string, string, string][] = [
  ["CLUSTER_IP", "Cluster IP", "A ClusterIP Service, reached inside the cluster (and by the chat on the endpoint's page)."],
  ["LOAD_BALANCER", "Load balancer", "An internet-facing Network Load Balancer; the AWS Load Balancer Controller is turned on first when it is off."],
  ["MODEL_POOL", "Model pool", "Warm workers with no Service of their own, handed to businesses one by one without a restart."],
];

const strategies = ["PREFIX_AWARE", "KV_AWARE", "SESSION", "ROUND_ROBIN"] as const;

function DeployEndpointForm({ data, endpointsPath }: { data: FormData; endpointsPath: string }) {
  const { me } = useSession();
  const cluster = data.cluster;
  const groups = data.instanceGroups.edges.map((e) => e.node).filter((g) => g.status !== "DELETED");
  const types = instanceTypeChoices(groups);
  const models = servableModels(data.models.edges.map((e) => e.node));
  const fileSystems = fileSystemChoices(data.storages.edges.map((e) => e.node));
  const accelerators = useGroupAccelerators(cluster.region, groups.map((g) => g.zone));

  const [draft, setDraft] = useState<DeployDraft>(blankDeployDraft);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [attempt, setAttempt] = useState(0);
  const [started, setStarted] = useState<{ op: OperationDetailFragment; name: string } | null>(null);
  const formRef = useFocusFirstError(attempt);
  const key = useRef<string | null>(null);
  const [{ fetching }, deploy] = useMutation(DeployEndpointMutation);
  const headingId = useId();

  const type = types.find((t) => t.instanceType === draft.instanceType);
  const typeAccelerators = type ? accelerators.get(type.instanceType) : undefined;
  const denied = deniedReason(me.role, "OPERATOR") ?? (cluster.status === "ACTIVE" ? undefined : `The cluster is ${cluster.status}: endpoints are deployed only on an ACTIVE cluster.`);
  const clusterPath = `/clusters/${encodeURIComponent(cluster.id)}`;

  const change = (patch: Partial<DeployDraft>, ...paths: string[]) => {
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((e) => paths.reduce((out, p) => clearField(out, p), clearField(e, generalKey)));
  };
  // A model of one source is no model of another: a bucket's name is no path on FSx.
  const changeSource = (modelSource: DeployDraft["modelSource"]) => change({ modelSource, model: "", fsxFileSystemId: "", acceptEula: false }, deployPaths.modelSource, deployPaths.model);
  const changePath = (path: DeployDraft["path"]) => change({ path, model: "" }, deployPaths.path, deployPaths.model);

  const fail = (found: FieldErrors) => {
    setErrors(found);
    setAttempt((n) => n + 1);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateDeploy(draft, typeAccelerators?.count || null);
    if (hasErrors(found)) {
      fail(found);
      return;
    }
    setErrors({});
    key.current ??= newIdempotencyKey();
    const variables = deployVariables(cluster.id, draft, key.current);
    const r = await deploy(variables);
    if (r.data) {
      key.current = null;
      setStarted({ op: r.data.deployEndpoint, name: variables.input.name });
      return;
    }
    if (r.error) fail(r.error.graphQLErrors.length > 0 ? deployServerErrors(r.error.graphQLErrors, draft) : { [generalKey]: errorMessages(r.error) });
  };

  const suggestion = draft.engine ? suggestedImages[draft.engine] : null;
  const bucketModel = modelFromBucket(draft);

  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/clusters">Clusters</Link> / <Link to={clusterPath}>{cluster.name}</Link> / <Link to={endpointsPath}>Endpoints</Link> /
          </p>
          <h1 id={headingId}>Deploy an endpoint</h1>
          <p className="muted">
            Decide what to serve, how, and on how much; InstantStart makes the Deployment, Service, probes and volumes (or the operator's objects),
            and checks the model, the instance type and its GPUs before it makes anything.
          </p>
        </div>
      </div>

      {started && (
        <OperationProgress
          key={started.op.id}
          what={`Deploying ${started.name}`}
          operation={started.op}
          noopMessage={`${started.name} was deployed already.`}
          onDismiss={() => setStarted(null)}
          onSucceeded={(op) => navigate(endpointPath(cluster.id, op.target.id))}
        />
      )}

      <form ref={formRef} className="form" onSubmit={submit} noValidate aria-busy={fetching} aria-labelledby={headingId}>
        <FormErrors title="The endpoint was not deployed" messages={errors[generalKey]} />

        <section className="card form-section" aria-label="What to serve">
          <h2>What to serve</h2>
          <Field path={deployPaths.name} label="Name" errors={errors} hint="Up to 40 lower-case letters, digits and '-', starting with a letter: it names the endpoint's Kubernetes objects.">
            {(props) => <input {...props} type="text" autoComplete="off" spellCheck={false} placeholder="qwen-chat" value={draft.name} onChange={(e) => change({ name: e.target.value }, deployPaths.name)} />}
          </Field>
          <RadioField
            path={deployPaths.path}
            label="Path"
            value={draft.path}
            options={pathOptions}
            errors={errors}
            hint="How it is served. It cannot be changed once deployed."
            onChange={changePath}
          />
          {draft.path === "MANAGED" && (
            <RadioField path={deployPaths.modelSource} label="Model source" value={draft.modelSource} options={sourceOptions} errors={errors} hint="Where the operator loads the model from." onChange={changeSource} />
          )}
          {bucketModel && (
            <Field
              path={deployPaths.model}
              label="Model"
              errors={errors}
              hint={
                models.length === 0 ? (
                  <>
                    The shared bucket has no model ready. <Link to={`${clusterPath}/models`}>Download one on the Models tab</Link>.
                  </>
                ) : (
                  "A model of the shared bucket, ready or put there by hand: replicas load it from /s3/models/<name>, read-only."
                )
              }
            >
              {(props) => (
                <select {...props} value={draft.model} onChange={(e) => change({ model: e.target.value }, deployPaths.model)}>
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
          {draft.path === "MANAGED" && draft.modelSource === "FSX" && (
            <>
              <Field
                path={deployPaths.fsxFileSystemId}
                label="File system"
                errors={errors}
                hint={
                  fileSystems.length === 0 ? (
                    <>
                      The cluster has no FSx for Lustre file system available. <Link to={`${clusterPath}/storage`}>Add one on the Storage tab</Link>.
                    </>
                  ) : (
                    "One of the cluster's FSx for Lustre file systems."
                  )
                }
              >
                {(props) => (
                  <select {...props} value={draft.fsxFileSystemId} onChange={(e) => change({ fsxFileSystemId: e.target.value }, deployPaths.fsxFileSystemId)}>
                    <option value="">Choose a file system</option>
                    {fileSystems.map((f) => (
                      <option key={f.fileSystemId} value={f.fileSystemId}>
                        {f.name} — {f.fileSystemId} ({f.mountPath})
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field path={deployPaths.model} label="Model path" errors={errors} hint="The model's folder on the file system, as an absolute path: for example /models/llama.">
                {(props) => <input {...props} type="text" autoComplete="off" spellCheck={false} placeholder="/models/llama" value={draft.model} onChange={(e) => change({ model: e.target.value }, deployPaths.model)} />}
              </Field>
            </>
          )}
          {draft.path === "MANAGED" && draft.modelSource === "JUMPSTART" && (
            <>
              <Field path={deployPaths.model} label="JumpStart model id" errors={errors} hint="For example meta-textgeneration-llama-3-1-8b-instruct.">
                {(props) => (
                  <input
                    {...props}
                    type="text"
                    autoComplete="off"
                    spellCheck={false}
                    placeholder="meta-textgeneration-llama-3-1-8b-instruct"
                    value={draft.model}
                    onChange={(e) => change({ model: e.target.value }, deployPaths.model)}
                  />
                )}
              </Field>
              <CheckField
                path={deployPaths.acceptEula}
                label="I accept the model's end-user licence agreement"
                hint="Gated models (Llama and others) deploy only once their licence is accepted."
                checked={draft.acceptEula}
                errors={errors}
                onChange={(acceptEula) => change({ acceptEula }, deployPaths.acceptEula)}
              />
            </>
          )}
        </section>

        {draft.path === "SELF_MANAGED" && (
          <section className="card form-section" aria-label="How it is served">
            <h2>How it is served</h2>
            <RadioField
              path={deployPaths.engine}
              label="Engine"
              value={draft.engine}
              options={engineOptions}
              errors={errors}
              hint="The serving program in the container."
              onChange={(engine) => change({ engine }, deployPaths.engine, deployPaths.image)}
            />
            <Field
              path={deployPaths.image}
              label="Image"
              errors={errors}
              hint={
                suggestion ? (
                  <>
                    The serving container's image, pinned to a version: for example <code>{suggestion}</code>.
                  </>
                ) : (
                  "The serving container's image, pinned to a version. Choose the engine for a suggestion."
                )
              }
            >
              {(props) => <input {...props} type="text" autoComplete="off" spellCheck={false} placeholder={suggestion ?? ""} value={draft.image} onChange={(e) => change({ image: e.target.value }, deployPaths.image)} />}
            </Field>
            {suggestion && draft.image.trim() !== suggestion && (
              <p className="field-action">
                <button type="button" className="button" onClick={() => change({ image: suggestion }, deployPaths.image)}>
                  Use {suggestion}
                </button>
              </p>
            )}
            <Field
              path={deployPaths.tensorParallelSize}
              label="Tensor parallel size (optional)"
              errors={errors}
              hint="How many GPUs share one copy of the model; it must divide the GPUs per replica. Empty: all of a replica's GPUs."
            >
              {(props) => (
                <input
                  {...props}
                  type="number"
                  inputMode="numeric"
                  min={1}
                  step={1}
                  placeholder={draft.gpusPerReplica.trim() || "GPUs per replica"}
                  value={draft.tensorParallelSize}
                  onChange={(e) => change({ tensorParallelSize: e.target.value }, deployPaths.tensorParallelSize)}
                />
              )}
            </Field>
            <RadioField
              path={deployPaths.serviceForm}
              label="Service"
              value={draft.serviceForm}
              options={formOptions}
              errors={errors}
              hint="How the endpoint is reached."
              onChange={(serviceForm) => change({ serviceForm }, deployPaths.serviceForm, deployPaths.pool)}
            />
            {draft.serviceForm === "MODEL_POOL" && (
              <Field path={deployPaths.pool} label="Pool (optional)" errors={errors} hint="The workers' model-id label. Empty: the endpoint's name.">
                {(props) => (
                  <input {...props} type="text" autoComplete="off" spellCheck={false} placeholder={draft.name.trim() || "the endpoint's name"} value={draft.pool} onChange={(e) => change({ pool: e.target.value }, deployPaths.pool)} />
                )}
              </Field>
            )}
          </section>
        )}

        {draft.path === "MANAGED" && (
          <section className="card form-section" aria-label="The inference operator's options">
            <h2>The inference operator's options</h2>
            <fieldset className="field" aria-describedby={`${inputId(deployPaths.kvCache)}-hint`}>
              <legend className="label">KV cache</legend>
              <p id={`${inputId(deployPaths.kvCache)}-hint`} className="hint">
                Keeps attention keys and values of earlier requests so that shared prefixes are not computed again.
              </p>
              <FieldErrorList id={`${inputId(deployPaths.kvCache)}-error`} messages={errors[deployPaths.kvCache]} />
              <CheckField path={deployPaths.kvL1} label="L1: in the replicas' memory" checked={draft.kvL1} errors={errors} onChange={(kvL1) => change({ kvL1 }, deployPaths.kvL1, deployPaths.kvCache)} />
              <CheckField path={deployPaths.kvL2} label="L2: a second tier" checked={draft.kvL2} errors={errors} onChange={(kvL2) => change({ kvL2 }, deployPaths.kvL2, deployPaths.kvCache)} />
              {draft.kvL2 && (
                <Field path={deployPaths.kvBackend} label="L2 backend" errors={errors}>
                  {(props) => (
                    <select {...props} value={draft.kvBackend} onChange={(e) => change({ kvBackend: e.target.value as DeployDraft["kvBackend"] }, deployPaths.kvBackend, deployPaths.kvUrl)}>
                      {(["TIERED_STORAGE", "REDIS"] as const).map((b) => (
                        <option key={b} value={b}>
                          {kvBackendWords[b]}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
              )}
              {draft.kvL2 && draft.kvBackend === "REDIS" && (
                <Field path={deployPaths.kvUrl} label="Redis URL" errors={errors} hint="redis://host:port, or rediss:// for TLS.">
                  {(props) => <input {...props} type="text" autoComplete="off" spellCheck={false} placeholder="redis://cache.internal:6379" value={draft.kvUrl} onChange={(e) => change({ kvUrl: e.target.value }, deployPaths.kvUrl)} />}
                </Field>
              )}
            </fieldset>
            <fieldset className="field" aria-describedby={`${inputId(deployPaths.routing)}-hint`}>
              <legend className="label">Intelligent routing</legend>
              <p id={`${inputId(deployPaths.routing)}-hint`} className="hint">
                <strong>It cannot be changed later:</strong> routing and its strategy are fixed for the endpoint's life. To change them, deploy another
                endpoint.
              </p>
              <FieldErrorList id={`${inputId(deployPaths.routing)}-error`} messages={errors[deployPaths.routing]} />
              <CheckField path={deployPaths.routing} label="Route requests by what the replicas hold" checked={draft.routing} errors={{}} onChange={(routing) => change({ routing }, deployPaths.routing, deployPaths.strategy)} />
              {draft.routing && (
                <Field path={deployPaths.strategy} label="Strategy" errors={errors}>
                  {(props) => (
                    <select {...props} value={draft.strategy} onChange={(e) => change({ strategy: e.target.value as DeployDraft["strategy"] }, deployPaths.strategy)}>
                      {strategies.map((s) => (
                        <option key={s} value={s}>
                          {routingStrategyWords[s]}
                          {s === "PREFIX_AWARE" ? " (the operator's default)" : ""}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
              )}
            </fieldset>
            <fieldset className="field" aria-describedby={`${inputId(deployPaths.autoscaling)}-hint`}>
              <legend className="label">Autoscaling bounds (optional)</legend>
              <p id={`${inputId(deployPaths.autoscaling)}-hint`} className="hint">
                The operator scales the replicas between these. Empty: it keeps the replicas asked below.
              </p>
              <FieldErrorList id={`${inputId(deployPaths.autoscaling)}-error`} messages={errors[deployPaths.autoscaling]} />
              <div className="group-grid">
                <Field path={deployPaths.minReplicas} label="Fewest replicas" errors={errors} hint="0 to 100.">
                  {(props) => (
                    <input {...props} type="number" inputMode="numeric" min={0} max={100} step={1} value={draft.minReplicas} onChange={(e) => change({ minReplicas: e.target.value }, deployPaths.minReplicas, deployPaths.autoscaling)} />
                  )}
                </Field>
                <Field path={deployPaths.maxReplicas} label="Most replicas" errors={errors} hint="1 to 100, at least the fewest.">
                  {(props) => (
                    <input {...props} type="number" inputMode="numeric" min={1} max={100} step={1} value={draft.maxReplicas} onChange={(e) => change({ maxReplicas: e.target.value }, deployPaths.maxReplicas, deployPaths.autoscaling)} />
                  )}
                </Field>
              </div>
            </fieldset>
            <Field path={deployPaths.tlsBucket} label="TLS certificate bucket (optional)" errors={errors} hint="The S3 bucket the operator keeps the endpoint's TLS certificate in, without s3://. Empty: the INFERENCE_OPERATOR feature's.">
              {(props) => <input {...props} type="text" autoComplete="off" spellCheck={false} value={draft.tlsBucket} onChange={(e) => change({ tlsBucket: e.target.value }, deployPaths.tlsBucket)} />}
            </Field>
          </section>
        )}

        <section className="card form-section" aria-label="Where it runs">
          <h2>Where it runs</h2>
          <Field path={deployPaths.instanceType} label="Instance type" errors={errors} hint={typeHint(type, typeAccelerators)}>
            {(props) => (
              <select {...props} value={draft.instanceType} onChange={(e) => change({ instanceType: e.target.value }, deployPaths.instanceType, deployPaths.gpusPerReplica)}>
                <option value="">{types.length === 0 ? "The cluster has no instance groups" : "Choose an instance type"}</option>
                {types.map((t) => {
                  const a = accelerators.get(t.instanceType);
                  return (
                    <option key={t.instanceType} value={t.instanceType} disabled={a?.count === 0}>
                      {t.instanceType}
                      {a ? (a.count === 0 ? ", no GPUs" : `, ${a.count} × ${a.name ?? "GPU"}`) : ""} — {t.groups.join(", ")}
                    </option>
                  );
                })}
              </select>
            )}
          </Field>
          <WholeNumberField
            path={deployPaths.replicas}
            label="Replicas"
            errors={errors}
            min={0}
            max={100}
            value={draft.replicas}
            onChange={(v) => change({ replicas: v }, deployPaths.replicas)}
            hint="0 to 100 copies of the server, each on GPUs of one node."
          />
          <Field path={deployPaths.gpusPerReplica} label={needsGpus(draft) ? "GPUs per replica" : "GPUs per replica (optional)"} errors={errors} hint={gpusHint(draft, type, typeAccelerators)}>
            {(props) => (
              <input
                {...props}
                type="number"
                inputMode="numeric"
                min={1}
                max={typeAccelerators?.count || undefined}
                step={1}
                value={draft.gpusPerReplica}
                onChange={(e) => change({ gpusPerReplica: e.target.value }, deployPaths.gpusPerReplica, deployPaths.tensorParallelSize)}
              />
            )}
          </Field>
        </section>

        <div className="form-actions">
          <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={fetching || started !== null}>
            {fetching ? "Deploying…" : "Deploy endpoint"}
          </GuardedButton>
          <Link to={endpointsPath} className="button button-quiet">
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}

function typeHint(type: InstanceTypeChoice | undefined, a: Accelerators | undefined): string {
  if (!type) return "One of the instance types of the cluster's groups, with NVIDIA GPUs.";
  const gpus = a ? (a.count === 0 ? "no GPUs: choose a GPU type" : `${a.count} × ${a.name ?? "GPU"} per node`) : "reading its GPUs…";
  return `${gpus}; groups ${type.groups.join(", ")} hold ${type.nodes} ${type.nodes === 1 ? "node" : "nodes"} of it.`;
}

function gpusHint(draft: DeployDraft, type: InstanceTypeChoice | undefined, a: Accelerators | undefined): string {
  const of = type && a?.count ? `${type.instanceType} has ${a.count} per node: give 1 to ${a.count}.` : type ? "" : "Choose the instance type to see how many it has.";
  if (!needsGpus(draft)) return `Empty: the JumpStart model's server sizes itself. ${of}`.trim();
  return `Required, and never guessed: how many GPUs one replica uses. ${of}`.trim();
}

interface RadioFieldProps<V extends string> {
  path: string;
  label: string;
  value: V | "";
  options: [V, string, string][];
  hint: string;
  errors: FieldErrors;
  onChange: (value: V) => void;
}

function RadioField<V extends string>({ path, label, value, options, hint, errors, onChange }: RadioFieldProps<V>) {
  const name = useId();
  const id = inputId(path);
  const messages = errors[path];
  return (
    <fieldset className="field" aria-describedby={`${id}-hint${messages ? ` ${id}-error` : ""}`}>
      <legend className="label">{label}</legend>
      <div className="choices" id={id}>
        {options.map(([v, words, note], i) => (
          <label key={v} className="choice">
            <input type="radio" name={name} value={v} checked={value === v} aria-invalid={i === 0 && messages ? true : undefined} onChange={() => onChange(v)} />
            <span>
              <span className="strong">{words}</span>
              <span className="hint">{note}</span>
            </span>
          </label>
        ))}
      </div>
      <p id={`${id}-hint`} className="hint">
        {hint}
      </p>
      <FieldErrorList id={`${id}-error`} messages={messages} />
    </fieldset>
  );
}

function CheckField({ path, label, hint, checked, errors, onChange }: { path: string; label: string; hint?: ReactNode; checked: boolean; errors: FieldErrors; onChange: (checked: boolean) => void }) {
  const id = inputId(path);
  const messages = errors[path];
  return (
    <div className="field">
      <label className="check">
        <input
          id={id}
          type="checkbox"
          checked={checked}
          aria-invalid={messages ? true : undefined}
          aria-describedby={[hint ? `${id}-hint` : "", messages ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined}
          onChange={(e) => onChange(e.target.checked)}
        />
        <span>{label}</span>
      </label>
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      <FieldErrorList id={`${id}-error`} messages={messages} />
    </div>
  );
}
