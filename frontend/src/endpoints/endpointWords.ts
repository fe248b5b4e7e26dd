// How endpoints are named in words: paths, engines, service forms, model
// sources, statuses, where an endpoint is reached and how many replicas
// serve, and the paths of their pages.

export const pathWords: Record<string, string> = {
  MANAGED: "Managed",
  SELF_MANAGED: "Self-managed",
};

export const engineWords: Record<string, string> = {
  VLLM: "vLLM",
  SGLANG: "SGLang",
};

export const serviceFormWords: Record<string, string> = {
  LOAD_BALANCER: "Load balancer",
  CLUSTER_IP: "Cluster IP",
  MODEL_POOL: "Model pool",
};

export const modelSourceWords: Record<string, string> = {
  BUCKET: "Shared bucket",
  FSX: "FSx for Lustre",
  JUMPSTART: "SageMaker JumpStart",
};

export const routingStrategyWords: Record<string, string> = {
  PREFIX_AWARE: "Prefix-aware: to the replica holding the longest matching prefix",
  KV_AWARE: "KV-aware: by the replicas' KV cache contents",
  SESSION: "Session: the same session to the same replica",
  ROUND_ROBIN: "Round robin: in turn",
};

export const routerPolicyWords: Record<string, string> = {
  CACHE_AWARE: "Cache-aware: prefix matching, the shortest queue when loads diverge",
  ROUND_ROBIN: "Round robin: in turn",
  RANDOM: "Random",
  POWER_OF_TWO: "Power of two: the less busy of two workers picked at random",
};

export const triggerWords: Record<string, string> = {
  REQUESTS_PER_REPLICA: "Requests a second per replica",
  ROUTER_QUEUE: "Router queue length per replica",
};

export const kvBackendWords: Record<string, string> = {
  TIERED_STORAGE: "HyperPod tiered storage on the nodes",
  REDIS: "A Redis server of yours",
};

/** A KV cache backend inside a sentence: "L2 on Redis". */
export const kvBackendShortWords: Record<string, string> = {
  TIERED_STORAGE: "HyperPod tiered storage",
  REDIS: "Redis",
};

export const endpointStatusWords: Record<string, string> = {
  PENDING: "Submitted: its objects are being made.",
  DEPLOYING: "Its objects are made; replicas are starting or loading the model.",
  READY: "Every desired replica is ready.",
  DEGRADED: "Some replicas are ready, not all.",
  SCALED_TO_ZERO: "Scaled to 0 replicas: nothing serves until it is scaled up.",
  FAILED: "It cannot become ready.",
  DELETING: "Its objects are being removed.",
  DELETED: "Its objects are gone; the record stays for history.",
};

/** The statuses in which nothing can be done to an endpoint any more, or not yet again. */
export const goneStatuses: ReadonlySet<string> = new Set(["DELETING", "DELETED"]);

/** What serves an endpoint: "vLLM", "SGLang", or the inference operator for a managed one. */
export function servedBy(e: { path: string; engine?: string | null }): string {
  if (e.path === "MANAGED") return "Inference operator";
  return e.engine ? (engineWords[e.engine] ?? e.engine) : "—";
}

/** "1/2", the replicas ready of those desired. */
export function replicasWords(e: { readyReplicas: number; replicas: number }): string {
  return `${e.readyReplicas}/${e.replicas}`;
}

/**
 * What deleting an endpoint deletes: the operator's resource and what it
 * made for a managed one; else the Deployment, its Services and, when
 * there are any, the SGLang router and the ScaledObject.
 */
export function deletedObjectsWords(e: { path: string; object: string; router?: object | null; autoscaling?: { trigger: string | null } | null }): string {
  if (e.path === "MANAGED") return `the operator's ${e.object.split("/")[0]} and what it made`;
  return `the Deployment, its Services${e.router ? ", the SGLang router" : ""}${e.autoscaling?.trigger ? " and the ScaledObject" : ""}`;
}

interface AddressLike {
  kind: string;
  host?: string | null;
  port?: number | null;
  service?: string | null;
}

/**
 * Where an endpoint is reached, as one line: host:port, or why there is no
 * host (a load balancer still being made, a pool whose businesses each have
 * their own Service).
 */
export function addressWords(a: AddressLike | null | undefined): string {
  if (!a) return "—";
  if (a.host) return a.port ? `${a.host}:${a.port}` : a.host;
  if (a.kind === "POOL") return "per business (a Service each)";
  if (a.kind === "LOAD_BALANCER") return "load balancer being made";
  return "—";
}

/** The URL of an OpenAI-compatible server at address, when it has a host: http://host:port/v1. */
export function openAiBase(a: AddressLike | null | undefined): string | null {
  if (!a?.host) return null;
  return `http://${a.host}${a.port ? `:${a.port}` : ""}/v1`;
}

/** The path of an endpoint's page. */
export function endpointPath(clusterId: string, endpointId: string): string {
  return `/clusters/${encodeURIComponent(clusterId)}/endpoints/${encodeURIComponent(endpointId)}`;
}

/** The path of the deploy form of a cluster. */
export function deployEndpointPath(clusterId: string): string {
  return `/clusters/${encodeURIComponent(clusterId)}/endpoints/new`;
}
