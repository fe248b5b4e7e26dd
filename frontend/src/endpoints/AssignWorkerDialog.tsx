import { useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { EndpointDetailFragment, OperationDetailFragment } from "../gql/graphql";
import { Dialog } from "../ui/Dialog";
import { Field, FormErrors } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { generalKey, newIdempotencyKey, sortServerErrors, type FieldErrors } from "../ui/fieldErrors";
import { AssignPoolWorkerMutation } from "./documents";
import { businessProblem, poolBusinesses, unassigned } from "./endpointActions";

type Pod = EndpointDetailFragment["pods"][number];

interface Props {
  endpoint: EndpointDetailFragment;
  pod: Pod;
  onClose: () => void;
  onStarted: (op: OperationDetailFragment, business: string) => void;
}

const businessPath = "business";

/**
 * Hands a warm worker of a pool to a business (assignPoolWorker): its
 * business label changes and the business's Service is made when missing;
 * the pod is not restarted. unassigned returns it to the pool.
 */
export function AssignWorkerDialog({ endpoint, pod, onClose, onStarted }: Props) {
  const pool = endpoint.pool ?? endpoint.name;
  const current = pod.business && pod.business !== unassigned ? pod.business : null;
  const [business, setBusiness] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const [{ fetching }, assign] = useMutation(AssignPoolWorkerMutation);
  const key = useRef<{ business: string; key: string } | null>(null);
  const known = poolBusinesses(endpoint.pods);

  const send = async (to: string) => {
    const problem = businessProblem(pool, to);
    if (problem) {
      setErrors({ [businessPath]: [problem] });
      return;
    }
    if (key.current?.business !== to) key.current = { business: to, key: newIdempotencyKey() };
    setErrors({});
    const r = await assign({ endpointId: endpoint.id, pod: pod.name, business: to, idempotencyKey: key.current.key });
    if (r.data) onStarted(r.data.assignPoolWorker, to);
    else if (r.error) {
      setErrors(
        r.error.graphQLErrors.length > 0 ? sortServerErrors(r.error.graphQLErrors, (f) => (f === businessPath ? businessPath : generalKey)) : { [generalKey]: errorMessages(r.error) },
      );
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void send(business.trim());
  };

  return (
    <Dialog title={`Assign ${pod.name}`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <p>
          The worker {current ? <>serves <strong>{current}</strong></> : "is unassigned"}. It keeps running and keeps its uid <code>{pod.uid}</code>; the business
          reaches it through the Service <code>{pool}-&lt;business&gt;</code>.
        </p>
        <FormErrors title="The worker was not assigned" messages={errors[generalKey]} />
        <Field path={businessPath} label="Business" errors={errors} hint={known.length > 0 ? `Served now: ${known.join(", ")}.` : "1-40 lower-case letters, digits and '-', starting with a letter."}>
          {(props) => (
            <input
              {...props}
              type="text"
              autoComplete="off"
              spellCheck={false}
              autoFocus
              placeholder="support"
              value={business}
              onChange={(e) => {
                setBusiness(e.target.value);
                setErrors({});
              }}
            />
          )}
        </Field>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={fetching}>
            {fetching ? "Assigning…" : "Assign"}
          </button>
          {current && (
            <button type="button" className="button" disabled={fetching} onClick={() => void send(unassigned)}>
              Return to the pool
            </button>
          )}
          <button type="button" className="button button-quiet" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
