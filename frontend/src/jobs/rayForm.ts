// The RAY recipe's part of the submit form: the script's arguments, the
// runtime environment (pip packages, environment variables) and the
// worker groups, as typed, checked as the server checks them, and turned
// into submitTrainingJob's ray input.
import type { RayProgramInput } from "../gql/graphql";
import { addError, parseWhole, type FieldErrors } from "../ui/fieldErrors";

export interface RayWorkersDraft {
  instanceGroup: string;
  replicas: string;
  /** Empty for all of the instance type's. */
  gpusPerNode: string;
}

export interface RayDraft {
  /** One argument a line. */
  args: string;
  /** One pip requirement a line. */
  pip: string;
  /** One NAME=value a line. */
  env: string;
  workers: RayWorkersDraft[];
}

/** The field paths of the RAY part: the server's, so its errors land there. */
export const rayPaths = {
  args: "input.ray.args",
  pip: "input.ray.pip",
  env: "input.ray.env",
  workerGroups: "input.ray.workerGroups",
} as const;

/** The path of a worker group's field: input.ray.workerGroups[0].replicas. */
export function workerPath(i: number, field: keyof RayWorkersDraft): string {
  return `${rayPaths.workerGroups}[${i}].${field}`;
}

/** The bounds the server holds a Ray program to (schema RayProgramInput). */
export const rayBounds = { args: 64, argBytes: 1024, pip: 64, env: 64, envValueBytes: 4096, workerGroups: 8, nodes: 256 } as const;

/** The variables the recipe sets itself. */
const reserved = new Set(["MAX_STEPS", "CHECKPOINT_STEPS", "CHECKPOINT_DIR", "OUTPUT_DIR", "DATASET_PATH", "FI_PROVIDER", "FI_EFA_USE_DEVICE_RDMA",
  "FI_EFA_FORK_SAFE", "NCCL_SOCKET_IFNAME", "NCCL_DEBUG", "MLFLOW_TRACKING_URI", "MLFLOW_EXPERIMENT_NAME", "MLFLOW_RUN_NAME"]);

const envName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const pipRequirement = /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,-]+\])?([<>=!~]=?[A-Za-z0-9.*+!_-]+(,[<>=!~]=?[A-Za-z0-9.*+!_-]+)*)?$/;

export function blankRayDraft(): RayDraft {
  return { args: "", pip: "", env: "", workers: [] };
}

function lines(text: string): string[] {
  return text.split("\n").map((l) => l.trim()).filter((l) => l !== "");
}

/** The NAME=value lines as variables; a line without '=' has an empty name. */
export function envOf(text: string): { name: string; value: string }[] {
  return lines(text).map((l) => {
    const i = l.indexOf("=");
    return i < 0 ? { name: "", value: l } : { name: l.slice(0, i).trim(), value: l.slice(i + 1) };
  });
}

/** The checks the server makes on a Ray program alone, added to errors. */
export function validateRay(draft: RayDraft, errors: FieldErrors): void {
  const args = lines(draft.args);
  if (args.length > rayBounds.args) addError(errors, rayPaths.args, `Pass at most ${rayBounds.args} arguments, or read a config file of the bucket.`);
  const long = args.findIndex((a) => new TextEncoder().encode(a).length > rayBounds.argBytes);
  if (long >= 0) addError(errors, rayPaths.args, `Argument ${long + 1} is longer than ${rayBounds.argBytes} bytes.`);

  const pip = lines(draft.pip);
  if (pip.length > rayBounds.pip) addError(errors, rayPaths.pip, `Install at most ${rayBounds.pip} packages.`);
  const badPip = pip.find((p) => p.length > 200 || !pipRequirement.test(p));
  if (badPip !== undefined) addError(errors, rayPaths.pip, `"${badPip}" is not a requirement like torch==2.5.1 or transformers>=4.44 (no spaces, URLs or options).`);

  const env = envOf(draft.env);
  if (env.length > rayBounds.env) addError(errors, rayPaths.env, `Set at most ${rayBounds.env} variables.`);
  const seen = new Set<string>();
  for (const e of env) {
    if (!envName.test(e.name)) addError(errors, rayPaths.env, `"${e.name || e.value}" is not NAME=value with a name of letters, digits and '_'.`);
    else if (reserved.has(e.name)) addError(errors, rayPaths.env, `${e.name} is set by the recipe; choose another name.`);
    else if (seen.has(e.name)) addError(errors, rayPaths.env, `${e.name} is given twice.`);
    else if (new TextEncoder().encode(e.value).length > rayBounds.envValueBytes) addError(errors, rayPaths.env, `The value of ${e.name} is longer than ${rayBounds.envValueBytes} bytes.`);
    seen.add(e.name);
  }

  if (draft.workers.length > rayBounds.workerGroups) addError(errors, rayPaths.workerGroups, `Give at most ${rayBounds.workerGroups} worker groups, one per instance group.`);
  const groups = new Set<string>();
  let nodes = 1;
  draft.workers.forEach((w, i) => {
    if (w.instanceGroup === "") addError(errors, workerPath(i, "instanceGroup"), "Choose the workers' instance group.");
    else if (groups.has(w.instanceGroup)) addError(errors, workerPath(i, "instanceGroup"), `${w.instanceGroup} has a worker group already: give each group once.`);
    groups.add(w.instanceGroup);
    const n = parseWhole(w.replicas);
    if (n === null || n < 1 || n > rayBounds.nodes) addError(errors, workerPath(i, "replicas"), `Run 1 to ${rayBounds.nodes} workers.`);
    else nodes += n;
    if (w.gpusPerNode.trim() !== "") {
      const g = parseWhole(w.gpusPerNode);
      if (g === null || g < 1) addError(errors, workerPath(i, "gpusPerNode"), "Use at least 1 GPU per worker, or leave it empty for all.");
    }
  });
  if (nodes > rayBounds.nodes) addError(errors, rayPaths.workerGroups, `The head and the workers are ${nodes} nodes; at most ${rayBounds.nodes}.`);
}

/** The ray input of a draft: only what was given. */
export function rayInput(draft: RayDraft): RayProgramInput {
  const args = lines(draft.args);
  const pip = lines(draft.pip);
  const env = envOf(draft.env);
  return {
    ...(args.length > 0 && { args }),
    ...(pip.length > 0 && { pip }),
    ...(env.length > 0 && { env }),
    ...(draft.workers.length > 0 && {
      workerGroups: draft.workers.map((w) => {
        const gpus = parseWhole(w.gpusPerNode);
        return { instanceGroup: w.instanceGroup, replicas: parseWhole(w.replicas) ?? 1, ...(gpus !== null && { gpusPerNode: gpus }) };
      }),
    }),
  };
}

/** Where a server error about a field of ray belongs, or null for another field. */
export function rayFormKey(field: string): string | null {
  if (!field.startsWith("input.ray")) return null;
  if (/^input\.ray\.workerGroups\[\d+\]\.(instanceGroup|replicas|gpusPerNode)$/.test(field)) return field;
  for (const p of Object.values(rayPaths)) if (field === p || field.startsWith(p + "[")) return p;
  return rayPaths.workerGroups;
}
