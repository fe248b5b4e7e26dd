// The "Add shared bucket" form: its draft, the checks made before sending
// (S3's naming rules), the addStorage variables, and where the server's
// errors go.
import type { AddStorageMutationVariables } from "../gql/graphql";
import { addError, generalKey, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";
import { bucketNameProblem } from "./bucketName";

export interface AddStorageDraft {
  bucket: string;
  /** true makes a new bucket; false uses one of the account that exists already. */
  create: boolean;
}

/** The field paths of the form: the server's, so its errors land at the same fields. */
export const addStoragePaths = {
  bucket: "input.s3.bucket",
  create: "input.s3.create",
} as const;

/** A blank draft: a new bucket. */
export function blankAddStorageDraft(): AddStorageDraft {
  return { bucket: "", create: true };
}

/** The draft that adds again the bucket of a storage whose add failed. */
export function retryDraft(bucket: { name: string; createdByInstantStart: boolean }): AddStorageDraft {
  return { bucket: bucket.name, create: bucket.createdByInstantStart };
}

/** The checks the server makes before it asks S3 anything. */
export function validateAddStorage(draft: AddStorageDraft): FieldErrors {
  const errors: FieldErrors = {};
  const problem = bucketNameProblem(draft.bucket.trim());
  if (problem) addError(errors, addStoragePaths.bucket, problem);
  return errors;
}

/** The addStorage variables of a draft: the cluster's shared S3 bucket. */
export function addStorageVariables(clusterId: string, draft: AddStorageDraft, idempotencyKey: string): AddStorageMutationVariables {
  return { input: { clusterId, kind: "S3", s3: { bucket: draft.bucket.trim(), create: draft.create } }, idempotencyKey };
}

/**
 * Where a server error about field belongs: the bucket's field (a name S3
 * refuses, a bucket that exists already or does not, of another account or
 * region), the create choice, or the top of the form (the cluster's state).
 */
export function addStorageFormKey(field: string): string {
  if (field === addStoragePaths.bucket || field === "input.s3") return addStoragePaths.bucket;
  if (field === addStoragePaths.create) return addStoragePaths.create;
  return generalKey;
}

/** Sorts the server's errors onto the form's fields. */
export function addStorageServerErrors(errors: readonly ServerError[]): FieldErrors {
  return sortServerErrors(errors, addStorageFormKey);
}
