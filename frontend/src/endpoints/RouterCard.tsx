import { useId, useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { EndpointDetailFragment, RouterPolicy } from "../gql/graphql";
import { errorMessages } from "../ui/feedback";
import { Field, FormErrors } from "../ui/Field";
import { generalKey, newIdempotencyKey, sortServerErrors, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { DeployRouterMutation } from "./documents";
import { defaultPolicy, routerPolicies } from "./endpointActions";
import type { Started } from "./EndpointPage";
import { routerPolicyWords } from "./endpointWords";

interface Props {
  endpoint: EndpointDetailFragment;
  denied: string | undefined;
  onStarted: (s: Started) => void;
}

const policyPath = "policy";

/**
 * The SGLang router in front of an SGLang endpoint (deployRouter): it finds
 * the endpoint's pods by their label, and invocations go through it. Its
 * policy can be changed in place.
 */
export function RouterCard({ endpoint, denied, onStarted }: Props) {
  const router = endpoint.router;
  const [chosen, setChosen] = useState<RouterPolicy | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [{ fetching }, deployRouter] = useMutation(DeployRouterMutation);
  const key = useRef<{ policy: string; key: string } | null>(null);
  const headingId = useId();
  const policy = chosen ?? router?.policy ?? defaultPolicy;
  const unchanged = router !== null && router !== undefined && policy === router.policy;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (unchanged) return;
    if (key.current?.policy !== policy) key.current = { policy, key: newIdempotencyKey() };
    setErrors({});
    const r = await deployRouter({ endpointId: endpoint.id, policy, idempotencyKey: key.current.key });
    if (r.data) {
      key.current = null;
      setChosen(null);
      onStarted({ what: router ? `Changing the router's policy to ${policy}` : `Deploying the SGLang router of ${endpoint.name}`, op: r.data.deployRouter, noopMessage: "The router is so already: nothing to change." });
    } else if (r.error) {
      setErrors(r.error.graphQLErrors.length > 0 ? sortServerErrors(r.error.graphQLErrors, (f) => (f === policyPath ? policyPath : generalKey)) : { [generalKey]: errorMessages(r.error) });
    }
  };

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>SGLang router</h2>
      {router ? (
        <dl className="meta">
          <div>
            <dt>Router</dt>
            <dd>
              <code>{router.name}</code>
            </dd>
          </div>
          <div>
            <dt>Policy</dt>
            <dd>{routerPolicyWords[router.policy] ?? router.policy}</dd>
          </div>
          <div>
            <dt>Ready replicas</dt>
            <dd>{router.readyReplicas}</dd>
          </div>
        </dl>
      ) : (
        <p className="muted">No router yet: invocations go to the endpoint's Service. A router spreads requests over the workers by the policy chosen, and lets KEDA scale on its queue.</p>
      )}
      <form onSubmit={submit} noValidate aria-busy={fetching}>
        <FormErrors title="The router was not deployed" messages={errors[generalKey]} />
        <Field path={policyPath} label="Policy" errors={errors}>
          {(props) => (
            <select
              {...props}
              value={policy}
              onChange={(e) => {
                setChosen(e.target.value as RouterPolicy);
                setErrors({});
              }}
            >
              {routerPolicies.map((p) => (
                <option key={p} value={p}>
                  {routerPolicyWords[p]}
                  {p === defaultPolicy ? " (the router's default)" : ""}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div className="form-actions">
          <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={fetching || unchanged}>
            {fetching ? "Deploying…" : router ? "Change the policy" : "Deploy the router"}
          </GuardedButton>
        </div>
      </form>
    </section>
  );
}
