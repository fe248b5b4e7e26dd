import { useId, useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { OperationDetailFragment } from "../gql/graphql";
import { Field, FieldErrorList, FormErrors, inputId, useFocusFirstError } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { clearField, generalKey, hasErrors, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { addStoragePaths, addStorageServerErrors, addStorageVariables, validateAddStorage, type AddStorageDraft } from "./addStorageForm";
import { AddStorageMutation } from "./documents";

interface Props {
  cluster: { id: string; region: string };
  /** The draft to start from: blank, or the bucket of a failed add. */
  initial: AddStorageDraft;
  /** Why the bucket cannot be added now. */
  denied: string | undefined;
  /** The heading: adding a bucket, or adding a failed one again. */
  title: string;
  onStarted: (op: OperationDetailFragment, bucket: string) => void;
}

/**
 * Gives the cluster its shared bucket: a new one, or one of the account in
 * the cluster's region. The name is checked as S3 checks it before it is
 * sent; the server's errors (a bucket that exists already, or does not, or
 * is another account's) show at the field they concern.
 */
export function AddStorageForm({ cluster, initial, denied, title, onStarted }: Props) {
  const [draft, setDraft] = useState<AddStorageDraft>(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [attempt, setAttempt] = useState(0);
  const formRef = useFocusFirstError(attempt);
  const key = useRef<string | null>(null);
  const [{ fetching }, add] = useMutation(AddStorageMutation);
  const headingId = useId();

  const change = (patch: Partial<AddStorageDraft>, path: string) => {
    key.current = null; // a different request deserves its own key
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((e) => clearField(clearField(e, path), generalKey));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateAddStorage(draft);
    if (hasErrors(found)) {
      setErrors(found);
      setAttempt((n) => n + 1);
      return;
    }
    setErrors({});
    key.current ??= newIdempotencyKey();
    const variables = addStorageVariables(cluster.id, draft, key.current);
    const r = await add(variables);
    if (r.data) {
      onStarted(r.data.addStorage, variables.input.s3!.bucket);
      return;
    }
    if (r.error) {
      setErrors(r.error.graphQLErrors.length > 0 ? addStorageServerErrors(r.error.graphQLErrors) : { [generalKey]: errorMessages(r.error) });
      setAttempt((n) => n + 1);
    }
  };

  const createId = inputId(addStoragePaths.create);
  const createErrors = errors[addStoragePaths.create];
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <p className="muted">
        The cluster has no shared bucket. Pods mount one at <code>/s3</code> through a PersistentVolumeClaim; InstantStart turns the S3 CSI
        driver on for it, with an IAM policy that allows this bucket only.
      </p>
      <form ref={formRef} onSubmit={submit} noValidate aria-busy={fetching}>
        <FormErrors title="The shared bucket was not added" messages={errors[generalKey]} />
        <Field
          path={addStoragePaths.bucket}
          label="Bucket name"
          errors={errors}
          hint="3 to 63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit. Bucket names are global across AWS."
        >
          {(props) => (
            <input
              {...props}
              type="text"
              autoComplete="off"
              spellCheck={false}
              value={draft.bucket}
              onChange={(e) => change({ bucket: e.target.value }, addStoragePaths.bucket)}
            />
          )}
        </Field>
        <fieldset className="field" id={createId} aria-describedby={createErrors ? `${createId}-error` : undefined}>
          <legend className="label">The bucket</legend>
          <div className="choices">
            <label className="choice">
              <input type="radio" name={createId} checked={draft.create} onChange={() => change({ create: true }, addStoragePaths.create)} />
              <span>
                <span className="strong">Create a new bucket</span>
                <span className="hint">Made in {cluster.region}, private, and tagged as InstantStart's. The name must be free.</span>
              </span>
            </label>
            <label className="choice">
              <input type="radio" name={createId} checked={!draft.create} onChange={() => change({ create: false }, addStoragePaths.create)} />
              <span>
                <span className="strong">Use an existing bucket of this account in {cluster.region}</span>
                <span className="hint">Its objects stay as they are; pods see them under /s3.</span>
              </span>
            </label>
          </div>
          <FieldErrorList id={`${createId}-error`} messages={createErrors} />
        </fieldset>
        <div className="form-actions">
          <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={fetching}>
            {fetching ? "Adding…" : "Add shared bucket"}
          </GuardedButton>
        </div>
      </form>
    </section>
  );
}
