package sim

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
)

// Programs: what the containers of a simulated pod do. A pod labelled
// instantstart.io/program=<name> runs the program of that name once its
// containers start (a pod with another or no such label stays Running
// until it is deleted). A program plans its run when it begins: timed
// steps, each an effect on the world at its moment, and an end, when the
// pod turns Succeeded (exit code 0, reason Completed) or Failed (exit
// code 1, reason Error, with a message), its containers terminated
// (exitCode, reason, message, startedAt, finishedAt) and its Ready and
// ContainersReady conditions false (PodCompleted). A settle plays the
// steps due by its moment before it evicts pods, so a pod deleted or
// evicted part way keeps what it did until then and does no more. Runs
// are kept, by pod uid, in kubeClusterRec.Runs; a run's end is a wake of
// the cluster (see planWakes), so the pod ends at its moment. New
// programs are added to kubePrograms.
//
// model-download, the model downloader that the control plane's
// downloadModel creates as a Job, follows this contract:
//
//   - the pod's first container has the environment MODEL_ID (the hub's
//     id, "Qwen/Qwen3-8B"), REVISION (the 40-hex commit id, or a branch the
//     hub knows), DEST (where to write, "/s3/models/qwen3-8b"), FILES (one
//     line per file, "<size in bytes>\t<path>", "728\tconfig.json") and,
//     optionally, HF_TOKEN, a value or a secretKeyRef; a Secret or key that
//     is missing means no token, whether the reference is optional or not.
//     Other variables (HF_ENDPOINT) are ignored;
//   - DEST lies under the mountPath of one of the container's
//     volumeMounts (the longest that holds it), whose volume is a
//     PersistentVolumeClaim ("s3-shared" mounted at "/s3"). The bucket is
//     the claim's bound PV's spec.csi.volumeAttributes["bucketName"]; the
//     object key of a file is the PV's mount option "prefix <p>/" (also
//     "prefix=<p>/", with or without "--"), then the mount's subPath, then
//     DEST less the mount path, then "/" and the file's path:
//     DEST "/s3/models/qwen3-8b" on "/s3" writes "models/qwen3-8b/config.json";
//   - when the pod's containers start, the program asks the hub
//     (hubCheck) for MODEL_ID at REVISION with the token: a refusal fails
//     the pod at once with the hub's status, "401 Unauthorized: ...". So
//     does a missing variable, a malformed FILES line, a DEST under no
//     mount, a claim or PV that is not bound to a bucket, or a bucket
//     that does not exist;
//   - it then fetches each file of FILES in order at 250 MB/s (real time,
//     divided by the world's speed), skipping a file whose object is there
//     already with exactly its size, at no cost (a retry resumes). Each
//     file's object is written (its size, no content) the moment its
//     fetch ends. Once all are there the pod Succeeds;
//   - at its start, if it has something to fetch, each pod fires the
//     hub's "Download" fault once (service "huggingface"): a fault coded
//     401, 403 or 404 is a refusal, as above; any other makes the pod fail
//     once half the bytes it had to fetch are fetched, "network error:
//     connection reset while downloading <path>": the files completed by
//     then are written, the rest are not. The Job's next pod resumes;
//   - a pod deleted part way (by a client, by its Job's active deadline,
//     evicted with its node) stops: the files done stay, the file in
//     progress is not written.
//
// training, the program of training jobs' pods, is described in
// kube_training_program.go; their logs are served by kube_logs.go.
//
// Left out: logs of the other programs (they log nothing), the pod's own
// activeDeadlineSeconds, the hub's bandwidth shared between pods, and
// writes of a file in part.

// kubeProgramLabel names the program a pod runs.
const kubeProgramLabel = "instantstart.io/program"

// kubeModelDownload is the model downloader's program name.
const kubeModelDownload = "model-download"

// kubeDownloadRate is how fast the model downloader fetches, in bytes per
// second of real time.
const kubeDownloadRate = 250e6

// kubeProgram is a program pods run.
type kubeProgram struct {
	// begin plans the run of pod, whose containers started at at.
	begin func(s *kubeSession, pod *corev1.Pod, at time.Time) *kubeRun
	// step plays a step of run at its moment; an error fails the run
	// then, with the error as its message.
	step func(s *kubeSession, run *kubeRun, step kubeRunStep) error
}

// kubePrograms are the programs pods can run, by name.
var kubePrograms = map[string]kubeProgram{
	kubeModelDownload:       {begin: beginModelDownload, step: writeDownloadedFile},
	kubeTrainingProgram:     {begin: beginTraining},
	kubeRaySubmitterProgram: {begin: beginRaySubmitter},
}

// kubeRun is one pod's run of its program.
type kubeRun struct {
	Program string
	// Start is when the pod's containers started, End when the program
	// ends.
	Start, End time.Time
	// Steps are what the program does, in order; Done counts those
	// played.
	Steps []kubeRunStep `json:",omitempty"`
	Done  int           `json:",omitempty"`
	// ExitCode, Reason and Message are what the container ends with.
	ExitCode int32 `json:",omitempty"`
	Reason   string
	Message  string `json:",omitempty"`
}

// kubeRunStep is one timed effect of a run, in its program's terms.
type kubeRunStep struct {
	At time.Time
	// Bucket, Key and Size are the object a model-download step writes.
	Bucket string `json:",omitempty"`
	Key    string `json:",omitempty"`
	Size   int64  `json:",omitempty"`
}

// succeed ends the run successfully at at.
func (run *kubeRun) succeed(at time.Time) *kubeRun {
	run.End, run.ExitCode, run.Reason, run.Message = at, 0, "Completed", ""
	return run
}

// fail ends the run at at with exit code 1 and message, dropping the
// steps it would have played after.
func (run *kubeRun) fail(at time.Time, message string) *kubeRun {
	run.End, run.ExitCode, run.Reason, run.Message = at, 1, "Error", message
	for i, st := range run.Steps {
		if st.At.After(at) {
			run.Steps = run.Steps[:i]
			break
		}
	}
	return run
}

// kubeProgramOf returns the program pod runs, if it runs one.
func kubeProgramOf(pod *corev1.Pod) (kubeProgram, string, bool) {
	name := pod.Labels[kubeProgramLabel]
	prog, ok := kubePrograms[name]
	return prog, name, ok
}

// kubeRuns is one settle's play of the pods' programs.
type kubeRuns struct {
	sc *kubeScheduler
	// starts holds the pods' start times as they were before the
	// scheduler started them, by pod uid.
	starts map[string]time.Time
	// ended holds, by pod uid, when the programs that ended in this
	// settle ended.
	ended map[string]time.Time
}

// playPrograms plays the runs of the Running pods up to the settle's
// moment, and forgets those of pods that are gone or stopped. It runs
// before the scheduler evicts and starts pods.
func (sc *kubeScheduler) playPrograms() *kubeRuns {
	s := sc.s
	r := &kubeRuns{sc: sc, starts: map[string]time.Time{}, ended: map[string]time.Time{}}
	live := map[string]bool{}
	for _, p := range sc.pods {
		uid := string(p.pod.UID)
		if _, _, ok := kubeProgramOf(&p.pod); ok {
			if at, ok := s.rec.PodStarts[uid]; ok {
				r.starts[uid] = at
			}
		}
		if run := s.rec.Runs[uid]; run != nil && kubeRunning(p) {
			live[uid] = true
			r.advance(p, run)
		}
	}
	for uid := range s.rec.Runs {
		if !live[uid] {
			delete(s.rec.Runs, uid)
		}
	}
	return r
}

// begin begins the programs of the pods that run and have none yet: those
// the scheduler just started. It runs after the scheduler started pods.
func (r *kubeRuns) begin() {
	s := r.sc.s
	for _, p := range r.sc.pods {
		prog, name, ok := kubeProgramOf(&p.pod)
		uid := string(p.pod.UID)
		if !ok || !kubeRunning(p) || s.rec.Runs[uid] != nil {
			continue
		}
		at := r.startedAt(p)
		run := prog.begin(s, &p.pod, at)
		run.Program, run.Start = name, at
		if s.rec.Runs == nil {
			s.rec.Runs = map[string]*kubeRun{}
		}
		s.rec.Runs[uid] = run
		r.advance(p, run)
	}
}

// kubeRunning tells whether a pod's containers run.
func kubeRunning(p *kubeSchedPod) bool {
	return p.active() && p.pod.Status.Phase == corev1.PodRunning
}

// startedAt is when the containers of Running pod p started.
func (r *kubeRuns) startedAt(p *kubeSchedPod) time.Time {
	if at, ok := r.starts[string(p.pod.UID)]; ok {
		// The scheduler started it in this settle: at its start time, or
		// once its CSI drivers were there if that was later.
		if _, since := r.sc.s.csiMissing(&p.pod); since.After(at) {
			at = since
		}
		return at
	}
	for _, cs := range p.pod.Status.ContainerStatuses {
		if cs.State.Running != nil {
			return cs.State.Running.StartedAt.Time
		}
	}
	return r.sc.s.t.now
}

// advance plays run's steps due by the settle's moment, and ends pod p
// when its program has ended.
func (r *kubeRuns) advance(p *kubeSchedPod, run *kubeRun) {
	s := r.sc.s
	now := s.t.now
	prog := kubePrograms[run.Program]
	for run.Done < len(run.Steps) && prog.step != nil {
		step := run.Steps[run.Done]
		if step.At.After(now) {
			break
		}
		run.Done++
		if err := prog.step(s, run, step); err != nil {
			run.Steps = run.Steps[:run.Done]
			run.fail(step.At, err.Error())
		}
	}
	if now.Before(run.End) {
		return
	}
	r.sc.terminate(p, run)
	uid := string(p.pod.UID)
	r.ended[uid] = run.End
	delete(s.rec.Runs, uid)
}

// terminate ends Running pod p as its run ended.
func (sc *kubeScheduler) terminate(p *kubeSchedPod, run *kubeRun) {
	if n := sc.node[p.pod.Spec.NodeName]; n != nil {
		n.remove(p)
	}
	st := &p.pod.Status
	st.Phase = corev1.PodSucceeded
	if run.ExitCode != 0 {
		st.Phase = corev1.PodFailed
	}
	kubeSetPodCondition(st, corev1.PodReadyToStartContainers, corev1.ConditionFalse, "", "", run.End)
	kubeSetPodCondition(st, corev1.ContainersReady, corev1.ConditionFalse, "PodCompleted", "", run.End)
	kubeSetPodCondition(st, corev1.PodReady, corev1.ConditionFalse, "PodCompleted", "", run.End)
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		cs.Ready, cs.Started = false, new(false)
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: run.ExitCode, Reason: run.Reason, Message: run.Message,
			StartedAt: metav1.NewTime(run.Start), FinishedAt: metav1.NewTime(run.End),
		}}
	}
	sc.store(p)
}

// kubeDownload is what a model-download pod is asked to do.
type kubeDownload struct {
	model, revision, token string
	files                  []kubeDownloadFile
	// bucket is where the files go, under keyPrefix ("" or ending in "/").
	bucket, keyPrefix string
}

type kubeDownloadFile struct {
	path string
	size int64
}

// beginModelDownload plans a model-download run (see the top of this
// file).
func beginModelDownload(s *kubeSession, pod *corev1.Pod, at time.Time) *kubeRun {
	run := &kubeRun{}
	d, err := s.downloadOf(pod)
	if err != nil {
		return run.fail(at, err.Error())
	}
	if _, err := hubCheck(d.model, d.revision, d.token); err != nil {
		return run.fail(at, kubeHubMessage(err))
	}
	b := s.t.st.Buckets[d.bucket]
	if b == nil {
		return run.fail(at, fmt.Sprintf("bucket %s does not exist: the volume cannot be written", d.bucket))
	}
	var fetch []kubeDownloadFile
	var total int64
	for _, f := range d.files {
		if o := b.Objects[d.keyPrefix+f.path]; o != nil && o.Size == f.size {
			continue
		}
		fetch = append(fetch, f)
		total += f.size
	}
	cut := int64(-1) // the bytes fetched when the connection drops; -1 when it does not
	if len(fetch) > 0 {
		if err := s.t.hubFault("Download"); err != nil {
			var refusal *cloud.HubError
			if errors.As(err, &refusal) {
				return run.fail(at, kubeHubMessage(refusal))
			}
			cut = total / 2
		}
	}
	var done int64
	end := at
	for _, f := range fetch {
		if cut >= 0 && done+f.size > cut {
			return run.fail(at.Add(s.t.w.scale(kubeDownloadTime(cut))), "network error: connection reset while downloading "+f.path)
		}
		done += f.size
		end = at.Add(s.t.w.scale(kubeDownloadTime(done)))
		run.Steps = append(run.Steps, kubeRunStep{At: end, Bucket: d.bucket, Key: d.keyPrefix + f.path, Size: f.size})
	}
	return run.succeed(end)
}

// kubeDownloadTime is how long fetching n bytes takes, in real time.
func kubeDownloadTime(n int64) time.Duration {
	return time.Duration(float64(n) / kubeDownloadRate * float64(time.Second))
}

// writeDownloadedFile writes the object of a file whose fetch ended.
func writeDownloadedFile(s *kubeSession, _ *kubeRun, step kubeRunStep) error {
	b := s.t.st.Buckets[step.Bucket]
	if b == nil {
		return fmt.Errorf("write %s: bucket %s no longer exists", step.Key, step.Bucket)
	}
	sum := md5.Sum(fmt.Appendf(nil, "%s/%s/%d", step.Bucket, step.Key, step.Size))
	b.putObject(step.Key, &s3ObjRec{Size: step.Size, ETag: `"` + hex.EncodeToString(sum[:]) + `"`, LastModified: step.At.UTC().Truncate(time.Second)})
	return nil
}

// kubeHubMessage words the hub's refusal as the downloader reports it:
// "401 Unauthorized: Invalid credentials in Authorization header".
func kubeHubMessage(err error) string {
	var he *cloud.HubError
	if errors.As(err, &he) {
		return fmt.Sprintf("%d %s: %s", he.Status, http.StatusText(he.Status), he.Message)
	}
	return err.Error()
}

// downloadOf reads what model-download pod is asked to do, and where its
// files go.
func (s *kubeSession) downloadOf(pod *corev1.Pod) (*kubeDownload, error) {
	if len(pod.Spec.Containers) == 0 {
		return nil, errors.New("the pod has no container")
	}
	c := &pod.Spec.Containers[0]
	env := s.containerEnv(pod, c)
	for _, name := range []string{"MODEL_ID", "REVISION", "DEST", "FILES"} {
		if env[name] == "" {
			return nil, fmt.Errorf("%s is not set", name)
		}
	}
	d := &kubeDownload{model: env["MODEL_ID"], revision: env["REVISION"], token: env["HF_TOKEN"]}
	var err error
	if d.files, err = kubeDownloadFiles(env["FILES"]); err != nil {
		return nil, err
	}
	if d.bucket, d.keyPrefix, err = s.bucketPathOf(pod, c, env["DEST"]); err != nil {
		return nil, fmt.Errorf("DEST %w", err)
	}
	return d, nil
}

// bucketPathOf resolves dest, a path in container c of pod, to the S3
// bucket and key prefix of the Mountpoint volume it is under.
func (s *kubeSession) bucketPathOf(pod *corev1.Pod, c *corev1.Container, dest string) (bucket, keyPrefix string, err error) {
	dest = path.Clean(dest)
	var mount *corev1.VolumeMount
	for i, m := range c.VolumeMounts {
		mp := path.Clean(m.MountPath)
		if (dest == mp || strings.HasPrefix(dest, strings.TrimSuffix(mp, "/")+"/")) && (mount == nil || len(mp) > len(path.Clean(mount.MountPath))) {
			mount = &c.VolumeMounts[i]
		}
	}
	if mount == nil {
		return "", "", fmt.Errorf("%s is not under a volume mount of container %s", dest, c.Name)
	}
	var vol *corev1.Volume
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].Name == mount.Name {
			vol = &pod.Spec.Volumes[i]
		}
	}
	if vol == nil || vol.PersistentVolumeClaim == nil {
		return "", "", fmt.Errorf("volume %s mounted at %s is not a PersistentVolumeClaim", mount.Name, mount.MountPath)
	}
	claimName := vol.PersistentVolumeClaim.ClaimName
	var claim corev1.PersistentVolumeClaim
	if obj, err := s.get(kubePVCsKey, pod.Namespace, claimName); err != nil || obj == nil || kubeDecodeAs(obj, &claim) != nil || claim.Spec.VolumeName == "" {
		return "", "", fmt.Errorf("persistentvolumeclaim %s is not bound to a volume", claimName)
	}
	var pv corev1.PersistentVolume
	if obj, err := s.get(kubePVsKey, "", claim.Spec.VolumeName); err != nil || obj == nil || kubeDecodeAs(obj, &pv) != nil {
		return "", "", fmt.Errorf("persistentvolume %s of claim %s does not exist", claim.Spec.VolumeName, claimName)
	}
	if pv.Spec.CSI != nil {
		bucket = pv.Spec.CSI.VolumeAttributes["bucketName"]
	}
	if bucket == "" {
		return "", "", fmt.Errorf("persistentvolume %s of claim %s names no bucket (spec.csi.volumeAttributes.bucketName)", pv.Name, claimName)
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(dest, path.Clean(mount.MountPath)), "/")
	if under := strings.TrimPrefix(path.Join(mount.SubPath, rel), "/"); under != "" && under != "." {
		keyPrefix = under + "/"
	}
	return bucket, kubeMountPrefix(pv.Spec.MountOptions) + keyPrefix, nil
}

// containerEnv is container c's environment: values, and secretKeyRefs
// read from their Secret (left out when it or its key is missing).
func (s *kubeSession) containerEnv(pod *corev1.Pod, c *corev1.Container) map[string]string {
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			if v, ok := s.secretValue(pod.Namespace, ref.Name, ref.Key); ok {
				env[e.Name] = v
			} else {
				delete(env, e.Name)
			}
		}
	}
	return env
}

// secretValue reads key of Secret ns/name.
func (s *kubeSession) secretValue(ns, name, key string) (string, bool) {
	obj, err := s.get("v1/secrets", ns, name)
	if err != nil || obj == nil {
		return "", false
	}
	var sec corev1.Secret
	if kubeDecodeAs(obj, &sec) != nil {
		return "", false
	}
	if v, ok := sec.Data[key]; ok {
		return string(v), true
	}
	v, ok := sec.StringData[key]
	return v, ok
}

// kubeDownloadFiles parses FILES: "<size in bytes>\t<path>" lines.
func kubeDownloadFiles(list string) ([]kubeDownloadFile, error) {
	var files []kubeDownloadFile
	for i, line := range strings.Split(list, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		size, p, ok := strings.Cut(line, "\t")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok || err != nil || n < 0 || p == "" {
			return nil, fmt.Errorf("FILES line %d is not \"<size in bytes>\\t<path>\": %q", i+1, line)
		}
		files = append(files, kubeDownloadFile{path: p, size: n})
	}
	return files, nil
}

// kubeMountPrefix is the key prefix of a Mountpoint for S3 volume's mount
// options ("prefix models/"), "" for none.
func kubeMountPrefix(opts []string) string {
	for _, o := range opts {
		o = strings.TrimPrefix(strings.TrimSpace(o), "--")
		name, value, ok := strings.Cut(o, " ")
		if !ok {
			name, value, _ = strings.Cut(o, "=")
		}
		if name != "prefix" {
			continue
		}
		value = strings.TrimLeft(strings.TrimSpace(value), "/")
		if value != "" && !strings.HasSuffix(value, "/") {
			value += "/"
		}
		return value
	}
	return ""
}

// kubeRunsProgram tells whether pod runs a program.
func kubeRunsProgram(pod *corev1.Pod) bool {
	_, _, ok := kubeProgramOf(pod)
	return ok
}

// playPodPrograms brings the clusters whose pods run programs, in every
// region, up to the call's moment, as a SageMaker call brings its
// region's, and has their watchers told once the world is saved. A read
// of S3 needs it first to see the objects the programs wrote by then:
// nothing else settles a cluster, and a program may write to a bucket of
// any region. It costs nothing while no program runs or is due to.
func (t *txn) playPodPrograms() {
	ks := t.st.Kube
	if ks == nil {
		return
	}
	regions := map[string]bool{}
	for _, rec := range ks.Clusters {
		if len(rec.Runs) > 0 || len(rec.Wakes) > 0 {
			regions[rec.Region] = true
		}
	}
	for _, region := range sortedKeys(regions) {
		rt := &txn{w: t.w, st: t.st, region: region, rs: t.st.regionState(region), now: t.now}
		rt.advanceHyperPod()
		rt.settleKube()
		t.afterSave = append(t.afterSave, rt.afterSave...)
	}
}
