import { useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import { useMutation } from "urql";
import type { TypedDocumentNode } from "@urql/core";
import { Dialog } from "./Dialog";
import { FieldErrorList } from "./Field";
import { errorMessages } from "./feedback";
import { newIdempotencyKey } from "./fieldErrors";

type Vars = { id: string; idempotencyKey: string };

interface Props<D, Op, V extends Vars> {
  /** The question the dialog asks, such as "Delete the job x?". */
  title: string;
  /** What deleting removes and what stays. */
  children: ReactNode;
  /** The delete button's words, such as "Delete job". */
  action: string;
  /** The delete mutation; it takes $id and $idempotencyKey, and the options. */
  mutation: TypedDocumentNode<D, V>;
  /** The delete's options (cascade, say), set by the children's controls. */
  options?: Omit<V, keyof Vars>;
  /** The id of what is deleted. */
  id: string;
  /** The operation in the mutation's answer. */
  started: (data: D) => Op;
  /** When given, the delete waits until this name is typed, to confirm. */
  confirmName?: string;
  /** The cancel button's words. */
  cancel?: string;
  onClose: () => void;
  /** The delete started; the caller says where to go from here. */
  onStarted: (op: Op) => void;
}

/**
 * Says what deleting something removes and what stays, and deletes it when
 * confirmed. A retry from the same dialog sends the same idempotency key,
 * so it cannot start a second delete.
 */
export function DeleteDialog<D, Op, V extends Vars = Vars>({
  title,
  children,
  action,
  mutation,
  options,
  id,
  started,
  confirmName,
  cancel = "Cancel",
  onClose,
  onStarted,
}: Props<D, Op, V>) {
  const [typed, setTyped] = useState("");
  const [errors, setErrors] = useState<string[] | null>(null);
  const [{ fetching }, remove] = useMutation(mutation);
  // One key per set of options: a retry with the same options is the same
  // request, and other options are another one.
  const keys = useRef(new Map<string, string>());
  const optionsKey = JSON.stringify(options ?? {});
  if (!keys.current.has(optionsKey)) keys.current.set(optionsKey, newIdempotencyKey());
  const inputId = useId();
  const confirmed = confirmName === undefined || typed.trim() === confirmName;
  // Focus starts where it cannot delete by a stray Enter: in the name to type, or else on cancel.
  const focusCancel = confirmName === undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!confirmed) return;
    setErrors(null);
    const r = await remove({ ...options, id, idempotencyKey: keys.current.get(optionsKey) } as V);
    if (r.data) onStarted(started(r.data));
    else if (r.error) setErrors(errorMessages(r.error));
  };

  return (
    <Dialog title={title} onClose={onClose}>
      <form onSubmit={submit}>
        {children}
        {confirmName !== undefined && (
          <div className="field">
            <label htmlFor={inputId}>
              Type <strong>{confirmName}</strong> to confirm
            </label>
            <input id={inputId} type="text" autoComplete="off" spellCheck={false} autoFocus value={typed} onChange={(e) => setTyped(e.target.value)} />
          </div>
        )}
        <FieldErrorList messages={errors ?? undefined} />
        <div className="form-actions">
          <button type="submit" className="button button-danger" disabled={fetching || !confirmed}>
            {fetching ? "Deleting…" : action}
          </button>
          <button type="button" className="button button-quiet" onClick={onClose} autoFocus={focusCancel}>
            {cancel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
