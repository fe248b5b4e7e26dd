// The edit-instance-group form's model. updateInstanceGroup changes only the
// fields it is sent, so the form sends only what the user changed: editDiff
// compares the draft with the group as it is and leaves every unchanged
// field out; a list that changed (deep health checks, labels, taints) is
// sent whole, since the server replaces it.
import type { TaintEffect, UpdateInstanceGroupInput } from "../gql/graphql";
import { addError, generalKey, parseWhole, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";
import { deepHealthCheckNames } from "./addGroupForm";
import {
  checkLabels,
  checkTaints,
  labelInputs,
  labelRows,
  sameLabels,
  sameStrings,
  sameTaints,
  taintInputs,
  taintRows,
  type LabelRow,
  type TaintRow,
} from "./kubernetesConfig";

/** The fields of a group the edit form reads. */
export interface EditableGroup {
  targetCount: number;
  /** null when the group has none (the server then counts it as 0). */
  minCount: number | null;
  deepHealthChecks: readonly string[];
  labels: readonly { key: string; value: string }[];
  taints: readonly { key: string; value: string | null; effect: TaintEffect }[];
}

export interface EditGroupDraft {
  count: string;
  minCount: string;
  deepHealthChecks: string[];
  labels: LabelRow[];
  taints: TaintRow[];
}

export const editPaths = {
  count: "input.count",
  minCount: "input.minCount",
  deepHealthChecks: "input.deepHealthChecks",
  labels: "input.labels",
  taints: "input.taints",
} as const;

/** The draft of a group as it is. */
export function editDraftOf(group: EditableGroup): EditGroupDraft {
  return {
    count: String(group.targetCount),
    minCount: String(group.minCount ?? 0),
    deepHealthChecks: [...group.deepHealthChecks],
    labels: labelRows(group.labels),
    taints: taintRows(group.taints),
  };
}

/** The message for a count that is not 0-1000, or null. */
export function countProblem(text: string): string | null {
  const n = parseWhole(text);
  if (n === null) return "Enter a whole number from 0 to 1000.";
  if (n < 0 || n > 1000) return "Use 0 to 1000 instances.";
  return null;
}

/**
 * The checks the server makes on an update. A minimum count the user did
 * not change may exceed a lowered count: the server lowers it with the
 * count (see minCountFollows).
 */
export function validateEditDraft(group: EditableGroup, draft: EditGroupDraft): FieldErrors {
  const errors: FieldErrors = {};
  const countMessage = countProblem(draft.count);
  if (countMessage) addError(errors, editPaths.count, countMessage);
  const count = parseWhole(draft.count);
  const min = parseWhole(draft.minCount);
  if (min === null || min < 0) addError(errors, editPaths.minCount, "Enter a whole number from 0 to the count.");
  else if (min !== (group.minCount ?? 0) && count !== null && min > count) {
    addError(errors, editPaths.minCount, `The minimum count cannot exceed the count (${count}).`);
  }
  for (const c of draft.deepHealthChecks) {
    if (!(deepHealthCheckNames as readonly string[]).includes(c)) addError(errors, editPaths.deepHealthChecks, `${c} is not a deep health check.`);
  }
  for (const m of checkLabels(draft.labels)) addError(errors, editPaths.labels, m);
  for (const m of checkTaints(draft.taints)) addError(errors, editPaths.taints, m);
  return errors;
}

/**
 * The minimum count the group ends with when the user lowers the count
 * below an unchanged minimum: the server lowers it to the count. null when
 * that does not happen.
 */
export function minCountFollows(group: EditableGroup, draft: EditGroupDraft): number | null {
  const count = parseWhole(draft.count);
  const min = parseWhole(draft.minCount);
  if (count === null || min === null || min !== (group.minCount ?? 0) || count === group.targetCount) return null;
  return min > count ? count : null;
}

/** The update input of a valid draft: the changed fields only. */
export function editDiff(group: EditableGroup, draft: EditGroupDraft): UpdateInstanceGroupInput {
  const input: UpdateInstanceGroupInput = {};
  const count = parseWhole(draft.count);
  if (count !== null && count !== group.targetCount) input.count = count;
  const min = parseWhole(draft.minCount);
  if (min !== null && min !== (group.minCount ?? 0)) input.minCount = min;
  if (!sameStrings(draft.deepHealthChecks, group.deepHealthChecks)) {
    input.deepHealthChecks = deepHealthCheckNames.filter((c) => draft.deepHealthChecks.includes(c));
  }
  const labels = labelInputs(draft.labels);
  if (!sameLabels(labels, group.labels)) input.labels = labels;
  const taints = taintInputs(draft.taints);
  if (!sameTaints(taints, group.taints)) input.taints = taints;
  return input;
}

/**
 * The draft after the group changed under it (another client scaled it,
 * HyperPod changed a label): what the user has not touched follows the
 * group from before to after; what the user changed stays as typed. So
 * editDiff against the group as it is now still sends only the user's
 * changes, never an undo of someone else's.
 */
export function rebaseDraft(before: EditableGroup, after: EditableGroup, draft: EditGroupDraft): EditGroupDraft {
  const out = { ...draft };
  if (parseWhole(draft.count) === before.targetCount) out.count = String(after.targetCount);
  if (parseWhole(draft.minCount) === (before.minCount ?? 0)) out.minCount = String(after.minCount ?? 0);
  if (sameStrings(draft.deepHealthChecks, before.deepHealthChecks)) out.deepHealthChecks = [...after.deepHealthChecks];
  const labels = labelInputs(draft.labels);
  if (sameLabels(labels, before.labels) && !sameLabels(labels, after.labels)) out.labels = labelRows(after.labels);
  const taints = taintInputs(draft.taints);
  if (sameTaints(taints, before.taints) && !sameTaints(taints, after.taints)) out.taints = taintRows(after.taints);
  return out;
}

/** Whether an update input changes anything. */
export function changesAnything(input: UpdateInstanceGroupInput): boolean {
  return Object.keys(input).length > 0;
}

const formFields = new Set<string>(Object.values(editPaths));

/** Sorts the server's errors onto the edit form's fields. */
export function editServerErrors(errors: readonly ServerError[]): FieldErrors {
  return sortServerErrors(errors, (field) => (formFields.has(field) ? field : generalKey));
}
