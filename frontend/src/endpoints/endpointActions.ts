// What the endpoint page can change, and how each change is checked and
// sent: the replicas and image (updateEndpoint, only what differs), KEDA
// autoscaling of a self-managed endpoint (setEndpointAutoscaling), a
// managed endpoint's bounds (updateEndpoint), the SGLang router
// (deployRouter) and a pool worker's business (assignPoolWorker).
import type { AutoscalingTrigger, EndpointAutoscalingInput, RouterPolicy, UpdateEndpointInput } from "../gql/graphql";
import { addError, generalKey, parseWhole, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";
import { endpointNameProblem, imageProblem, replicasProblem, validateBounds } from "./endpointForm";

/** The parts of an endpoint the controls read. */
export interface EndpointLike {
  path: string;
  engine?: string | null;
  serviceForm?: string | null;
  modelSource: string;
  pool?: string | null;
  image?: string | null;
  replicas: number;
  router?: { policy: string } | null;
  autoscaling?: { minReplicas: number; maxReplicas: number; trigger?: string | null; target?: number | null } | null;
}

/** Sorts errors onto the fields of one of the page's forms: shown names the field paths it has. */
function formErrors(errors: readonly ServerError[], shown: readonly string[]): FieldErrors {
  return sortServerErrors(errors, (field) => (shown.includes(field) ? field : generalKey));
}

// Replicas and image.

export interface UpdateDraft {
  replicas: string;
  image: string;
}

export const updatePaths = { replicas: "input.replicas", image: "input.image" } as const;

export function updateDraftOf(e: EndpointLike): UpdateDraft {
  return { replicas: String(e.replicas), image: e.image ?? "" };
}

/** Whether the endpoint's image can be changed: a JumpStart model runs the image JumpStart gives it. */
export function imageEditable(e: EndpointLike): boolean {
  return !(e.path === "MANAGED" && e.modelSource === "JUMPSTART");
}

/** Whether KEDA scales the endpoint, so that its replicas are KEDA's to set. */
export function kedaScales(e: EndpointLike): boolean {
  return e.autoscaling?.trigger != null;
}

/** The updateEndpoint input of a draft: only what differs from the endpoint. */
export function updateInput(e: EndpointLike, d: UpdateDraft): UpdateEndpointInput {
  const input: UpdateEndpointInput = {};
  const replicas = parseWhole(d.replicas);
  if (replicas !== null && replicas !== e.replicas) input.replicas = replicas;
  const image = d.image.trim();
  if (imageEditable(e) && image !== (e.image ?? "")) input.image = image;
  return input;
}

export function validateUpdate(e: EndpointLike, d: UpdateDraft): FieldErrors {
  const errors: FieldErrors = {};
  const replicas = replicasProblem(d.replicas);
  if (replicas) addError(errors, updatePaths.replicas, replicas);
  else if (kedaScales(e) && parseWhole(d.replicas) !== e.replicas) {
    addError(errors, updatePaths.replicas, "KEDA scales this endpoint: change its bounds under Autoscaling instead.");
  }
  const image = d.image.trim();
  if (imageEditable(e) && image !== (e.image ?? "")) {
    const p = imageProblem(image);
    if (p) addError(errors, updatePaths.image, p);
  }
  return errors;
}

export function updateServerErrors(errors: readonly ServerError[]): FieldErrors {
  return formErrors(errors, Object.values(updatePaths));
}

// KEDA autoscaling of a self-managed endpoint.

export interface KedaDraft {
  min: string;
  max: string;
  trigger: AutoscalingTrigger | "";
  /** Empty for the server's default: 10 requests a second, or a queue of 4. */
  target: string;
}

export const kedaPaths = { min: "input.minReplicas", max: "input.maxReplicas", trigger: "input.trigger", target: "input.target" } as const;

/** The value per replica KEDA aims at when none is given (schema EndpointAutoscalingInput). */
export const targetDefaults: Record<AutoscalingTrigger, number> = { REQUESTS_PER_REPLICA: 10, ROUTER_QUEUE: 4 };

const maxTarget = 1e6;

/** The draft of the endpoint's KEDA autoscaling, or a blank one. */
export function kedaDraftOf(e: EndpointLike): KedaDraft {
  const a = e.autoscaling;
  if (!a?.trigger) return { min: "", max: "", trigger: "", target: "" };
  return { min: String(a.minReplicas), max: String(a.maxReplicas), trigger: a.trigger as AutoscalingTrigger, target: a.target != null ? String(a.target) : "" };
}

export function validateKeda(d: KedaDraft, hasRouter: boolean): FieldErrors {
  const errors = validateBounds(d.min, d.max, { min: kedaPaths.min, max: kedaPaths.max }, true);
  if (d.trigger === "") addError(errors, kedaPaths.trigger, "Choose what KEDA scales on.");
  else if (d.trigger === "ROUTER_QUEUE" && !hasRouter) addError(errors, kedaPaths.trigger, "The router's queue needs the SGLang router: deploy it first, or scale on requests.");
  const t = d.target.trim();
  if (t !== "") {
    const n = Number(t);
    if (!Number.isFinite(n) || n <= 0 || n > maxTarget) addError(errors, kedaPaths.target, "The target is a number above 0, or empty for the default.");
  }
  return errors;
}

export function kedaInput(d: KedaDraft): EndpointAutoscalingInput {
  const input: EndpointAutoscalingInput = { minReplicas: parseWhole(d.min) ?? 0, maxReplicas: parseWhole(d.max) ?? 1, trigger: d.trigger as AutoscalingTrigger };
  if (d.target.trim() !== "") input.target = Number(d.target.trim());
  return input;
}

export function kedaServerErrors(errors: readonly ServerError[]): FieldErrors {
  return formErrors(errors, Object.values(kedaPaths));
}

// A managed endpoint's bounds.

export interface BoundsDraft {
  min: string;
  max: string;
}

export const boundsPaths = { bounds: "input.autoscaling", min: "input.autoscaling.minReplicas", max: "input.autoscaling.maxReplicas" } as const;

export function boundsDraftOf(e: EndpointLike): BoundsDraft {
  const a = e.autoscaling;
  return a && !a.trigger ? { min: String(a.minReplicas), max: String(a.maxReplicas) } : { min: "", max: "" };
}

export function validateManagedBounds(d: BoundsDraft): FieldErrors {
  return validateBounds(d.min, d.max, { min: boundsPaths.min, max: boundsPaths.max }, true);
}

export function boundsInput(d: BoundsDraft): UpdateEndpointInput {
  return { autoscaling: { minReplicas: parseWhole(d.min) ?? 0, maxReplicas: parseWhole(d.max) ?? 1 } };
}

/** Whether the bounds differ from those the endpoint has. */
export function boundsChanged(e: EndpointLike, d: BoundsDraft): boolean {
  const now = boundsDraftOf(e);
  return now.min !== d.min.trim() || now.max !== d.max.trim();
}

export function boundsServerErrors(errors: readonly ServerError[]): FieldErrors {
  return formErrors(errors, Object.values(boundsPaths));
}

// The SGLang router.

export const routerPolicies: readonly RouterPolicy[] = ["CACHE_AWARE", "ROUND_ROBIN", "RANDOM", "POWER_OF_TWO"];

/** The router's own default policy. */
export const defaultPolicy: RouterPolicy = "CACHE_AWARE";

/**
 * Why the endpoint takes no SGLang router, or null when it does: only
 * SGLang workers, and not a pool's (each business has its own Service).
 */
export function routerRefusal(e: EndpointLike): string | null {
  if (e.path !== "SELF_MANAGED" || e.engine !== "SGLANG") return "The SGLang router routes to SGLang workers: it is for self-managed SGLang endpoints.";
  if (e.serviceForm === "MODEL_POOL") return "A pool's businesses each have their own Service: a router over the whole pool would mix them.";
  return null;
}

// Pool workers.

/** The business of a pool worker that serves none. */
export const unassigned = "unassigned";

/** What is wrong with a business to hand a worker of pool to, or null. */
export function businessProblem(pool: string, business: string): string | null {
  const p = endpointNameProblem(business, "the business");
  if (p) return p;
  if (pool.length + 1 + business.length > 63) return `The Service ${pool}-${business} would be over 63 characters: use a shorter business name.`;
  return null;
}

/** The businesses pool workers serve now, in order, without unassigned. */
export function poolBusinesses(pods: readonly { business?: string | null }[]): string[] {
  return [...new Set(pods.map((p) => p.business).filter((b): b is string => !!b && b !== unassigned))].sort();
}
