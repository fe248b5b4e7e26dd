import { useId, useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { OperationDetailFragment, StorageRowFragment } from "../gql/graphql";
import { Dialog } from "../ui/Dialog";
import { FieldErrorList, FormErrors, inputId } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { generalKey, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { RemoveStorageMutation } from "./documents";
import { removeConfirmed, removePaths, removeServerErrors, removeStorageVariables, type RemoveDraft } from "./removeStorage";

interface Props {
  storage: StorageRowFragment;
  onClose: () => void;
  onStarted: (op: OperationDetailFragment, deleteBucket: boolean) => void;
}

/**
 * Says plainly what a remove takes away (the claim and the volume) and what
 * it leaves (the bucket and its objects), and offers to delete the bucket
 * too: ADMIN only, confirmed by typing the bucket's name.
 */
export function RemoveStorageDialog({ storage, onClose, onStarted }: Props) {
  const { me } = useSession();
  const bucket = storage.s3?.name ?? "";
  const [draft, setDraft] = useState<RemoveDraft>({ deleteBucket: false, typed: "" });
  const [errors, setErrors] = useState<FieldErrors>({});
  const key = useRef<string | null>(null);
  const [{ fetching }, remove] = useMutation(RemoveStorageMutation);
  const confirmId = useId();
  const boxId = inputId(removePaths.deleteBucket);
  const adminDenied = deniedReason(me.role, "ADMIN");

  const change = (patch: Partial<RemoveDraft>) => {
    if ("deleteBucket" in patch) key.current = null; // another request
    setDraft((d) => ({ ...d, ...patch }));
    setErrors({});
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!removeConfirmed(draft, bucket)) return;
    key.current ??= newIdempotencyKey();
    const r = await remove(removeStorageVariables(storage.id, draft, key.current));
    if (r.data) onStarted(r.data.removeStorage, draft.deleteBucket);
    else if (r.error) setErrors(r.error.graphQLErrors.length > 0 ? removeServerErrors(r.error.graphQLErrors) : { [generalKey]: errorMessages(r.error) });
  };

  return (
    <Dialog title={`Remove the shared bucket ${bucket}?`} onClose={onClose} wide>
      <form onSubmit={submit} noValidate aria-busy={fetching}>
        <FormErrors title="The shared bucket was not removed" messages={errors[generalKey]} />
        <p>
          This removes the claim <code>{storage.claimName}</code> in namespace <code>{storage.namespace}</code> and the volume{" "}
          <code>{storage.volumeName}</code>: pods can no longer mount the bucket at <code>{storage.mountPath}</code>.
        </p>
        <p className="strong">
          The bucket {bucket} and every object in it stay in S3 as they are, unless you tick the box below.
        </p>
        <div className="field">
          <label className="check" title={adminDenied}>
            <input
              id={boxId}
              type="checkbox"
              checked={draft.deleteBucket}
              disabled={adminDenied !== undefined}
              aria-invalid={errors[removePaths.deleteBucket] ? true : undefined}
              aria-describedby={`${boxId}-hint${errors[removePaths.deleteBucket] ? ` ${boxId}-error` : ""}`}
              onChange={(e) => change({ deleteBucket: e.target.checked, typed: "" })}
            />
            <span>Also delete the bucket and every object in it</span>
          </label>
          <p id={`${boxId}-hint`} className="hint">
            {adminDenied ?? "Deletes every object, then the bucket. This cannot be undone."}
          </p>
          <FieldErrorList id={`${boxId}-error`} messages={errors[removePaths.deleteBucket]} />
        </div>
        {draft.deleteBucket && (
          <div className="field">
            <label htmlFor={confirmId}>
              Type <strong>{bucket}</strong> to delete it with every object in it
            </label>
            <input id={confirmId} type="text" autoComplete="off" spellCheck={false} autoFocus value={draft.typed} onChange={(e) => change({ typed: e.target.value })} />
          </div>
        )}
        <div className="form-actions">
          <button type="submit" className="button button-danger" disabled={fetching || !removeConfirmed(draft, bucket)}>
            {fetching ? "Removing…" : draft.deleteBucket ? "Remove and delete the bucket" : "Remove, keep the bucket"}
          </button>
          <button type="button" className="button button-quiet" onClick={onClose} autoFocus>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
