// The "Submit a training job" form: its draft, the checks the server
// makes before it looks at the cluster (mirrored, so a mistake shows at its
// field before sending), the submitTrainingJob variables, and where the
// server's errors go. It asks only decisions: processes, EFA, volumes,
// paths and the restart policy are the server's to derive.
import type { Checkpointing, SubmitTrainingJobMutationVariables, TrainingRecipe } from "../gql/graphql";
import { addError, generalKey, parseWhole, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";
import { blankRayDraft, rayFormKey, rayInput, validateRay, type RayDraft } from "./rayForm";
import { settingPath, settingProblem, settingsToSend, type SettingInfo } from "./recipeSettings";

export interface RecoveryDraft {
  maxRestarts: string;
  windowSeconds: string;
  maxFullJobRestarts: string;
  restartsBeforeFullJobRestart: string;
  detectHangs: boolean;
}

export interface SubmitDraft {
  name: string;
  recipe: TrainingRecipe | "";
  model: string;
  script: string;
  datasetPath: string;
  instanceGroup: string;
  nodes: string;
  /** Empty for all of the instance type's. */
  gpusPerNode: string;
  /** The recipe's settings by key, as typed (defaults to start). */
  settings: Record<string, string>;
  recovery: RecoveryDraft;
  experiment: string;
  /** Where checkpoints go: S3 (the default) or TIERED. */
  checkpointing: Checkpointing;
  /** For RAY: arguments, runtime environment and worker groups. */
  ray: RayDraft;
}

/** The field paths of the form: the server's, so its errors land at the same fields. */
export const submitPaths = {
  name: "input.name",
  recipe: "input.recipe",
  model: "input.model",
  script: "input.script",
  datasetPath: "input.datasetPath",
  instanceGroup: "input.instanceGroup",
  nodes: "input.nodes",
  gpusPerNode: "input.gpusPerNode",
  settings: "input.settings",
  maxRestarts: "input.recovery.maxRestarts",
  windowSeconds: "input.recovery.windowSeconds",
  maxFullJobRestarts: "input.recovery.maxFullJobRestarts",
  restartsBeforeFullJobRestart: "input.recovery.restartsBeforeFullJobRestart",
  detectHangs: "input.recovery.detectHangs",
  experiment: "input.experiment",
  checkpointing: "input.checkpointing",
} as const;

/** The recovery the server takes when none is given (the HyperPod training operator's usual). */
export const recoveryDefaults = { maxRestarts: 5, windowSeconds: 21600, maxFullJobRestarts: 1, restartsBeforeFullJobRestart: 3, detectHangs: true } as const;

/** Each recovery number's bounds (schema RecoveryInput). */
const recoveryBounds = {
  maxRestarts: [0, 100, "restarts in all"],
  windowSeconds: [60, 604800, "seconds"],
  maxFullJobRestarts: [0, 20, "full job restarts per window"],
  restartsBeforeFullJobRestart: [0, 20, "restarts before a full job restart"],
} as const;

type RecoveryNumber = keyof typeof recoveryBounds;
const recoveryNumbers = Object.keys(recoveryBounds) as RecoveryNumber[];

export function blankSubmitDraft(): SubmitDraft {
  return {
    name: "",
    recipe: "",
    model: "",
    script: "",
    datasetPath: "",
    instanceGroup: "",
    nodes: "1",
    gpusPerNode: "",
    settings: {},
    recovery: { maxRestarts: "", windowSeconds: "", maxFullJobRestarts: "", restartsBeforeFullJobRestart: "", detectHangs: true },
    experiment: "",
    checkpointing: "S3",
    ray: blankRayDraft(),
  };
}

/** The recipe as the form needs it. */
export interface RecipeChoice {
  recipe: TrainingRecipe;
  needsModel: boolean;
  settings: readonly SettingInfo[];
}

/** Whether a recipe runs the user's own script (and takes no model). */
export function takesScript(recipe: TrainingRecipe | ""): boolean {
  return recipe === "PYTORCH" || recipe === "RAY";
}

const namePattern = /^[a-z]([a-z0-9-]*[a-z0-9])?$/;
const maxNameLength = 40;
const maxNodes = 256;
const maxExperimentLength = 200;

/** What is wrong with a job's name, or null. */
export function jobNameProblem(name: string): string | null {
  if (name === "") return "Name the job: it is the name of its Kubernetes object and of its output folder, outputs/<name>/.";
  if (name.length > maxNameLength) return `"${name.slice(0, 20)}…" is ${name.length} characters long; a job's name has at most ${maxNameLength}.`;
  if (!namePattern.test(name)) return `"${name}" must be lower-case letters, digits and '-', starting with a letter and not ending with '-'.`;
  return null;
}

/** What is wrong with a path in the shared bucket that must be under folder (datasets/, say), or null. */
function bucketPathProblem(path: string, folder: string, what: string, example: string): string | null {
  if (path === "") return `Give the ${what}'s path in the shared bucket, for example ${example}.`;
  if (path.startsWith("s3://") || path.startsWith("/")) return `Give the path inside the shared bucket, without s3:// or a leading '/': for example ${example}.`;
  if (folder && (!path.startsWith(folder) || path === folder)) return `The ${what} is under ${folder} of the shared bucket: for example ${example}.`;
  if (path.split("/").some((s) => s === ".." || s === ".")) return `"${path}" may not have a '.' or '..' folder.`;
  if (path.includes("//")) return `"${path}" has an empty folder ('//').`;
  return null;
}

/** What the recipe needs of its files beyond their place: a Python script, verl's Parquet prompts. */
function fileKindProblem(draft: SubmitDraft): { path: string; message: string } | null {
  if (takesScript(draft.recipe) && !draft.script.trim().endsWith(".py")) {
    return { path: submitPaths.script, message: `The script is a .py file: ${draft.recipe === "RAY" ? "the RayJob runs it with python" : "torchrun runs Python scripts"}.` };
  }
  if (draft.recipe === "VERL" && !draft.datasetPath.trim().endsWith(".parquet")) {
    return { path: submitPaths.datasetPath, message: "verl reads its prompts from a Parquet file: for example datasets/gsm8k/train.parquet." };
  }
  return null;
}

/** The checks the server makes on the request alone; accelerators is the group's GPUs per node, when known. */
export function validateSubmit(draft: SubmitDraft, recipe: RecipeChoice | undefined, accelerators: number | null): FieldErrors {
  const errors: FieldErrors = {};
  const nameProblem = jobNameProblem(draft.name.trim());
  if (nameProblem) addError(errors, submitPaths.name, nameProblem);
  if (!recipe) addError(errors, submitPaths.recipe, "Choose a recipe.");
  if (recipe?.needsModel && draft.model === "") addError(errors, submitPaths.model, "Choose the model to train: one of the shared bucket's, downloaded on the Models tab.");
  if (takesScript(draft.recipe)) {
    const p = bucketPathProblem(draft.script.trim(), "", "script", "code/train.py");
    if (p) addError(errors, submitPaths.script, p);
  }
  const dataset = bucketPathProblem(draft.datasetPath.trim(), "datasets/", "dataset", "datasets/alpaca/ or datasets/gsm8k/train.parquet");
  if (dataset) addError(errors, submitPaths.datasetPath, dataset);
  const kind = fileKindProblem(draft);
  if (kind && !errors[kind.path]) addError(errors, kind.path, kind.message);
  if (draft.instanceGroup === "") addError(errors, submitPaths.instanceGroup, "Choose the instance group to run on.");

  const nodes = parseWhole(draft.nodes);
  if (nodes === null || nodes < 1 || nodes > maxNodes) addError(errors, submitPaths.nodes, `Run on 1 to ${maxNodes} nodes.`);
  else if (draft.recipe === "RAY" && nodes !== 1) addError(errors, submitPaths.nodes, "The Ray head is one node: give 1, and add the other nodes as worker groups.");
  if (draft.recipe === "RAY") validateRay(draft.ray, errors);
  if (draft.gpusPerNode.trim() !== "") {
    const gpus = parseWhole(draft.gpusPerNode);
    const most = accelerators ?? Number.POSITIVE_INFINITY;
    if (gpus === null || gpus < 1 || gpus > most) {
      addError(errors, submitPaths.gpusPerNode, accelerators ? `Use 1 to ${accelerators} GPUs per node, or leave it empty for all ${accelerators}.` : "Use at least 1 GPU per node, or leave it empty for all.");
    }
  }

  for (const info of recipe?.settings ?? []) {
    const p = settingProblem(info, draft.settings[info.key] ?? info.default);
    if (p) addError(errors, settingPath(info.key), p);
  }

  for (const key of recoveryNumbers) {
    const text = draft.recovery[key].trim();
    if (text === "") continue;
    const [min, max, unit] = recoveryBounds[key];
    const n = parseWhole(text);
    if (n === null || n < min || n > max) addError(errors, submitPaths[key], `Give ${min} to ${max} ${unit}, or leave it empty for ${recoveryDefaults[key]}.`);
  }
  if (draft.experiment.trim().length > maxExperimentLength) addError(errors, submitPaths.experiment, `An experiment's name has at most ${maxExperimentLength} characters.`);
  return errors;
}

/**
 * The submitTrainingJob variables of a draft: the model only for a recipe
 * that trains one, the script only for PYTORCH and RAY (and ray only for RAY), the GPUs only when fewer
 * than all were asked, the settings changed from their defaults, and
 * recovery and experiment only as far as they were given.
 */
export function submitVariables(clusterId: string, draft: SubmitDraft, recipe: RecipeChoice, idempotencyKey: string): SubmitTrainingJobMutationVariables {
  const settings = settingsToSend(recipe.settings, draft.settings);
  const recovery: Record<string, number | boolean> = {};
  for (const key of recoveryNumbers) {
    const n = parseWhole(draft.recovery[key]);
    if (n !== null) recovery[key] = n;
  }
  if (draft.recovery.detectHangs !== recoveryDefaults.detectHangs) recovery.detectHangs = draft.recovery.detectHangs;
  const gpus = parseWhole(draft.gpusPerNode);
  const experiment = draft.experiment.trim();
  return {
    input: {
      clusterId,
      name: draft.name.trim(),
      recipe: recipe.recipe,
      ...(recipe.needsModel && draft.model !== "" && { model: draft.model }),
      datasetPath: draft.datasetPath.trim(),
      ...(takesScript(recipe.recipe) && { script: draft.script.trim() }),
      instanceGroup: draft.instanceGroup,
      nodes: parseWhole(draft.nodes) ?? 1,
      ...(gpus !== null && { gpusPerNode: gpus }),
      ...(settings.length > 0 && { settings }),
      ...(Object.keys(recovery).length > 0 && { recovery }),
      ...(experiment !== "" && { experiment }),
      ...(draft.checkpointing === "TIERED" && { checkpointing: draft.checkpointing }),
      ...(recipe.recipe === "RAY" && { ray: rayInput(draft.ray) }),
    },
    idempotencyKey,
  };
}

/** Whether any recovery field differs from the defaults: the advanced section opens to show it. */
export function recoveryGiven(r: RecoveryDraft): boolean {
  return recoveryNumbers.some((k) => r[k].trim() !== "") || r.detectHangs !== recoveryDefaults.detectHangs;
}

const fieldsShown: ReadonlySet<string> = new Set(Object.values(submitPaths));

/**
 * Where a server error about field belongs. sent is the settings as sent,
 * so an error about input.settings[1] lands at the setting sent second;
 * one about input.settings.<key> at that key's field.
 */
export function submitFormKey(field: string, sent: readonly { key: string }[] = []): string {
  const indexed = /^input\.settings\[(\d+)\]/.exec(field);
  if (indexed) {
    const s = sent[Number(indexed[1])];
    return s ? settingPath(s.key) : submitPaths.settings;
  }
  if (field.startsWith("input.settings.")) return settingPath(field.slice("input.settings.".length).split(".")[0]!);
  if (fieldsShown.has(field)) return field;
  return rayFormKey(field) ?? generalKey;
}

/** Sorts the server's errors onto the form's fields. */
export function submitServerErrors(errors: readonly ServerError[], sent: readonly { key: string }[] = []): FieldErrors {
  return sortServerErrors(errors, (field) => submitFormKey(field, sent));
}

/** Whether errors concern a field of the collapsed advanced section. */
export function advancedHasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).some((k) => k.startsWith("input.recovery.") || k === submitPaths.experiment);
}
