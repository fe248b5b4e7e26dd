// The "Deploy an endpoint" form: its draft, the checks the server makes
// before it looks at the cluster (mirrored, so a mistake shows at its field
// before sending), the deployEndpoint variables, and where the server's
// errors go. It asks only decisions: the GPUs per replica above all, which
// are never guessed; the Deployment, Services, probes, volumes and the
// operator's objects are the server's to derive.
import type {
  DeployEndpointInput,
  DeployEndpointMutationVariables,
  EndpointModelSource,
  EndpointPath,
  KvCacheBackend,
  RoutingStrategy,
  ServiceForm,
  ServingEngine,
} from "../gql/graphql";
import { addError, generalKey, parseWhole, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";

export interface DeployDraft {
  name: string;
  path: EndpointPath | "";
  /** A model of the bucket (BUCKET, every self-managed endpoint), a path on the file system (FSX) or a JumpStart model id. */
  model: string;
  /** Managed: where the model comes from. */
  modelSource: EndpointModelSource;
  fsxFileSystemId: string;
  acceptEula: boolean;
  instanceType: string;
  replicas: string;
  /** Required (but for JUMPSTART) and never filled in for the user. */
  gpusPerReplica: string;
  engine: ServingEngine | "";
  image: string;
  /** Empty for gpusPerReplica. */
  tensorParallelSize: string;
  serviceForm: ServiceForm | "";
  /** MODEL_POOL: empty for the endpoint's name. */
  pool: string;
  kvL1: boolean;
  kvL2: boolean;
  kvBackend: KvCacheBackend;
  kvUrl: string;
  routing: boolean;
  strategy: RoutingStrategy;
  minReplicas: string;
  maxReplicas: string;
  tlsBucket: string;
}

/** The field paths of the form: the server's, so its errors land at the same fields. */
export const deployPaths = {
  name: "input.name",
  path: "input.path",
  model: "input.model",
  modelSource: "input.modelSource",
  fsxFileSystemId: "input.fsxFileSystemId",
  acceptEula: "input.acceptEula",
  instanceType: "input.instanceType",
  replicas: "input.replicas",
  gpusPerReplica: "input.gpusPerReplica",
  engine: "input.engine",
  image: "input.image",
  tensorParallelSize: "input.tensorParallelSize",
  serviceForm: "input.serviceForm",
  pool: "input.pool",
  kvCache: "input.kvCache",
  kvL1: "input.kvCache.l1",
  kvL2: "input.kvCache.l2",
  kvBackend: "input.kvCache.l2Backend",
  kvUrl: "input.kvCache.l2Url",
  routing: "input.intelligentRouting",
  strategy: "input.intelligentRouting.strategy",
  autoscaling: "input.autoscaling",
  minReplicas: "input.autoscaling.minReplicas",
  maxReplicas: "input.autoscaling.maxReplicas",
  tlsBucket: "input.tlsCertificateBucket",
} as const;

/**
 * Images to offer for each engine, pinned. They are only suggested: the
 * form shows them and fills one in when asked to, never by itself.
 */
export const suggestedImages: Record<ServingEngine, string> = {
  VLLM: "vllm/vllm-openai:v0.10.1",
  SGLANG: "lmsysorg/sglang:v0.5.3-cu126",
};

/** What a managed endpoint's KV cache is when none is asked (schema KVCacheInput). */
export const kvDefaults = { l1: true, l2: false, backend: "TIERED_STORAGE" } as const;

/** The inference operator's routing strategy when none is asked. */
export const defaultStrategy: RoutingStrategy = "PREFIX_AWARE";

export function blankDeployDraft(): DeployDraft {
  return {
    name: "",
    path: "",
    model: "",
    modelSource: "BUCKET",
    fsxFileSystemId: "",
    acceptEula: false,
    instanceType: "",
    replicas: "1",
    gpusPerReplica: "",
    engine: "",
    image: "",
    tensorParallelSize: "",
    serviceForm: "",
    pool: "",
    kvL1: kvDefaults.l1,
    kvL2: kvDefaults.l2,
    kvBackend: kvDefaults.backend,
    kvUrl: "",
    routing: false,
    strategy: defaultStrategy,
    minReplicas: "",
    maxReplicas: "",
    tlsBucket: "",
  };
}

const namePattern = /^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$/;
const maxNameLength = 40;
const maxReplicas = 100;
const maxImageLength = 512;
const bucketModelPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const imagePattern = /^[a-z0-9]([a-z0-9._/:@-]*[a-zA-Z0-9_.-])?$/;
const fsxPathPattern = /^\/[A-Za-z0-9._/-]{1,255}$/;
const jumpStartPattern = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const redisUrlPattern = /^rediss?:\/\/[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$/;
const bucketPattern = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** What is wrong with a name for an endpoint (or a pool, or a business), or null. */
export function endpointNameProblem(name: string, what = "the endpoint"): string | null {
  if (name === "") return `Name ${what}: it names its Kubernetes objects.`;
  if (name.length > maxNameLength) return `"${name.slice(0, 20)}…" is ${name.length} characters long; a name has at most ${maxNameLength}.`;
  if (!namePattern.test(name)) return `"${name}" must be lower-case letters, digits and '-', starting with a letter and not ending with '-'.`;
  return null;
}

/** What is wrong with a container image reference, or null. */
export function imageProblem(image: string): string | null {
  if (image === "") return "Give the serving container's image.";
  if (image.length > maxImageLength) return `An image reference has at most ${maxImageLength} characters.`;
  if (!imagePattern.test(image)) return `"${image}" is not a container image reference: registry/repository:tag, for example ${suggestedImages.VLLM}.`;
  return null;
}

/** What is wrong with a replica count, or null. */
export function replicasProblem(text: string): string | null {
  const n = parseWhole(text);
  return n === null || n < 0 || n > maxReplicas ? `Run 0 to ${maxReplicas} replicas.` : null;
}

/** The divisors of n, as the tensor parallel sizes a replica of n GPUs can take. */
export function divisors(n: number): number[] {
  const out: number[] = [];
  for (let i = 1; i <= n; i++) if (n % i === 0) out.push(i);
  return out;
}

/** Whether the draft's model comes from the bucket (a name from models). */
export function modelFromBucket(draft: Pick<DeployDraft, "path" | "modelSource">): boolean {
  return draft.path === "SELF_MANAGED" || (draft.path === "MANAGED" && draft.modelSource === "BUCKET");
}

/** Whether the draft needs its GPUs per replica: every endpoint but a JumpStart model, whose server sizes itself. */
export function needsGpus(draft: Pick<DeployDraft, "path" | "modelSource">): boolean {
  return !(draft.path === "MANAGED" && draft.modelSource === "JUMPSTART");
}

/** The checks on managed autoscaling bounds, both given or neither. */
function boundsErrors(errors: FieldErrors, minText: string, maxText: string, paths: { min: string; max: string }): void {
  if (minText.trim() === "" && maxText.trim() === "") return;
  const min = parseWhole(minText);
  const max = parseWhole(maxText);
  if (min === null || min < 0 || min > maxReplicas) addError(errors, paths.min, `Give the fewest replicas, 0 to ${maxReplicas}.`);
  if (max === null || max < 1 || max > maxReplicas) addError(errors, paths.max, `Give the most replicas, 1 to ${maxReplicas}.`);
  else if (min !== null && min >= 0 && min > max) addError(errors, paths.max, `The most replicas (${max}) is below the fewest (${min}).`);
}

/** The bounds checks, for the endpoint page's autoscaling forms too. */
export function validateBounds(minText: string, maxText: string, paths: { min: string; max: string }, required: boolean): FieldErrors {
  const errors: FieldErrors = {};
  if (required && minText.trim() === "" && maxText.trim() === "") {
    addError(errors, paths.min, `Give the fewest replicas, 0 to ${maxReplicas}.`);
    addError(errors, paths.max, `Give the most replicas, 1 to ${maxReplicas}.`);
    return errors;
  }
  boundsErrors(errors, minText, maxText, paths);
  return errors;
}

/**
 * The checks the server makes on the request alone; accelerators is the
 * instance type's GPUs, when known.
 */
export function validateDeploy(draft: DeployDraft, accelerators: number | null): FieldErrors {
  const errors: FieldErrors = {};
  const nameProblem = endpointNameProblem(draft.name.trim());
  if (nameProblem) addError(errors, deployPaths.name, nameProblem);
  if (draft.path === "") addError(errors, deployPaths.path, "Choose how the endpoint is served: managed by the inference operator, or self-managed.");
  if (draft.instanceType === "") addError(errors, deployPaths.instanceType, "Choose the instance type the replicas run on.");
  const replicas = replicasProblem(draft.replicas);
  if (replicas) addError(errors, deployPaths.replicas, replicas);

  const gpus = parseWhole(draft.gpusPerReplica);
  const gpusText = draft.gpusPerReplica.trim();
  const most = accelerators ?? Number.POSITIVE_INFINITY;
  if (needsGpus(draft) || gpusText !== "") {
    if (gpus === null || gpus < 1 || gpus > most) {
      const range = accelerators ? `1 to ${accelerators}` : "at least 1";
      const has = accelerators ? ` ${draft.instanceType} has ${accelerators}.` : "";
      addError(errors, deployPaths.gpusPerReplica, gpusText === "" ? `Give the GPUs each replica uses, ${range}: they are never guessed.${has}` : `Use ${range} GPUs per replica.${has}`);
    }
  }

  const model = draft.model.trim();
  if (draft.path === "SELF_MANAGED") {
    if (draft.engine === "") addError(errors, deployPaths.engine, "Choose the serving engine: vLLM or SGLang.");
    const image = imageProblem(draft.image.trim());
    if (image) addError(errors, deployPaths.image, draft.image.trim() === "" && draft.engine !== "" ? `Give the serving container's image, for example ${suggestedImages[draft.engine]}.` : image);
    if (draft.serviceForm === "") addError(errors, deployPaths.serviceForm, "Choose how the endpoint is reached.");
    if (model === "") addError(errors, deployPaths.model, "Choose the model to serve: one of the shared bucket's, downloaded on the Models tab.");
    else if (!bucketModelPattern.test(model)) addError(errors, deployPaths.model, `"${model}" is not a model of the bucket.`);
    const tpText = draft.tensorParallelSize.trim();
    if (tpText !== "") {
      const tp = parseWhole(tpText);
      if (tp === null || tp < 1) addError(errors, deployPaths.tensorParallelSize, "The tensor parallel size is a whole number from 1, or empty for the GPUs per replica.");
      else if (gpus !== null && gpus >= 1 && gpus % tp !== 0) {
        addError(errors, deployPaths.tensorParallelSize, `${tp} does not divide the ${gpus} GPUs of a replica: use ${divisors(gpus).join(", ")}.`);
      }
    }
    if (draft.serviceForm === "MODEL_POOL" && draft.pool.trim() !== "") {
      const p = endpointNameProblem(draft.pool.trim(), "the pool");
      if (p) addError(errors, deployPaths.pool, p);
    }
  }

  if (draft.path === "MANAGED") {
    switch (draft.modelSource) {
      case "BUCKET":
        if (model === "") addError(errors, deployPaths.model, "Choose the model to serve: one of the shared bucket's, downloaded on the Models tab.");
        else if (!bucketModelPattern.test(model)) addError(errors, deployPaths.model, `"${model}" is not a model of the bucket.`);
        break;
      case "FSX":
        if (draft.fsxFileSystemId === "") addError(errors, deployPaths.fsxFileSystemId, "Choose the FSx for Lustre file system that holds the model.");
        if (model === "") addError(errors, deployPaths.model, "Give the model's path on the file system, for example /models/llama.");
        else if (!fsxPathPattern.test(model) || model.includes("..")) addError(errors, deployPaths.model, `"${model}" is not a path on the file system: give an absolute path such as /models/llama.`);
        break;
      case "JUMPSTART":
        if (model === "") addError(errors, deployPaths.model, "Give the JumpStart model id, for example meta-textgeneration-llama-3-1-8b-instruct.");
        else if (!jumpStartPattern.test(model)) addError(errors, deployPaths.model, `"${model}" is not a JumpStart model id: lower-case letters, digits, '.', '_' and '-'.`);
        break;
    }
    if (draft.kvL2 && draft.kvBackend === "REDIS" && !redisUrlPattern.test(draft.kvUrl.trim())) {
      addError(errors, deployPaths.kvUrl, "Give the Redis server's address: redis://host:port (rediss:// for TLS).");
    }
    boundsErrors(errors, draft.minReplicas, draft.maxReplicas, { min: deployPaths.minReplicas, max: deployPaths.maxReplicas });
    const tls = draft.tlsBucket.trim();
    if (tls !== "" && !bucketPattern.test(tls)) addError(errors, deployPaths.tlsBucket, `"${tls}" is not an S3 bucket name: 3-63 lower-case letters, digits, dots and hyphens, without s3://.`);
  }
  return errors;
}

/**
 * The deployEndpoint variables of a draft: for a self-managed endpoint its
 * engine, image, service form, and the tensor parallel size and pool only
 * when given; for a managed one its model source, and the KV cache,
 * routing, bounds and TLS bucket only as far as they differ from the
 * defaults. The GPUs always, but for a JumpStart model left to size itself.
 */
export function deployVariables(clusterId: string, draft: DeployDraft, idempotencyKey: string): DeployEndpointMutationVariables {
  const gpus = parseWhole(draft.gpusPerReplica);
  const input: DeployEndpointInput = {
    clusterId,
    name: draft.name.trim(),
    path: draft.path as EndpointPath,
    model: draft.model.trim(),
    instanceType: draft.instanceType,
    replicas: parseWhole(draft.replicas) ?? 1,
    ...(gpus !== null && { gpusPerReplica: gpus }),
  };
  if (draft.path === "SELF_MANAGED") {
    input.engine = draft.engine as ServingEngine;
    input.image = draft.image.trim();
    input.serviceForm = draft.serviceForm as ServiceForm;
    const tp = parseWhole(draft.tensorParallelSize);
    if (tp !== null) input.tensorParallelSize = tp;
    if (draft.serviceForm === "MODEL_POOL" && draft.pool.trim() !== "") input.pool = draft.pool.trim();
    return { input, idempotencyKey };
  }
  input.modelSource = draft.modelSource;
  if (draft.modelSource === "FSX") input.fsxFileSystemId = draft.fsxFileSystemId;
  if (draft.modelSource === "JUMPSTART" && draft.acceptEula) input.acceptEula = true;
  if (draft.kvL1 !== kvDefaults.l1 || draft.kvL2 !== kvDefaults.l2) {
    input.kvCache = { l1: draft.kvL1, l2: draft.kvL2 };
    if (draft.kvL2) {
      input.kvCache.l2Backend = draft.kvBackend;
      if (draft.kvBackend === "REDIS") input.kvCache.l2Url = draft.kvUrl.trim();
    }
  }
  if (draft.routing) input.intelligentRouting = { enabled: true, strategy: draft.strategy };
  const min = parseWhole(draft.minReplicas);
  const max = parseWhole(draft.maxReplicas);
  if (min !== null && max !== null) input.autoscaling = { minReplicas: min, maxReplicas: max };
  if (draft.tlsBucket.trim() !== "") input.tlsCertificateBucket = draft.tlsBucket.trim();
  return { input, idempotencyKey };
}

/** The fields the form shows for a draft: an error about any other goes to the top. */
export function shownPaths(draft: DeployDraft): Set<string> {
  const shown = new Set<string>([deployPaths.name, deployPaths.path, deployPaths.instanceType, deployPaths.replicas, deployPaths.gpusPerReplica]);
  if (draft.path === "") return shown;
  shown.add(deployPaths.model);
  if (draft.path === "SELF_MANAGED") {
    for (const p of [deployPaths.engine, deployPaths.image, deployPaths.tensorParallelSize, deployPaths.serviceForm]) shown.add(p);
    if (draft.serviceForm === "MODEL_POOL") shown.add(deployPaths.pool);
    return shown;
  }
  for (const p of [deployPaths.modelSource, deployPaths.kvCache, deployPaths.kvL1, deployPaths.kvL2, deployPaths.routing, deployPaths.autoscaling, deployPaths.minReplicas, deployPaths.maxReplicas, deployPaths.tlsBucket]) {
    shown.add(p);
  }
  if (draft.modelSource === "FSX") shown.add(deployPaths.fsxFileSystemId);
  if (draft.modelSource === "JUMPSTART") shown.add(deployPaths.acceptEula);
  if (draft.kvL2) shown.add(deployPaths.kvBackend);
  if (draft.kvL2 && draft.kvBackend === "REDIS") shown.add(deployPaths.kvUrl);
  if (draft.routing) shown.add(deployPaths.strategy);
  return shown;
}

/**
 * Where a server error about field belongs: at that field when the form
 * shows it, else at the nearest field it shows that holds it
 * (input.kvCache.l2Backend at the KV cache while L2 is off), else at the
 * top, where it names its field.
 */
export function deployFormKey(field: string, draft: DeployDraft): string {
  const shown = shownPaths(draft);
  for (let f = field.replace(/\[\d+\]/g, ""); f.startsWith("input."); f = f.slice(0, f.lastIndexOf("."))) {
    if (shown.has(f)) return f;
  }
  return generalKey;
}

/** Sorts the server's errors onto the form's fields. */
export function deployServerErrors(errors: readonly ServerError[], draft: DeployDraft): FieldErrors {
  return sortServerErrors(errors, (field) => deployFormKey(field, draft));
}

/** An instance type the cluster's groups run, with the groups that run it. */
export interface InstanceTypeChoice {
  instanceType: string;
  groups: string[];
  /** The nodes those groups hold now. */
  nodes: number;
}

/** The instance types of the cluster's groups (none DELETED), in the order of their first group. */
export function instanceTypeChoices(groups: readonly { name: string; instanceType: string; status: string; currentCount: number }[]): InstanceTypeChoice[] {
  const byType = new Map<string, InstanceTypeChoice>();
  for (const g of groups) {
    if (g.status === "DELETED") continue;
    const c = byType.get(g.instanceType) ?? { instanceType: g.instanceType, groups: [], nodes: 0 };
    c.groups.push(g.name);
    c.nodes += g.currentCount;
    byType.set(g.instanceType, c);
  }
  return [...byType.values()];
}

/** An FSx for Lustre file system a managed endpoint can load its model from. */
export interface FileSystemChoice {
  fileSystemId: string;
  name: string;
  mountPath: string;
}

/** The cluster's FSx for Lustre file systems that pods can mount now, with their ids. */
export function fileSystemChoices(
  storages: readonly { kind: string; status: string; mountPath: string; fsx?: { name: string; fileSystemId?: string | null } | null }[],
): FileSystemChoice[] {
  const out: FileSystemChoice[] = [];
  for (const s of storages) {
    if (s.kind !== "FSX_LUSTRE" || s.status !== "AVAILABLE" || !s.fsx?.fileSystemId) continue;
    out.push({ fileSystemId: s.fsx.fileSystemId, name: s.fsx.name, mountPath: s.mountPath });
  }
  return out;
}

/** The models an endpoint can load: those ready, or put in the bucket by hand. */
export function servableModels<T extends { status: string }>(models: readonly T[]): T[] {
  return models.filter((m) => m.status === "READY" || m.status === "PRESENT");
}
