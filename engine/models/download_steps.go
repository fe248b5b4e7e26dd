package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Phase names of DownloadModel.
const (
	phaseJob      = "job"
	phaseDownload = "download"
	phaseToken    = "token"
)

// The download Job.
const (
	// DownloaderImage runs the download script: a shell and curl.
	DownloaderImage = "docker.io/curlimages/curl:8.11.1"
	// programLabel tells what the pod runs (the simulator plays it).
	programLabel = "instantstart.io/program"
	program      = "model-download"
	// jobTTL is how long a finished Job stays for kubectl; the model's
	// record outlives it.
	jobTTL = 3600
	// jobBackoff is how many failed pods a Job retries; each resumes.
	jobBackoff = 3
	// jobDeadline bounds a Job, in seconds: the largest models take hours.
	jobDeadline = 24 * 3600
	// hubEndpoint is where the pods fetch files from.
	hubEndpoint = "https://huggingface.co"
)

// downloadScript fetches each file of FILES ("<size>\t<path>" lines)
// from the hub at the commit into DEST, skipping those already there with
// their size: a retry resumes. A partial file is deleted before it is
// fetched again (the bucket's mount allows deletes, not overwrites).
const downloadScript = `set -eu
tab="$(printf '\t')"
printf '%s\n' "$FILES" | while IFS="$tab" read -r size path; do
  [ -n "$path" ] || continue
  target="$DEST/$path"
  if [ -f "$target" ] && [ "$(stat -c %s "$target")" = "$size" ]; then echo "have $path ($size bytes)"; continue; fi
  rm -f "$target"
  mkdir -p "$(dirname "$target")"
  echo "fetch $path ($size bytes)"
  if [ -n "${HF_TOKEN:-}" ]; then
    curl -fsSL --retry 5 --retry-delay 5 -H "Authorization: Bearer $HF_TOKEN" -o "$target" "$HF_ENDPOINT/$MODEL_ID/resolve/$REVISION/$path"
  else
    curl -fsSL --retry 5 --retry-delay 5 -o "$target" "$HF_ENDPOINT/$MODEL_ID/resolve/$REVISION/$path"
  fi
done
echo "downloaded $MODEL_ID at $REVISION to $DEST"
`

// jobOutput names the Job the job phase made.
type jobOutput struct {
	Job string `json:"job"`
}

// progress is what the bucket holds of the model, whole.
type progress struct {
	FilesDone int   `json:"filesDone"`
	BytesDone int64 `json:"bytesDone"`
}

// downloadSteps builds DownloadModel's phases from its stored input.
func (s *Service) downloadSteps(op *ops.Operation) ([]ops.Step, error) {
	var in downloadInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	c, p, b, err := s.reachBucket(in.ClusterID, false)
	if err != nil {
		return nil, err
	}
	return []ops.Step{jobStep(p, c, b, in), downloadStep(p, c, b, in), tokenStep(p, c, b, in)}, nil
}

// jobName is the download Job of operation opID's attempt: each attempt
// a new Job, which resumes what the ones before left. It leaves room for
// the pods' suffix within Kubernetes' 63 characters.
func jobName(in downloadInput, opID string, attempt int) string {
	name := in.Name
	if len(name) > 40 {
		name = strings.TrimRight(name[:40], "._-")
	}
	name = strings.ReplaceAll(name, ".", "-")
	name = strings.ReplaceAll(name, "_", "-")
	return "dl-" + name + "-" + strings.ToLower(opID[len(opID)-6:]) + "-" + strconv.Itoa(attempt)
}

// downloadJob is the Job that copies the model into the bucket.
func downloadJob(in downloadInput, b *hyperpod.Bucket, name string) *batchv1.Job {
	var files strings.Builder
	for _, f := range in.Files {
		fmt.Fprintf(&files, "%d\t%s\n", f.Size, f.Path)
	}
	env := []corev1.EnvVar{
		{Name: "MODEL_ID", Value: in.ModelID}, {Name: "REVISION", Value: in.Commit},
		{Name: "DEST", Value: b.MountPath + "/" + Prefix + in.Name}, {Name: "FILES", Value: files.String()},
		{Name: "HF_ENDPOINT", Value: hubEndpoint},
	}
	if in.Secret != "" {
		optional := true
		env = append(env, corev1.EnvVar{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: in.Secret}, Key: tokenKey, Optional: &optional}}})
	}
	labels := map[string]string{managedBy: "instantstart", modelLabel: in.ModelRecordID, programLabel: program}
	backoff, ttl, deadline := int32(jobBackoff), int32(jobTTL), int64(jobDeadline)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: b.Namespace, Labels: labels,
			Annotations: map[string]string{"instantstart.io/source": "huggingface.co/" + in.ModelID + "@" + in.Commit}},
		Spec: batchv1.JobSpec{BackoffLimit: &backoff, TTLSecondsAfterFinished: &ttl, ActiveDeadlineSeconds: &deadline,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "download", Image: DownloaderImage, Command: []string{"/bin/sh", "-c", downloadScript}, Env: env,
						Resources:    corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")}},
						VolumeMounts: []corev1.VolumeMount{{Name: "s3", MountPath: b.MountPath}}}},
					Volumes: []corev1.Volume{{Name: "s3", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: b.ClaimName}}}},
				}},
		},
	}
}

// jobStep makes this attempt's download Job.
func jobStep(p *cloud.Provider, c *hyperpod.Cluster, b *hyperpod.Bucket, in downloadInput) ops.Step {
	return ops.Step{Name: phaseJob, Title: "Download Job on " + c.Name, Recheck: true,
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			kc, err := p.KubeOf(ctx, c.EKS.Name)
			if err != nil {
				return ops.Observation{}, err
			}
			name := jobName(in, run.Op.ID, run.Attempt)
			_, err = kc.Core.BatchV1().Jobs(b.Namespace).Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				return ops.Observation{State: ops.Absent}, nil
			case err != nil:
				return ops.Observation{}, errs.Wrap(errs.Upstream, err, "read Job %s: %v", name, err)
			}
			return ops.Observation{State: ops.Done, Output: jobOutput{Job: name}}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			kc, err := p.KubeOf(ctx, c.EKS.Name)
			if err != nil {
				return nil, err
			}
			name := jobName(in, run.Op.ID, run.Attempt)
			if _, err := kc.Core.BatchV1().Jobs(b.Namespace).Create(ctx, downloadJob(in, b, name), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return nil, errs.Wrap(errs.Upstream, err, "create Job %s: %v", name, err)
			}
			return jobOutput{Job: name}, nil
		},
	}
}

// maxFolderObjects bounds the objects read from a model's folder: the
// model's own files and what else was put there.
const maxFolderObjects = 20 * 1000

// eachObject calls fn with the objects under prefix, at most max of them,
// and tells whether it saw them all.
func eachObject(ctx context.Context, p *cloud.Provider, bucket, prefix string, max int, fn func(key string, size int64, modified *time.Time)) (bool, error) {
	pages := s3.NewListObjectsV2Paginator(p.S3, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix), MaxKeys: aws.Int32(int32(min(max, 1000)))})
	seen := 0
	for pages.HasMorePages() {
		if seen >= max {
			return false, nil
		}
		out, err := pages.NextPage(ctx)
		if err != nil {
			return false, errs.FromUpstream(err, "list "+prefix+" in bucket "+bucket)
		}
		for _, o := range out.Contents {
			fn(strings.TrimPrefix(aws.ToString(o.Key), prefix), aws.ToInt64(o.Size), o.LastModified)
		}
		seen += len(out.Contents)
	}
	return true, nil
}

// have reads what the bucket holds of the model's files, whole.
func have(ctx context.Context, p *cloud.Provider, bucket string, in downloadInput) (progress, error) {
	want := make(map[string]int64, len(in.Files))
	for _, f := range in.Files {
		want[f.Path] = f.Size
	}
	var got progress
	all, err := eachObject(ctx, p, bucket, Prefix+in.Name+"/", maxFolderObjects, func(key string, size int64, _ *time.Time) {
		if n, ok := want[key]; ok && n == size {
			got.FilesDone++
			got.BytesDone += size
		}
	})
	if err == nil && !all && got.FilesDone < len(in.Files) {
		err = errs.New(errs.Precondition, "%s%s/ in bucket %s holds more than %d objects; move what is not the model's out of it, then retry", Prefix, in.Name, bucket, maxFolderObjects)
	}
	return got, err
}

// folderHasObjects tells whether a folder of the bucket holds objects.
func folderHasObjects(ctx context.Context, p *cloud.Provider, bucket, prefix string) (bool, error) {
	out, err := p.S3.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix), MaxKeys: aws.Int32(1)})
	if err != nil {
		return false, errs.FromUpstream(err, "list "+prefix+" in bucket "+bucket)
	}
	return len(out.Contents) > 0, nil
}

// downloadStep follows the Job and the bucket until every file is there.
func downloadStep(p *cloud.Provider, c *hyperpod.Cluster, b *hyperpod.Bucket, in downloadInput) ops.Step {
	total, bytes := len(in.Files), totalBytes(in.Files)
	return ops.Step{Name: phaseDownload, Title: fmt.Sprintf("Copy %s to s3://%s/%s%s/", in.ModelID, b.Name, Prefix, in.Name), DependsOn: []string{phaseJob}, Timeout: jobDeadline * time.Second,
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			job, err := ops.OutputOf[jobOutput](run.Op, phaseJob)
			if err != nil {
				return ops.Observation{}, err
			}
			// The Job first, then the bucket: the listing then holds at
			// least what the Job had done when it was read.
			kc, err := p.KubeOf(ctx, c.EKS.Name)
			if err != nil {
				return ops.Observation{}, err
			}
			j, jobErr := kc.Core.BatchV1().Jobs(b.Namespace).Get(ctx, job.Job, metav1.GetOptions{})
			got, err := have(ctx, p, b.Name, in)
			if err != nil {
				return ops.Observation{}, err
			}
			msg := fmt.Sprintf("%d of %d files, %s of %s", got.FilesDone, total, humanBytes(got.BytesDone), humanBytes(bytes))
			if got.FilesDone == total {
				return ops.Observation{State: ops.Done, Output: got, Message: msg}, nil
			}
			switch err := jobErr; {
			case apierrors.IsNotFound(err):
				return ops.Observation{State: ops.Broken, Output: got, Err: errs.New(errs.Upstream, "Job %s is gone with %s done; retry the operation to resume", job.Job, msg)}, nil
			case err != nil:
				return ops.Observation{}, errs.Wrap(errs.Upstream, err, "read Job %s: %v", job.Job, err)
			}
			if why := jobFailure(ctx, kc.Core.CoreV1().Pods(b.Namespace), j); why != "" {
				return ops.Observation{State: ops.Broken, Output: got, Err: errs.New(errs.Upstream, "the download failed (%s) with %s done; retry the operation to resume: the files there are kept", why, msg)}, nil
			}
			if jobEnded(j, batchv1.JobComplete) {
				return ops.Observation{State: ops.Broken, Output: got, Err: errs.New(errs.Upstream, "Job %s completed but the bucket holds %s; files were removed meanwhile: retry the operation", job.Job, msg)}, nil
			}
			if waits := podWaits(ctx, kc.Core.CoreV1().Pods(b.Namespace), j.Name); waits != "" {
				msg += "; " + waits
			}
			return ops.Observation{State: ops.Pending, Output: got, Message: msg}, nil
		},
	}
}

// podWaits says why Job job's pod has not started, "" when it runs or
// there is none: what the scheduler or the kubelet said of it.
func podWaits(ctx context.Context, pods podLister, job string) string {
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + job})
	if err != nil {
		return ""
	}
	for _, pod := range list.Items {
		if pod.Status.Phase != corev1.PodPending || pod.DeletionTimestamp != nil {
			continue
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message != "" {
				return "pod " + pod.Name + " waits for a node: " + c.Message
			}
		}
		for _, st := range pod.Status.ContainerStatuses {
			if w := st.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
				return "pod " + pod.Name + " is " + w.Reason + ": " + w.Message
			}
		}
	}
	return ""
}

func jobEnded(j *batchv1.Job, typ batchv1.JobConditionType) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == typ && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// podLister is the part of the pods client jobFailure reads.
type podLister interface {
	List(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error)
}

// jobFailure says why Job j failed, "" while it has not: its condition,
// and what its last failed pod's container said.
func jobFailure(ctx context.Context, pods podLister, j *batchv1.Job) string {
	var why string
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			why = strings.TrimSpace(c.Reason + ": " + c.Message)
		}
	}
	if why == "" {
		return ""
	}
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + j.Name})
	if err != nil {
		return why
	}
	var last *corev1.ContainerStateTerminated
	for _, pod := range list.Items {
		for _, st := range pod.Status.ContainerStatuses {
			if t := st.State.Terminated; t != nil && t.ExitCode != 0 && (last == nil || t.FinishedAt.After(last.FinishedAt.Time)) {
				last = t
			}
		}
	}
	if last != nil && last.Message != "" {
		why += "; the last pod: " + last.Message
	}
	return why
}

// tokenStep deletes the token's Secret once the model is there.
func tokenStep(p *cloud.Provider, c *hyperpod.Cluster, b *hyperpod.Bucket, in downloadInput) ops.Step {
	return ops.Step{Name: phaseToken, Title: "Delete the token's Secret", DependsOn: []string{phaseDownload},
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			if in.Secret == "" {
				return ops.Observation{State: ops.NotNeeded}, nil
			}
			kc, err := p.KubeOf(ctx, c.EKS.Name)
			if err != nil {
				return ops.Observation{}, err
			}
			_, err = kc.Core.CoreV1().Secrets(b.Namespace).Get(ctx, in.Secret, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				return ops.Observation{State: ops.Done}, nil
			case err != nil:
				return ops.Observation{}, errs.Wrap(errs.Upstream, err, "read Secret %s: %v", in.Secret, err)
			}
			return ops.Observation{State: ops.Absent}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			return nil, deleteTokenSecret(ctx, p, c, b.Namespace, in.Secret)
		},
	}
}

// cancelled deletes a cancelled download's Job, with its pods, and the
// token's Secret. The files it copied stay; the model is CANCELLED.
func (s *Service) cancelled(ctx context.Context, op *ops.Operation) error {
	var in downloadInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return err
	}
	c, p, b, err := s.reachBucket(in.ClusterID, false)
	if err != nil {
		return err
	}
	kc, err := p.Kubernetes.Clients(ctx, c.EKS.Name)
	if err != nil {
		return err
	}
	if job, err := ops.OutputOf[jobOutput](op, phaseJob); err == nil && job.Job != "" {
		background := metav1.DeletePropagationBackground
		if err := kc.Core.BatchV1().Jobs(b.Namespace).Delete(ctx, job.Job, metav1.DeleteOptions{PropagationPolicy: &background}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete Job %s: %w", job.Job, err)
		}
	}
	if in.Secret != "" {
		return deleteTokenSecret(ctx, p, c, b.Namespace, in.Secret)
	}
	return nil
}

// reflectModel keeps the model's record in line with its download.
func reflectModel(tx *store.Tx, op *ops.Operation) error {
	var in downloadInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return err
	}
	var m Model
	if err := tx.Get(RecordKind, in.ModelRecordID, &m); err != nil {
		return fmt.Errorf("load model %s: %w", in.ModelRecordID, err)
	}
	if op.Noop {
		return nil
	}
	if job, err := ops.OutputOf[jobOutput](op, phaseJob); err == nil && job.Job != "" {
		m.JobName = job.Job
	}
	if p := op.Phase(phaseDownload); p != nil && len(p.Output) > 0 {
		got, err := ops.OutputOf[progress](op, phaseDownload)
		if err != nil {
			return err
		}
		m.FilesDone, m.BytesDone = got.FilesDone, got.BytesDone
	}
	m.LastOperationID, m.StatusMessage = op.ID, ""
	if m.Status == Deleted { // its cluster was deleted: the download only ends
		m.StatusMessage = deletedMessage
		m.UpdatedAt = tx.Now()
		return tx.Put(RecordKind, m.ID, &m)
	}
	switch op.Status {
	case ops.Succeeded:
		now := tx.Now()
		m.Status, m.ReadyAt = Ready, &now
	case ops.Failed:
		m.Status = Failed
		if op.Error != nil {
			m.StatusMessage = op.Error.Message
		}
	case ops.Cancelled:
		m.Status, m.StatusMessage = Cancelled, "cancelled; the files copied stay, and downloading it again resumes"
	default:
		m.Status = Downloading
	}
	m.UpdatedAt = tx.Now()
	return tx.Put(RecordKind, m.ID, &m)
}

// humanBytes words a size in binary units.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
