import { useId, useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { OperationDetailFragment } from "../gql/graphql";
import { Field, FormErrors, useFocusFirstError } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { clearField, generalKey, hasErrors, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { DownloadModelMutation } from "./documents";
import {
  blankDownloadDraft,
  defaultModelName,
  defaultRevision,
  downloadPaths,
  downloadServerErrors,
  downloadVariables,
  folderName,
  validateDownload,
  type DownloadDraft,
} from "./downloadForm";

interface Props {
  clusterId: string;
  /** The shared bucket the model goes to. */
  bucket: string;
  /** Why a model cannot be downloaded now. */
  denied: string | undefined;
  onStarted: (op: OperationDetailFragment, modelId: string, folder: string) => void;
}

/**
 * Downloads a model from the Hugging Face Hub into the shared bucket. It
 * asks only what is a decision: the model, its revision, the folder (the
 * server's default shown), and a token for a gated or private model. The
 * token is never shown back: it leaves the form's state when the form is
 * sent, and is sent only when there is one.
 */
export function DownloadModelForm({ clusterId, bucket, denied, onStarted }: Props) {
  const [draft, setDraft] = useState<DownloadDraft>(blankDownloadDraft);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [attempt, setAttempt] = useState(0);
  const formRef = useFocusFirstError(attempt);
  const key = useRef<string | null>(null);
  const [{ fetching }, download] = useMutation(DownloadModelMutation);
  const headingId = useId();

  const change = (patch: Partial<DownloadDraft>, path: string) => {
    key.current = null; // a different request deserves its own key
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((e) => clearField(clearField(e, path), generalKey));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateDownload(draft);
    if (hasErrors(found)) {
      setErrors(found);
      setAttempt((n) => n + 1);
      return;
    }
    setErrors({});
    key.current ??= newIdempotencyKey();
    const variables = downloadVariables(clusterId, draft, key.current);
    const folder = folderName(draft);
    // The token leaves the form's state as it is sent; sending again
    // without it is another request, with its own key.
    const sentToken = draft.token !== "";
    if (sentToken) setDraft((d) => ({ ...d, token: "" }));
    const r = await download(variables);
    if (sentToken || r.data) key.current = null;
    if (r.data) {
      setDraft(blankDownloadDraft());
      onStarted(r.data.downloadModel, variables.input.modelId, folder);
      return;
    }
    if (r.error) {
      setErrors(r.error.graphQLErrors.length > 0 ? downloadServerErrors(r.error.graphQLErrors) : { [generalKey]: errorMessages(r.error) });
      setAttempt((n) => n + 1);
    }
  };

  const fallback = defaultModelName(draft.modelId.trim());
  const folder = folderName(draft);
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Download a model</h2>
      <p className="muted">
        From the Hugging Face Hub into <code>s3://{bucket}/models/</code>, by a Kubernetes Job on the cluster: the files go from the hub to
        the bucket and never pass through InstantStart. The same model again changes nothing; a download that failed or was cancelled
        resumes, keeping the files already there.
      </p>
      <form ref={formRef} onSubmit={submit} noValidate aria-busy={fetching}>
        <FormErrors title="The model was not downloaded" messages={errors[generalKey]} />
        <Field path={downloadPaths.modelId} label="Model" errors={errors} hint="Its id on Hugging Face, org/name: for example Qwen/Qwen2.5-0.5B-Instruct.">
          {(props) => (
            <input
              {...props}
              type="text"
              autoComplete="off"
              spellCheck={false}
              placeholder="Qwen/Qwen2.5-0.5B-Instruct"
              value={draft.modelId}
              onChange={(e) => change({ modelId: e.target.value }, downloadPaths.modelId)}
            />
          )}
        </Field>
        <Field
          path={downloadPaths.revision}
          label="Revision"
          errors={errors}
          hint="A branch, a tag or a commit id. The download fetches the commit it points to now, and the list shows which."
        >
          {(props) => (
            <input
              {...props}
              type="text"
              autoComplete="off"
              spellCheck={false}
              placeholder={defaultRevision}
              value={draft.revision}
              onChange={(e) => change({ revision: e.target.value }, downloadPaths.revision)}
            />
          )}
        </Field>
        <Field
          path={downloadPaths.name}
          label="Folder (optional)"
          errors={errors}
          hint={
            <>
              {fallback ? (
                <>
                  Leave it empty for <code>models/{fallback}/</code>, the model's name lower-cased.
                </>
              ) : (
                "Leave it empty for the model's name, lower-cased."
              )}{" "}
              Up to 48 lower-case letters, digits, '.', '_' and '-'.{" "}
              {folder && (
                <>
                  Pods will see it at <code>/s3/models/{folder}</code>.
                </>
              )}
            </>
          }
        >
          {(props) => (
            <input
              {...props}
              type="text"
              autoComplete="off"
              spellCheck={false}
              placeholder={fallback || undefined}
              value={draft.name}
              onChange={(e) => change({ name: e.target.value }, downloadPaths.name)}
            />
          )}
        </Field>
        <Field
          path={downloadPaths.token}
          label="Hugging Face token (optional)"
          errors={errors}
          hint="Only for a gated or private model: an access token (huggingface.co/settings/tokens) of an account granted access. It goes to a Kubernetes Secret that only the download Job reads, deleted once the model is there; InstantStart never stores it or shows it again."
        >
          {(props) => (
            <input
              {...props}
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={draft.token}
              onChange={(e) => change({ token: e.target.value }, downloadPaths.token)}
            />
          )}
        </Field>
        <div className="form-actions">
          <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={fetching}>
            {fetching ? "Starting…" : "Download"}
          </GuardedButton>
        </div>
      </form>
    </section>
  );
}
