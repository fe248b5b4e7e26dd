import { useRef, useState, type FormEvent } from "react";
import { useMutation } from "urql";
import type { JobDetailFragment, OperationDetailFragment } from "../gql/graphql";
import { Dialog } from "../ui/Dialog";
import { FieldErrorList } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { newIdempotencyKey } from "../ui/fieldErrors";
import { DeleteJobMutation } from "./documents";

interface Props {
  job: JobDetailFragment;
  onClose: () => void;
  onStarted: (op: OperationDetailFragment) => void;
}

/** Says what deleting a job stops and what stays, and deletes it when confirmed. */
export function DeleteJobDialog({ job, onClose, onStarted }: Props) {
  const [errors, setErrors] = useState<string[] | null>(null);
  const [{ fetching }, deleteJob] = useMutation(DeleteJobMutation);
  const key = useRef(newIdempotencyKey());
  const running = job.status === "PENDING" || job.status === "RUNNING" || job.status === "RESTARTING";

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setErrors(null);
    const r = await deleteJob({ id: job.id, idempotencyKey: key.current });
    if (r.data) onStarted(r.data.deleteJob);
    else if (r.error) setErrors(errorMessages(r.error));
  };

  return (
    <Dialog title={`Delete the job ${job.name}?`} onClose={onClose}>
      <form onSubmit={submit}>
        <p>
          This deletes the {job.kind === "RAY_JOB" ? "RayJob" : "HyperPodPyTorchJob"} <code>{job.name}</code> in <code>{job.namespace}</code> and its pods
          {running ? <strong>: training stops now</strong> : ""}.
        </p>
        <p>
          Its outputs in <code>{job.outputPath}</code> and checkpoints in <code>{job.checkpointPath}</code> stay in the bucket, and its record stays
          here, DELETED.
        </p>
        <FieldErrorList messages={errors ?? undefined} />
        <div className="form-actions">
          <button type="submit" className="button button-danger" disabled={fetching}>
            {fetching ? "Deleting…" : "Delete job"}
          </button>
          <button type="button" className="button button-quiet" onClick={onClose} autoFocus>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
