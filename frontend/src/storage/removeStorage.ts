// The remove dialog: whether it may be sent (deleting the bucket needs its
// name typed), the removeStorage variables, and where the server's errors go.
import type { RemoveStorageMutationVariables } from "../gql/graphql";
import { generalKey, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";

export interface RemoveDraft {
  /** Also delete every object of the bucket, and the bucket. */
  deleteBucket: boolean;
  /** The bucket's name as typed to confirm deleteBucket. */
  typed: string;
}

/** The field paths of the dialog: the server's. */
export const removePaths = { deleteBucket: "deleteBucket" } as const;

/** Whether draft may be sent: keeping the bucket always may; deleting it once its name is typed. */
export function removeConfirmed(draft: RemoveDraft, bucket: string): boolean {
  return !draft.deleteBucket || draft.typed.trim() === bucket;
}

/** The removeStorage variables of a draft. */
export function removeStorageVariables(id: string, draft: RemoveDraft, idempotencyKey: string): RemoveStorageMutationVariables {
  return { id, deleteBucket: draft.deleteBucket, idempotencyKey };
}

/**
 * Sorts the server's errors: one about deleteBucket (the ADMIN role) at its
 * box, the others at the top. One about id concerns the storage the dialog
 * removes (a file system still linked to the bucket, the cluster's state),
 * so it is said as it is, without naming the field.
 */
export function removeServerErrors(errors: readonly ServerError[]): FieldErrors {
  const about = errors.map((e) => (e.extensions?.field === "id" ? { message: e.message, extensions: { code: e.extensions.code } } : e));
  return sortServerErrors(about, (field) => (field === removePaths.deleteBucket ? removePaths.deleteBucket : generalKey));
}
