import { useId, useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { AutoscalingTrigger, EndpointDetailFragment } from "../gql/graphql";
import { errorMessages } from "../ui/feedback";
import { Field, FieldErrorList, FormErrors } from "../ui/Field";
import { clearField, generalKey, hasErrors, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { SetEndpointAutoscalingMutation, UpdateEndpointMutation } from "./documents";
import {
  boundsChanged,
  boundsDraftOf,
  boundsInput,
  boundsPaths,
  boundsServerErrors,
  kedaDraftOf,
  kedaInput,
  kedaPaths,
  kedaServerErrors,
  targetDefaults,
  validateKeda,
  validateManagedBounds,
  type BoundsDraft,
  type KedaDraft,
} from "./endpointActions";
import type { Started } from "./EndpointPage";
import { triggerWords } from "./endpointWords";

interface Props {
  endpoint: EndpointDetailFragment;
  denied: string | undefined;
  onStarted: (s: Started) => void;
}

/**
 * An endpoint's autoscaling as it is, and the form to change it: KEDA on a
 * Prometheus query for a self-managed endpoint (setEndpointAutoscaling),
 * the operator's bounds for a managed one (updateEndpoint).
 */
export function AutoscalingCard({ endpoint, denied, onStarted }: Props) {
  const headingId = useId();
  const a = endpoint.autoscaling;
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Autoscaling</h2>
      {a ? (
        <dl className="meta">
          <div>
            <dt>Replicas</dt>
            <dd>
              {a.minReplicas} to {a.maxReplicas}
            </dd>
          </div>
          {a.trigger && (
            <div>
              <dt>Scales on</dt>
              <dd>
                {triggerWords[a.trigger] ?? a.trigger}
                {a.target != null && `, aiming at ${a.target}`}
              </dd>
            </div>
          )}
          {a.trigger && (
            <div>
              <dt>KEDA</dt>
              <dd>
                <StatusBadge status={a.ready ? "READY" : "PENDING"} label={a.ready ? "ready" : "not ready"} /> {a.active ? "active: demand above the minimum" : "inactive"}
              </dd>
            </div>
          )}
          {a.query && (
            <div>
              <dt>Query</dt>
              <dd>
                <code className="wrap">{a.query}</code>
              </dd>
            </div>
          )}
        </dl>
      ) : (
        <p className="muted">Not set: the endpoint keeps {endpoint.replicas} {endpoint.replicas === 1 ? "replica" : "replicas"}.</p>
      )}
      {endpoint.path === "SELF_MANAGED" ? <KedaForm endpoint={endpoint} denied={denied} onStarted={onStarted} /> : <BoundsForm endpoint={endpoint} denied={denied} onStarted={onStarted} />}
    </section>
  );
}

const triggers: readonly AutoscalingTrigger[] = ["REQUESTS_PER_REPLICA", "ROUTER_QUEUE"];

function KedaForm({ endpoint, denied, onStarted }: Props) {
  const [edited, setEdited] = useState<KedaDraft | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [{ fetching }, setAutoscaling] = useMutation(SetEndpointAutoscalingMutation);
  const key = useRef<{ sent: string; key: string } | null>(null);
  const draft = edited ?? kedaDraftOf(endpoint);

  const change = (patch: Partial<KedaDraft>, path: string) => {
    setEdited({ ...draft, ...patch });
    setErrors((e) => clearField(clearField(e, path), generalKey));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateKeda(draft, endpoint.router != null);
    if (hasErrors(found)) {
      setErrors(found);
      return;
    }
    const input = kedaInput(draft);
    const sent = JSON.stringify(input);
    if (key.current?.sent !== sent) key.current = { sent, key: newIdempotencyKey() };
    setErrors({});
    const r = await setAutoscaling({ endpointId: endpoint.id, input, idempotencyKey: key.current.key });
    if (r.data) {
      key.current = null;
      setEdited(null);
      onStarted({ what: `Setting the autoscaling of ${endpoint.name}`, op: r.data.setEndpointAutoscaling, noopMessage: "The autoscaling is so already: nothing to change." });
    } else if (r.error) {
      setErrors(r.error.graphQLErrors.length > 0 ? kedaServerErrors(r.error.graphQLErrors) : { [generalKey]: errorMessages(r.error) });
    }
  };

  const target = draft.trigger ? targetDefaults[draft.trigger] : null;
  return (
    <form onSubmit={submit} noValidate aria-busy={fetching}>
      <p className="hint">KEDA scales the Deployment on a Prometheus query of the observability workspace: the cluster needs the KEDA and OBSERVABILITY features.</p>
      <FormErrors title="The autoscaling was not set" messages={errors[generalKey]} />
      <div className="group-grid">
        <Field path={kedaPaths.min} label="Fewest replicas" errors={errors} hint="0 to 100.">
          {(props) => <input {...props} type="number" inputMode="numeric" min={0} max={100} step={1} value={draft.min} onChange={(e) => change({ min: e.target.value }, kedaPaths.min)} />}
        </Field>
        <Field path={kedaPaths.max} label="Most replicas" errors={errors} hint="1 to 100, at least the fewest.">
          {(props) => <input {...props} type="number" inputMode="numeric" min={1} max={100} step={1} value={draft.max} onChange={(e) => change({ max: e.target.value }, kedaPaths.max)} />}
        </Field>
      </div>
      <Field path={kedaPaths.trigger} label="Scale on" errors={errors} hint={endpoint.router ? "The router's queue, or the engine's request rate." : "The router's queue needs the SGLang router."}>
        {(props) => (
          <select {...props} value={draft.trigger} onChange={(e) => change({ trigger: e.target.value as KedaDraft["trigger"] }, kedaPaths.trigger)}>
            <option value="">Choose a trigger</option>
            {triggers.map((t) => (
              <option key={t} value={t}>
                {triggerWords[t]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field path={kedaPaths.target} label="Target per replica (optional)" errors={errors} hint={target !== null ? `Empty: ${target}.` : "Empty: 10 requests a second, or a queue of 4."}>
        {(props) => (
          <input {...props} type="number" inputMode="decimal" min={0} step="any" placeholder={target !== null ? String(target) : ""} value={draft.target} onChange={(e) => change({ target: e.target.value }, kedaPaths.target)} />
        )}
      </Field>
      <div className="form-actions">
        <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={fetching}>
          {fetching ? "Setting…" : endpoint.autoscaling?.trigger ? "Change autoscaling" : "Set autoscaling"}
        </GuardedButton>
      </div>
    </form>
  );
}

function BoundsForm({ endpoint, denied, onStarted }: Props) {
  const [edited, setEdited] = useState<BoundsDraft | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [{ fetching }, update] = useMutation(UpdateEndpointMutation);
  const key = useRef<{ sent: string; key: string } | null>(null);
  const draft = edited ?? boundsDraftOf(endpoint);
  const unchanged = !boundsChanged(endpoint, draft);

  const change = (patch: Partial<BoundsDraft>, path: string) => {
    setEdited({ ...draft, ...patch });
    setErrors((e) => clearField(clearField(clearField(e, path), boundsPaths.bounds), generalKey));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateManagedBounds(draft);
    if (hasErrors(found)) {
      setErrors(found);
      return;
    }
    if (unchanged) return;
    const input = boundsInput(draft);
    const sent = JSON.stringify(input);
    if (key.current?.sent !== sent) key.current = { sent, key: newIdempotencyKey() };
    setErrors({});
    const r = await update({ id: endpoint.id, input, idempotencyKey: key.current.key });
    if (r.data) {
      key.current = null;
      setEdited(null);
      onStarted({ what: `Setting the bounds of ${endpoint.name}`, op: r.data.updateEndpoint, noopMessage: "The bounds are so already: nothing to change." });
    } else if (r.error) {
      setErrors(r.error.graphQLErrors.length > 0 ? boundsServerErrors(r.error.graphQLErrors) : { [generalKey]: errorMessages(r.error) });
    }
  };

  return (
    <form onSubmit={submit} noValidate aria-busy={fetching}>
      <p className="hint">The inference operator scales the replicas between these bounds.</p>
      <FormErrors title="The bounds were not set" messages={errors[generalKey]} />
      <FieldErrorList messages={errors[boundsPaths.bounds]} />
      <div className="group-grid">
        <Field path={boundsPaths.min} label="Fewest replicas" errors={errors} hint="0 to 100.">
          {(props) => <input {...props} type="number" inputMode="numeric" min={0} max={100} step={1} value={draft.min} onChange={(e) => change({ min: e.target.value }, boundsPaths.min)} />}
        </Field>
        <Field path={boundsPaths.max} label="Most replicas" errors={errors} hint="1 to 100, at least the fewest.">
          {(props) => <input {...props} type="number" inputMode="numeric" min={1} max={100} step={1} value={draft.max} onChange={(e) => change({ max: e.target.value }, boundsPaths.max)} />}
        </Field>
      </div>
      <div className="form-actions">
        <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={fetching || unchanged}>
          {fetching ? "Setting…" : "Set the bounds"}
        </GuardedButton>
      </div>
    </form>
  );
}
