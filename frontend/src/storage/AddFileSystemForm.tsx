import { useId, useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { FsxDeploymentType, OperationDetailFragment } from "../gql/graphql";
import { Field, FieldErrorList, FormErrors, inputId, useFocusFirstError } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { clearField, generalKey, hasErrors, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import {
  addFileSystemServerErrors,
  addFileSystemVariables,
  blankFileSystemDraft,
  canLinkBucket,
  capacity,
  deploymentTypes,
  fileSystemPaths,
  throughputChoices,
  validateFileSystem,
  withDeploymentType,
  type FileSystemDraft,
} from "./addFileSystemForm";
import { AddStorageMutation } from "./documents";

interface Props {
  clusterId: string;
  /** The zones of the cluster's compute subnets, where a file system can go. */
  zones: readonly string[];
  /** The shared bucket's status, null when there is none: a PERSISTENT_2 file system may link it once it is AVAILABLE. */
  bucketStatus: string | null;
  /** The shared bucket's name, to say what linking it does. */
  bucket: string | null;
  /** Why a file system cannot be added now. */
  denied: string | undefined;
  onStarted: (op: OperationDetailFragment, name: string) => void;
  onCancel: () => void;
}

/**
 * Adds an FSx for Lustre file system next to the cluster's nodes: its
 * name, deployment type, capacity and throughput, checked as FSx checks
 * them before anything is sent; the throughput offers only what the type
 * takes, and linking the shared bucket shows only where FSx can.
 */
export function AddFileSystemForm({ clusterId, zones, bucketStatus, bucket, denied, onStarted, onCancel }: Props) {
  const [draft, setDraft] = useState<FileSystemDraft>(blankFileSystemDraft);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [attempt, setAttempt] = useState(0);
  const formRef = useFocusFirstError(attempt);
  const key = useRef<string | null>(null);
  const [{ fetching }, add] = useMutation(AddStorageMutation);
  const headingId = useId();

  const change = (next: (d: FileSystemDraft) => FileSystemDraft, ...paths: string[]) => {
    key.current = null; // a different request deserves its own key
    setDraft(next);
    setErrors((e) => [...paths, generalKey].reduce(clearField, e));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateFileSystem(draft, bucketStatus);
    if (hasErrors(found)) {
      setErrors(found);
      setAttempt((n) => n + 1);
      return;
    }
    setErrors({});
    key.current ??= newIdempotencyKey();
    const variables = addFileSystemVariables(clusterId, draft, bucketStatus, key.current);
    const r = await add(variables);
    if (r.data) {
      onStarted(r.data.addStorage, variables.input.fsxLustre!.name);
      return;
    }
    if (r.error) {
      setErrors(r.error.graphQLErrors.length > 0 ? addFileSystemServerErrors(r.error.graphQLErrors) : { [generalKey]: errorMessages(r.error) });
      setAttempt((n) => n + 1);
    }
  };

  const name = draft.name.trim();
  const choices = throughputChoices(draft.deploymentType);
  const typeId = inputId(fileSystemPaths.deploymentType);
  const typeErrors = errors[fileSystemPaths.deploymentType];
  const linkId = inputId(fileSystemPaths.linkSharedBucket);
  const linkErrors = errors[fileSystemPaths.linkSharedBucket];
  const linkable = canLinkBucket(draft.deploymentType, bucketStatus);
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Add FSx for Lustre</h2>
      <p className="muted">
        A Lustre file system in one of the cluster's compute subnets, behind its own security group that lets the nodes reach it. Pods mount it
        through the claim <code>fsx-{name || "<name>"}</code> at <code>/fsx/{name || "<name>"}</code>; InstantStart turns the FSx CSI driver
        on for it. Fast shared space for checkpoints and scratch data.
      </p>
      <form ref={formRef} onSubmit={submit} noValidate aria-busy={fetching}>
        <FormErrors title="The file system was not added" messages={errors[generalKey]} />
        <Field path={fileSystemPaths.name} label="Name" errors={errors} hint="1 to 40 lower-case letters, digits and hyphens, starting and ending with a letter or digit.">
          {(props) => (
            <input
              {...props}
              type="text"
              autoComplete="off"
              spellCheck={false}
              value={draft.name}
              onChange={(e) => {
                const value = e.target.value;
                change((d) => ({ ...d, name: value }), fileSystemPaths.name);
              }}
            />
          )}
        </Field>
        <fieldset className="field" id={typeId} aria-describedby={typeErrors ? `${typeId}-error` : undefined}>
          <legend className="label">Deployment type</legend>
          <div className="choices">
            {deploymentTypes.map((t) => (
              <label className="choice" key={t.type}>
                <input
                  type="radio"
                  name={typeId}
                  value={t.type}
                  checked={draft.deploymentType === t.type}
                  onChange={() =>
                    change((d) => withDeploymentType(d, t.type as FsxDeploymentType), fileSystemPaths.deploymentType, fileSystemPaths.throughputPerTiB, fileSystemPaths.linkSharedBucket)
                  }
                />
                <span>
                  <span className="strong">
                    {t.title} <code>{t.type}</code>
                  </span>
                  <span className="hint">{t.hint}</span>
                </span>
              </label>
            ))}
          </div>
          <FieldErrorList id={`${typeId}-error`} messages={typeErrors} />
        </fieldset>
        <Field
          path={fileSystemPaths.capacityGiB}
          label="Capacity (GiB)"
          errors={errors}
          hint={`${capacity.min} GiB, or a multiple of ${capacity.step} GiB (FSx's steps for SSD Lustre), at most ${capacity.max.toLocaleString("en-US")} GiB.`}
        >
          {(props) => (
            <input
              {...props}
              type="number"
              inputMode="numeric"
              min={capacity.min}
              max={capacity.max}
              step={capacity.min}
              value={draft.capacityGiB}
              onChange={(e) => {
                const value = e.target.value;
                change((d) => ({ ...d, capacityGiB: value }), fileSystemPaths.capacityGiB);
              }}
            />
          )}
        </Field>
        {choices.length > 0 ? (
          <Field path={fileSystemPaths.throughputPerTiB} label="Throughput (MB/s per TiB)" errors={errors} hint={`What ${draft.deploymentType} takes. More throughput costs more per GiB.`}>
            {(props) => (
              <select
                {...props}
                value={draft.throughputPerTiB ?? ""}
                onChange={(e) => {
                  const value = Number(e.target.value);
                  change((d) => ({ ...d, throughputPerTiB: value }), fileSystemPaths.throughputPerTiB);
                }}
              >
                {choices.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : (
          <p className="hint">A {draft.deploymentType} file system takes no throughput setting: it has 200 MB/s per TiB of capacity.</p>
        )}
        <Field path={fileSystemPaths.zone} label="Zone (optional)" errors={errors} hint="Put it in the zone of the nodes that use it most: reads across zones cost more and take longer.">
          {(props) => (
            <select
              {...props}
              value={draft.zone}
              onChange={(e) => {
                const value = e.target.value;
                change((d) => ({ ...d, zone: value }), fileSystemPaths.zone);
              }}
            >
              <option value="">{zones.length > 0 ? `The first compute subnet's (${zones[0]})` : "The first compute subnet's"}</option>
              {zones.map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
          )}
        </Field>
        {linkable && (
          <div className="field">
            <label className="check">
              <input
                id={linkId}
                type="checkbox"
                checked={draft.linkSharedBucket}
                aria-invalid={linkErrors ? true : undefined}
                aria-describedby={`${linkId}-hint${linkErrors ? ` ${linkId}-error` : ""}`}
                onChange={(e) => {
                  const checked = e.target.checked;
                  change((d) => ({ ...d, linkSharedBucket: checked }), fileSystemPaths.linkSharedBucket);
                }}
              />
              <span>Link the shared bucket</span>
            </label>
            <p id={`${linkId}-hint`} className="hint">
              The objects of {bucket ?? "the shared bucket"} appear at <code>/fsx/{name || "<name>"}/s3</code> and new files written there go back
              to the bucket. Removing the file system later leaves the bucket's objects.
            </p>
            <FieldErrorList id={`${linkId}-error`} messages={linkErrors} />
          </div>
        )}
        {!linkable && draft.deploymentType === "PERSISTENT_2" && (
          <p className="hint">
            A PERSISTENT_2 file system can link the shared bucket once it is AVAILABLE ({bucketStatus ? `it is ${bucketStatus}` : "the cluster has none yet"}).
          </p>
        )}
        {!linkable && <FieldErrorList id={`${linkId}-error`} messages={linkErrors} />}
        <div className="form-actions">
          <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={fetching}>
            {fetching ? "Adding…" : "Add file system"}
          </GuardedButton>
          <button type="button" className="button button-quiet" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
