import { useId, useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { OperationDetailFragment, StorageRowFragment } from "../gql/graphql";
import { Dialog } from "../ui/Dialog";
import { FormErrors } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { generalKey, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { RemoveStorageMutation } from "./documents";
import { fileSystemRemoveConfirmed } from "./fileSystems";
import { removeServerErrors } from "./removeStorage";

interface Props {
  storage: StorageRowFragment;
  onClose: () => void;
  onStarted: (op: OperationDetailFragment) => void;
}

/**
 * Says plainly what removing a file system deletes (the file system and
 * every file on it, its security group, the claim and the volume) and what
 * it leaves (the linked bucket's objects), confirmed by typing its name.
 */
export function RemoveFileSystemDialog({ storage, onClose, onStarted }: Props) {
  const f = storage.fsx;
  const name = f?.name ?? "";
  const [typed, setTyped] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const key = useRef<string | null>(null);
  const [{ fetching }, remove] = useMutation(RemoveStorageMutation);
  const confirmId = useId();
  const confirmed = fileSystemRemoveConfirmed(typed, name);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!confirmed) return;
    key.current ??= newIdempotencyKey();
    const r = await remove({ id: storage.id, idempotencyKey: key.current });
    if (r.data) onStarted(r.data.removeStorage);
    else if (r.error) setErrors(r.error.graphQLErrors.length > 0 ? removeServerErrors(r.error.graphQLErrors) : { [generalKey]: errorMessages(r.error) });
  };

  return (
    <Dialog title={`Remove the file system ${name}?`} onClose={onClose} wide>
      <form onSubmit={submit} noValidate aria-busy={fetching}>
        <FormErrors title="The file system was not removed" messages={errors[generalKey]} />
        <p className="strong">
          This deletes the file system {f?.fileSystemId ? <code>{f.fileSystemId}</code> : name} and every file on it. This cannot be undone.
        </p>
        <p>
          It also deletes its security group{f?.securityGroupId && <> <code>{f.securityGroupId}</code></>}, the claim <code>{storage.claimName}</code> in
          namespace <code>{storage.namespace}</code> and the volume <code>{storage.volumeName}</code>: pods can no longer mount it at{" "}
          <code>{storage.mountPath}</code>.
        </p>
        {f?.dataRepositoryPath ? (
          <p>
            The linked bucket's objects stay in <code>{f.dataRepositoryPath}</code>: only files that were never exported to it are lost.
          </p>
        ) : (
          <p>No bucket is linked to it: nothing on it is kept elsewhere.</p>
        )}
        <div className="field">
          <label htmlFor={confirmId}>
            Type <strong>{name}</strong> to delete it with every file on it
          </label>
          <input id={confirmId} type="text" autoComplete="off" spellCheck={false} value={typed} onChange={(e) => setTyped(e.target.value)} />
        </div>
        <div className="form-actions">
          <button type="submit" className="button button-danger" disabled={fetching || !confirmed}>
            {fetching ? "Removing…" : "Delete the file system"}
          </button>
          <button type="button" className="button button-quiet" onClick={onClose} autoFocus>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
