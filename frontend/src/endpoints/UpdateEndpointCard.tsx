import { useId, useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { EndpointDetailFragment } from "../gql/graphql";
import { errorMessages } from "../ui/feedback";
import { Field, FormErrors, WholeNumberField } from "../ui/Field";
import { clearField, generalKey, hasErrors, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { UpdateEndpointMutation } from "./documents";
import { imageEditable, kedaScales, updateDraftOf, updateInput, updatePaths, updateServerErrors, validateUpdate, type UpdateDraft } from "./endpointActions";
import type { Started } from "./EndpointPage";

interface Props {
  endpoint: EndpointDetailFragment;
  /** Why the endpoint cannot be changed now, if it cannot. */
  denied: string | undefined;
  onStarted: (s: Started) => void;
}

/** Changes an endpoint's replicas and image (updateEndpoint): only what differs is sent. */
export function UpdateEndpointCard({ endpoint, denied, onStarted }: Props) {
  // Until the user changes a field, the form follows the endpoint as it changes.
  const [edited, setEdited] = useState<UpdateDraft | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [{ fetching }, update] = useMutation(UpdateEndpointMutation);
  const key = useRef<{ sent: string; key: string } | null>(null);
  const headingId = useId();
  const draft = edited ?? updateDraftOf(endpoint);
  const input = updateInput(endpoint, draft);
  const unchanged = Object.keys(input).length === 0;
  const scaled = kedaScales(endpoint);

  const change = (patch: Partial<UpdateDraft>, path: string) => {
    setEdited({ ...draft, ...patch });
    setErrors((e) => clearField(clearField(e, path), generalKey));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateUpdate(endpoint, draft);
    if (hasErrors(found)) {
      setErrors(found);
      return;
    }
    if (unchanged) return;
    const sent = JSON.stringify(input);
    if (key.current?.sent !== sent) key.current = { sent, key: newIdempotencyKey() };
    setErrors({});
    const r = await update({ id: endpoint.id, input, idempotencyKey: key.current.key });
    if (r.data) {
      key.current = null;
      setEdited(null);
      onStarted({ what: `Updating ${endpoint.name}`, op: r.data.updateEndpoint, noopMessage: `${endpoint.name} is so already: nothing to change.` });
    } else if (r.error) {
      setErrors(r.error.graphQLErrors.length > 0 ? updateServerErrors(r.error.graphQLErrors) : { [generalKey]: errorMessages(r.error) });
    }
  };

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Replicas and image</h2>
      <form onSubmit={submit} noValidate aria-busy={fetching}>
        <FormErrors title="The endpoint was not changed" messages={errors[generalKey]} />
        <WholeNumberField
          path={updatePaths.replicas}
          label="Replicas"
          errors={errors}
          min={0}
          max={100}
          value={draft.replicas}
          onChange={(v) => change({ replicas: v }, updatePaths.replicas)}
          hint={scaled ? "KEDA sets the replicas between the autoscaling bounds: change those instead." : "0 to 100. 0 keeps the endpoint and frees its GPUs."}
        />
        {imageEditable(endpoint) && (
          <Field path={updatePaths.image} label="Image" errors={errors} hint="A new image rolls the replicas over one by one.">
            {(props) => <input {...props} type="text" autoComplete="off" spellCheck={false} value={draft.image} onChange={(e) => change({ image: e.target.value }, updatePaths.image)} />}
          </Field>
        )}
        <div className="form-actions">
          <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={fetching || unchanged}>
            {fetching ? "Applying…" : "Apply changes"}
          </GuardedButton>
          {edited && (
            <button
              type="button"
              className="button button-quiet"
              onClick={() => {
                setEdited(null);
                setErrors({});
              }}
            >
              Reset
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
