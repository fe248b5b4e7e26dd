// The "Download a model" form: its draft, the checks the server makes
// before it asks the hub anything (engine/models checkDownload, mirrored
// so that a mistake shows at its field before sending), the folder the
// server names by default, the downloadModel variables, and where the
// server's errors go.
import type { DownloadModelMutationVariables } from "../gql/graphql";
import { addError, generalKey, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";

export interface DownloadDraft {
  /** The hub's model, org/name. */
  modelId: string;
  /** A branch, a tag or a commit id. */
  revision: string;
  /** The folder under models/; empty takes defaultModelName(modelId). */
  name: string;
  /** A Hugging Face access token, for a gated or private model; cleared once sent. */
  token: string;
}

/** The field paths of the form: the server's, so its errors land at the same fields. */
export const downloadPaths = {
  modelId: "input.modelId",
  revision: "input.revision",
  name: "input.name",
  token: "input.token",
} as const;

/** The revision the server takes when none is given. */
export const defaultRevision = "main";

/** A blank draft: the main branch, the default folder, no token. */
export function blankDownloadDraft(): DownloadDraft {
  return { modelId: "", revision: defaultRevision, name: "", token: "" };
}

// The server's bounds and patterns (engine/models/download.go).
const maxModelIdLength = 96;
const maxRevisionLength = 255;
const maxTokenLength = 512;
const maxNameLength = 48;
const modelIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const namePattern = /^[a-z0-9]([a-z0-9._-]{0,46}[a-z0-9])?$/;
/** A model's page on the hub, pasted instead of its id. */
const hubAddress = /^(https?:\/\/)?(www\.)?huggingface\.co\//;

/** What is wrong with id as a hub model id (org/name), or null when the server takes it. */
export function modelIdProblem(id: string): string | null {
  if (id === "") return "Give the model's id on Hugging Face, org/name: for example Qwen/Qwen2.5-0.5B-Instruct.";
  const address = hubAddress.exec(id);
  if (address) return `Give the model's id without the address: ${id.slice(address[0].length).split("/").slice(0, 2).join("/")}.`;
  if (id.length > maxModelIdLength) return `"${id.slice(0, 40)}…" is ${id.length} characters long; a model id has at most ${maxModelIdLength}.`;
  if (!modelIdPattern.test(id) || id.includes("..")) {
    return `"${id}" is not org/name (for example Qwen/Qwen2.5-0.5B-Instruct): letters, digits, '.', '_' and '-' on each side of one '/'.`;
  }
  return null;
}

/** Trims the characters a folder name may not start or end with. */
function trimEnds(s: string): string {
  return s.replace(/^[._-]+|[._-]+$/g, "");
}

/**
 * The folder the server names a model's download when no name is given:
 * the model's name (past the '/'), lower-cased, at most 48 characters, as
 * in Qwen/Qwen2.5-0.5B-Instruct -> qwen2.5-0.5b-instruct. Empty when
 * modelId names no model.
 */
export function defaultModelName(modelId: string): string {
  const slash = modelId.indexOf("/");
  if (slash < 0) return "";
  let name = trimEnds(modelId.slice(slash + 1).toLowerCase());
  if (name.length > maxNameLength) name = trimEnds(name.slice(0, maxNameLength));
  return name;
}

/** The folder a draft downloads into: its name, or the server's default. */
export function folderName(draft: DownloadDraft): string {
  return draft.name.trim() || defaultModelName(draft.modelId.trim());
}

/** What is wrong with name as a folder under models/, or null. */
export function modelNameProblem(name: string): string | null {
  if (namePattern.test(name)) return null;
  return `"${name}" must be 1 to 48 lower-case letters, digits, '.', '_' and '-', starting and ending with a letter or digit: it is the folder models/${name || "<name>"}/.`;
}

/** The checks the server makes before it asks the hub anything. */
export function validateDownload(draft: DownloadDraft): FieldErrors {
  const errors: FieldErrors = {};
  const idProblem = modelIdProblem(draft.modelId.trim());
  if (idProblem) addError(errors, downloadPaths.modelId, idProblem);

  const revision = draft.revision.trim();
  if (revision.length > maxRevisionLength) {
    addError(errors, downloadPaths.revision, `The revision is ${revision.length} characters long; a branch, tag or commit id has at most ${maxRevisionLength}.`);
  } else if (/[\s\p{C}]/u.test(revision)) {
    addError(errors, downloadPaths.revision, `"${revision}" is not a branch, tag or commit id: no spaces or control characters.`);
  }

  // No name takes the default, always a folder name for a model id the
  // server takes.
  const name = draft.name.trim();
  const nameProblem = name === "" ? null : modelNameProblem(name);
  if (nameProblem) addError(errors, downloadPaths.name, nameProblem);

  if (draft.token.length > maxTokenLength || /[^\x21-\x7e]/.test(draft.token)) {
    addError(errors, downloadPaths.token, `That is not a Hugging Face access token (printable characters, no spaces, at most ${maxTokenLength}); make one at huggingface.co/settings/tokens.`);
  }
  return errors;
}

/**
 * The downloadModel variables of a draft. The revision is always sent
 * (main when left empty), the name only when one was typed (the server
 * names the folder otherwise), and the token only when there is one.
 */
export function downloadVariables(clusterId: string, draft: DownloadDraft, idempotencyKey: string): DownloadModelMutationVariables {
  const name = draft.name.trim();
  return {
    input: {
      clusterId,
      source: "HUGGING_FACE",
      modelId: draft.modelId.trim(),
      revision: draft.revision.trim() || defaultRevision,
      ...(name !== "" && { name }),
      ...(draft.token !== "" && { token: draft.token }),
    },
    idempotencyKey,
  };
}

/**
 * Where a server error about field belongs: the model id (no such model,
 * too many files), the revision (no such revision, no files at it), the
 * folder (it holds another model), the token (gated, refused, not
 * granted), or the top of the form (the cluster, its shared bucket).
 */
export function downloadFormKey(field: string): string {
  switch (field) {
    case downloadPaths.modelId:
    case downloadPaths.revision:
    case downloadPaths.name:
    case downloadPaths.token:
      return field;
    default:
      return generalKey;
  }
}

/** Sorts the server's errors onto the form's fields. */
export function downloadServerErrors(errors: readonly ServerError[]): FieldErrors {
  return sortServerErrors(errors, downloadFormKey);
}
