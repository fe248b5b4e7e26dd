import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import { navigate } from "../app/router";
import { errorMessages } from "../ui/feedback";
import { DeleteClusterMutation } from "./documents";

interface Props {
  cluster: { id: string; name: string; imported: boolean };
  onClose: () => void;
}

/**
 * Asks to confirm a delete by typing the cluster's name, then starts the
 * deleteCluster operation and goes to its page.
 */
export function DeleteClusterDialog({ cluster, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<string[] | null>(null);
  const [{ fetching }, deleteCluster] = useMutation(DeleteClusterMutation);
  const key = useRef(`delete-${cluster.id}-${Date.now()}`);
  const titleId = useId();
  const inputId = useId();

  // Opened as a modal (focus stays inside, Escape closes). Unmounting
  // removes it; closing it here would report a close the user never asked for.
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (typed.trim() !== cluster.name) return;
    setError(null);
    const r = await deleteCluster({ id: cluster.id, idempotencyKey: key.current });
    if (r.data) {
      onClose();
      navigate(`/operations/${encodeURIComponent(r.data.deleteCluster.id)}`);
    } else if (r.error) {
      setError(errorMessages(r.error));
    }
  };

  return (
    <dialog ref={dialog} className="dialog" aria-labelledby={titleId} onClose={onClose}>
      <form method="dialog" onSubmit={submit}>
        <h2 id={titleId}>Delete {cluster.name}?</h2>
        {cluster.imported ? (
          <p>
            This deletes the HyperPod cluster and the EKS control plane. The network and IAM roles were imported, so they are left in
            place.
          </p>
        ) : (
          <p>
            This deletes the HyperPod cluster and its instances, the EKS control plane, the OIDC provider, the VPC with its subnets and NAT
            gateway, and the IAM roles. Jobs and data on the cluster's instances are lost.
          </p>
        )}
        <div className="field">
          <label htmlFor={inputId}>
            Type <strong>{cluster.name}</strong> to confirm
          </label>
          <input id={inputId} type="text" autoComplete="off" spellCheck={false} autoFocus value={typed} onChange={(e) => setTyped(e.target.value)} />
        </div>
        {error && (
          <div className="field-error" role="alert">
            {error.map((m, i) => (
              <p key={i}>{m}</p>
            ))}
          </div>
        )}
        <div className="form-actions">
          <button type="submit" className="button button-danger" disabled={fetching || typed.trim() !== cluster.name}>
            {fetching ? "Deleting…" : "Delete cluster"}
          </button>
          <button type="button" className="button button-quiet" onClick={onClose}>
            Keep it
          </button>
        </div>
      </form>
    </dialog>
  );
}
