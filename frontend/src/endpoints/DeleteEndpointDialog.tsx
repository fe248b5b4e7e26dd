import { useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { EndpointDetailFragment, OperationDetailFragment } from "../gql/graphql";
import { Dialog } from "../ui/Dialog";
import { FieldErrorList } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { newIdempotencyKey } from "../ui/fieldErrors";
import { DeleteEndpointMutation } from "./documents";

interface Props {
  endpoint: EndpointDetailFragment;
  onClose: () => void;
  onStarted: (op: OperationDetailFragment) => void;
}

/** Says what deleting an endpoint removes and what stays, and deletes it when confirmed. */
export function DeleteEndpointDialog({ endpoint: e, onClose, onStarted }: Props) {
  const [errors, setErrors] = useState<string[] | null>(null);
  const [{ fetching }, deleteEndpoint] = useMutation(DeleteEndpointMutation);
  const key = useRef(newIdempotencyKey());

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setErrors(null);
    const r = await deleteEndpoint({ id: e.id, idempotencyKey: key.current });
    if (r.data) onStarted(r.data.deleteEndpoint);
    else if (r.error) setErrors(errorMessages(r.error));
  };

  const what =
    e.path === "MANAGED"
      ? `the operator's ${e.object.split("/")[0]} and what it made`
      : `the Deployment, its Services${e.router ? ", the SGLang router" : ""}${e.autoscaling?.trigger ? " and the ScaledObject" : ""}`;
  return (
    <Dialog title={`Delete the endpoint ${e.name}?`} onClose={onClose}>
      <form onSubmit={submit}>
        <p>
          This deletes {what} (<code>{e.object}</code> in <code>{e.namespace}</code>)
          {e.readyReplicas > 0 ? <strong>: it stops serving now</strong> : ""}.
        </p>
        <p>The model stays where it is, and the endpoint's record stays here, DELETED.</p>
        <FieldErrorList messages={errors ?? undefined} />
        <div className="form-actions">
          <button type="submit" className="button button-danger" disabled={fetching}>
            {fetching ? "Deleting…" : "Delete endpoint"}
          </button>
          <button type="button" className="button button-quiet" onClick={onClose} autoFocus>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
