package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// What KubeRay makes for a RayJob (see kube_rayjob.go): the RayCluster,
// its pods, and the submitter Job of K8sJobMode with its pod's program,
// ray-submitter, and log.
//
//   - The RayCluster is named <job>-<5 characters drawn>, labelled as the
//     RayJob is plus ray.io/originated-from-cr-name and
//     ray.io/originated-from-crd; its spec is the RayJob's rayClusterSpec.
//     Its status: desiredWorkerReplicas, minWorkerReplicas,
//     maxWorkerReplicas, readyWorkerReplicas, availableWorkerReplicas,
//     head.podName and head.serviceName, and state ready once every pod
//     of it has run.
//   - Its pods carry the template's labels plus ray.io/cluster,
//     ray.io/node-type (head or worker), ray.io/group (headgroup or the
//     worker group's name) and ray.io/is-ray-node.
//   - The submitter Job, named as the RayJob, with backoffLimit 2, is made
//     once the cluster is ready. Its container runs KubeRay's command:
//     ray job status, ray job submit --no-wait with the runtime
//     environment as JSON and the submission id (status.jobId), then ray
//     job logs --follow. Its pod's program runs until the Ray job ends, and
//     ends as it does (exit code 0 or 1); until it has ended, the RayJob
//     stays Running with the Ray job's final jobStatus. Its log: the
//     submission server's
//     address, "Job '<id>' submitted successfully", then what the
//     entrypoint prints on the head, each line at its moment (or at the
//     submitter's start for lines written before it).
//   - A retry deletes the cluster and its submitter Job and makes new ones.

// kubeRayClustersKey is the resource key of RayClusters.
const kubeRayClustersKey = "ray.io/v1/rayclusters"

// kubeRaySubmitterProgram is the submitter pods' program name.
const kubeRaySubmitterProgram = "ray-submitter"

// rayDashboardPort is the port of the head's dashboard, where jobs are
// submitted.
const rayDashboardPort = 8265

// kubeRayRec is what KubeRay keeps of a RayJob.
type kubeRayRec struct {
	// JobID is the Ray job's submission id.
	JobID string
	// Cluster is the RayCluster of the current try; Clusters counts those
	// made; Submitted is the cluster the submitter Job was made for.
	Cluster   string `json:",omitempty"`
	Clusters  int    `json:",omitempty"`
	Submitted string `json:",omitempty"`
	// SubmitterDone says the submitter's pod has ended after the Ray job
	// did: only then is the RayJob Complete or Failed.
	SubmitterDone bool `json:",omitempty"`
}

func rayDashboard(cluster, ns string) string {
	return fmt.Sprintf("%s-head-svc.%s.svc.cluster.local:%d", cluster, ns, rayDashboardPort)
}

// trainingOwner is the uid of the training job pod belongs to: its
// controller, or, for a pod of a RayCluster, the RayJob that controls the
// cluster. A pod of a RayCluster that is gone, or that no RayJob controls,
// gets a uid no job has.
func (rec *kubeClusterRec) trainingOwner(pod *corev1.Pod) string {
	if uid := kubeTrainingOwner(pod); uid != "" {
		return uid
	}
	for _, o := range pod.OwnerReferences {
		if o.Kind != "RayCluster" || o.Controller == nil || !*o.Controller {
			continue
		}
		if rc := rec.objectMeta(kubeRayClustersKey, pod.Namespace, o.Name); rc != nil && rc.UID == o.UID {
			if job := kubeControllerOf(rc.OwnerReferences, "RayJob"); job != "" {
				return job
			}
		}
		return "raycluster/" + string(o.UID)
	}
	return ""
}

// objectMeta reads the metadata of a stored object, nil when there is
// none.
func (rec *kubeClusterRec) objectMeta(res, ns, name string) *metav1.ObjectMeta {
	raw := rec.Objects[res][kubeObjectKey(ns, name)]
	if raw == nil {
		return nil
	}
	var obj metav1.PartialObjectMetadata
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil
	}
	return &obj.ObjectMeta
}

// kubeControllerOf is the uid of the controller of kind among refs, "" for
// none.
func kubeControllerOf(refs []metav1.OwnerReference, kind string) string {
	for _, o := range refs {
		if o.Kind == kind && o.Controller != nil && *o.Controller {
			return string(o.UID)
		}
	}
	return ""
}

// collectRayGarbage deletes the RayClusters and submitter Jobs whose
// RayJob is gone (present holds the training jobs' uids); the pods of
// those go with them.
func (sc *kubeScheduler) collectRayGarbage(present map[string]bool) error {
	s := sc.s
	for _, key := range []string{kubeRayClustersKey, kubeJobsKey} {
		objs, err := s.list(key, "")
		if err != nil {
			return err
		}
		for _, obj := range objs {
			if job := kubeControllerOf(obj.GetOwnerReferences(), "RayJob"); job != "" && !present[job] {
				s.remove(key, obj)
				if key == kubeJobsKey {
					delete(s.rec.Jobs, string(obj.GetUID()))
				}
			}
		}
	}
	return nil
}

// rayClusterFor returns the RayCluster of the RayJob's current try,
// making it first when the last try failed (or there was none): KubeRay
// retries a Ray job on a new cluster, with a new submitter.
func (sc *kubeScheduler) rayClusterFor(obj *unstructured.Unstructured, rec *kubeTrainRec) (*unstructured.Unstructured, error) {
	s := sc.s
	if rec.Ray == nil {
		rec.Ray = &kubeRayRec{JobID: obj.GetName() + "-" + s.t.drawString(kubePodSuffixAlphabet, 5)}
	}
	r := rec.Ray
	if r.Cluster != "" && r.Clusters > rec.Restarts {
		rc, err := s.get(kubeRayClustersKey, obj.GetNamespace(), r.Cluster)
		if err != nil || rc == nil {
			return nil, fmt.Errorf("RayCluster %s/%s is gone", obj.GetNamespace(), r.Cluster)
		}
		return rc, nil
	}
	if r.Cluster != "" {
		if old, err := s.get(kubeRayClustersKey, obj.GetNamespace(), r.Cluster); err == nil && old != nil {
			s.remove(kubeRayClustersKey, old)
		}
		sc.removeSubmitter(obj)
	}
	spec, _ := obj.Object["spec"].(map[string]any)
	clusterSpec, _ := spec["rayClusterSpec"].(map[string]any)
	labels := map[string]any{}
	for k, v := range obj.GetLabels() {
		labels[k] = v
	}
	labels["ray.io/originated-from-cr-name"], labels["ray.io/originated-from-crd"] = obj.GetName(), "RayJob"
	name := obj.GetName() + "-" + s.t.drawString(kubePodSuffixAlphabet, 5)
	rc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ray.io/v1", "kind": "RayCluster",
		"metadata": map[string]any{
			"name": name, "namespace": obj.GetNamespace(), "labels": labels,
			"ownerReferences": []any{map[string]any{
				"apiVersion": "ray.io/v1", "kind": "RayJob", "name": obj.GetName(), "uid": string(obj.GetUID()),
				"controller": true, "blockOwnerDeletion": true,
			}},
		},
		"spec": runtimeDeepCopy(clusterSpec),
	}}
	made := s.put(kubeRayClustersKey, nil, s.stamp(rc, s.t.now))
	r.Cluster, r.Clusters = name, r.Clusters+1
	return made, nil
}

func runtimeDeepCopy(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return (&unstructured.Unstructured{Object: m}).DeepCopy().Object
}

// makeRayPod makes a pod of RayCluster rc from its group's template.
func (sc *kubeScheduler) makeRayPod(rc *unstructured.Unstructured, tmpl *corev1.PodTemplateSpec, role rayRole) (*kubeSchedPod, error) {
	t := tmpl.DeepCopy()
	labels := map[string]string{}
	for k, v := range t.Labels {
		labels[k] = v
	}
	labels["ray.io/cluster"], labels["ray.io/node-type"], labels["ray.io/group"], labels["ray.io/is-ray-node"] = rc.GetName(), role.NodeType, role.Group, "yes"
	name := rc.GetName() + "-" + role.Suffix
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: rc.GetNamespace(), Labels: labels, Annotations: t.Annotations,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "ray.io/v1", Kind: "RayCluster", Name: rc.GetName(), UID: types.UID(rc.GetUID()),
				Controller: new(true), BlockOwnerDeletion: new(true),
			}},
		},
		Spec: t.Spec,
	}
	if sc.s.rec.Objects[kubePodsKey][kubeObjectKey(pod.Namespace, name)] != nil {
		return nil, fmt.Errorf("pod %s/%s exists", pod.Namespace, name)
	}
	return sc.createPod(pod)
}

// syncRayCluster writes the RayCluster's status, makes the submitter once
// the cluster is ready, and ends the submitter's pod when the Ray job has
// ended.
func (sc *kubeScheduler) syncRayCluster(obj *unstructured.Unstructured, rec *kubeTrainRec) error {
	s := sc.s
	r := rec.Ray
	if r == nil || r.Cluster == "" {
		return nil
	}
	rc, err := s.get(kubeRayClustersKey, rec.Namespace, r.Cluster)
	if err != nil || rc == nil {
		return err
	}
	ready, workers := len(rec.Pods) > 0, 0
	for i, tp := range rec.Pods {
		switch {
		case tp.UID == "" || tp.Since.IsZero():
			ready = false
		case i > 0:
			workers++
		}
	}
	desired := int64(len(rec.Pods) - 1)
	st := map[string]any{
		"desiredWorkerReplicas": desired, "minWorkerReplicas": desired, "maxWorkerReplicas": desired,
		"readyWorkerReplicas": int64(workers), "availableWorkerReplicas": int64(workers),
		"head": map[string]any{"podName": r.Cluster + "-head", "serviceName": r.Cluster + "-head-svc"},
	}
	if ready {
		st["state"] = "ready"
	}
	if !kubeSameJSON(rc.Object["status"], st) {
		next := rc.DeepCopy()
		next.Object["status"] = st
		s.put(kubeRayClustersKey, rc, next)
	}
	if ready && r.Submitted != r.Cluster && !rec.terminal() {
		if err := sc.makeSubmitter(obj, rec); err != nil {
			return err
		}
		r.Submitted = r.Cluster
	}
	if rec.terminal() {
		sc.endSubmitter(obj, rec)
	}
	return nil
}

// submitterPods are the pods of the RayJob's submitter Job.
func (sc *kubeScheduler) submitterPods(obj *unstructured.Unstructured) []*kubeSchedPod {
	job, err := sc.s.get(kubeJobsKey, obj.GetNamespace(), obj.GetName())
	if err != nil || job == nil || kubeControllerOf(job.GetOwnerReferences(), "RayJob") != string(obj.GetUID()) {
		return nil
	}
	var out []*kubeSchedPod
	for _, p := range sc.pods {
		if kubeControllerOf(p.pod.OwnerReferences, "Job") == string(job.GetUID()) {
			out = append(out, p)
		}
	}
	return out
}

// removeSubmitter deletes the RayJob's submitter Job and its pods.
func (sc *kubeScheduler) removeSubmitter(obj *unstructured.Unstructured) {
	s := sc.s
	for _, p := range sc.submitterPods(obj) {
		sc.drop(p)
	}
	if job, err := s.get(kubeJobsKey, obj.GetNamespace(), obj.GetName()); err == nil && job != nil &&
		kubeControllerOf(job.GetOwnerReferences(), "RayJob") == string(obj.GetUID()) {
		s.remove(kubeJobsKey, job)
		delete(s.rec.Jobs, string(job.GetUID()))
	}
}

// endSubmitter ends the running submitter pod as the Ray job ended.
func (sc *kubeScheduler) endSubmitter(obj *unstructured.Unstructured, rec *kubeTrainRec) {
	for _, p := range sc.submitterPods(obj) {
		run := sc.s.rec.Runs[string(p.pod.UID)]
		if run == nil || !kubeRunning(p) {
			continue
		}
		run.End, run.ExitCode, run.Reason = rec.FinishedAt, 0, "Completed"
		if run.End.Before(run.Start) {
			run.End = run.Start
		}
		if rec.State == trainFailed {
			run.ExitCode, run.Reason, run.Message = 1, "Error", "the Ray job failed"
		}
		sc.terminate(p, run)
		delete(sc.s.rec.Runs, string(p.pod.UID))
		rec.Ray.SubmitterDone = true
	}
}

// makeSubmitter makes the K8sJobMode submitter Job of the RayJob, as
// KubeRay's default submitter template does.
func (sc *kubeScheduler) makeSubmitter(obj *unstructured.Unstructured, rec *kubeTrainRec) error {
	s := sc.s
	sc.removeSubmitter(obj)
	spec, _ := obj.Object["spec"].(map[string]any)
	entrypoint, _ := spec["entrypoint"].(string)
	runtimeEnv := ""
	if y, _ := spec["runtimeEnvYAML"].(string); y != "" {
		if j, err := yaml.YAMLToJSON([]byte(y)); err == nil {
			runtimeEnv = string(j)
		}
	}
	_, templates, _, err := rayPlan(obj)
	if err != nil {
		return nil // the RayJob failed its validation: nothing is submitted
	}
	image := templates[0].Spec.Containers[0].Image
	address := "http://" + rayDashboard(rec.Ray.Cluster, rec.Namespace)
	id := rec.Ray.JobID
	submit := []string{"ray", "job", "submit", "--address", address}
	if runtimeEnv != "" {
		submit = append(submit, "--runtime-env-json", fmt.Sprintf("%q", runtimeEnv))
	}
	submit = append(submit, "--submission-id", id, "--no-wait", "--", entrypoint)
	command := fmt.Sprintf("if ! ray job status --address %s %s >/dev/null 2>&1 ; then %s ; fi ; ray job logs --address %s --follow %s",
		address, id, strings.Join(submit, " "), address, id)
	job := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{
			"name": obj.GetName(), "namespace": obj.GetNamespace(),
			"labels": map[string]any{"ray.io/originated-from-cr-name": obj.GetName(), "ray.io/originated-from-crd": "RayJob"},
			"ownerReferences": []any{map[string]any{
				"apiVersion": "ray.io/v1", "kind": "RayJob", "name": obj.GetName(), "uid": string(obj.GetUID()),
				"controller": true, "blockOwnerDeletion": true,
			}},
		},
		"spec": map[string]any{
			"backoffLimit": int64(2),
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{kubeProgramLabel: kubeRaySubmitterProgram}},
				"spec": map[string]any{
					"restartPolicy": "Never",
					"containers": []any{map[string]any{
						"name": "ray-job-submitter", "image": image,
						"command": []any{"/bin/bash", "-ce", "--"},
						"args":    []any{command},
						"env": []any{
							map[string]any{"name": "RAY_DASHBOARD_ADDRESS", "value": rayDashboard(rec.Ray.Cluster, rec.Namespace)},
							map[string]any{"name": "RAY_JOB_SUBMISSION_ID", "value": id},
						},
						"resources": map[string]any{
							"requests": map[string]any{"cpu": "500m", "memory": "200Mi"},
							"limits":   map[string]any{"cpu": "1", "memory": "1Gi"},
						},
					}},
				},
			},
		},
	}}
	s.put(kubeJobsKey, nil, s.stamp(job, s.t.now))
	return nil
}

// beginRaySubmitter starts a submitter pod's program: it runs until the
// Ray job ends (endSubmitter ends it), or ends at once when the job has
// ended already.
func beginRaySubmitter(s *kubeSession, pod *corev1.Pod, at time.Time) *kubeRun {
	if tr := s.rec.raySubmitted(pod); tr != nil && tr.terminal() {
		tr.Ray.SubmitterDone = true
		if tr.State == trainFailed {
			return &kubeRun{End: at, ExitCode: 1, Reason: "Error", Message: "the Ray job failed"}
		}
		return &kubeRun{End: at, Reason: "Completed"}
	}
	return &kubeRun{End: trainForever, Reason: "Completed"}
}

// raySubmitted is the record of the RayJob whose submitter pod is, nil
// for none.
func (rec *kubeClusterRec) raySubmitted(pod *corev1.Pod) *kubeTrainRec {
	if pod.Labels[kubeProgramLabel] != kubeRaySubmitterProgram {
		return nil
	}
	for _, o := range pod.OwnerReferences {
		if o.Kind != "Job" {
			continue
		}
		job := rec.objectMeta(kubeJobsKey, pod.Namespace, o.Name)
		if job == nil || job.UID != o.UID {
			return nil
		}
		return rec.Training[kubeControllerOf(job.OwnerReferences, "RayJob")]
	}
	return nil
}

// raySubmitterLog is the log of a submitter pod (ok false for another
// pod): what ray job submit and ray job logs --follow print.
func (rec *kubeClusterRec) raySubmitterLog(t *txn, pod *corev1.Pod, ended bool) (kubeLogView, bool, bool) {
	if pod.Labels[kubeProgramLabel] != kubeRaySubmitterProgram {
		return kubeLogView{}, false, false
	}
	tr := rec.raySubmitted(pod)
	since, until := kubeContainerStart(pod, t.now), t.now
	if ended {
		until = trainForever
		for _, cs := range pod.Status.ContainerStatuses {
			if cs.State.Terminated != nil {
				since, until = cs.State.Terminated.StartedAt.Time, cs.State.Terminated.FinishedAt.Time.Add(time.Second)
			}
		}
	}
	if tr == nil || tr.Ray == nil || len(tr.Pods) == 0 {
		return kubeLogView{ended: ended}, false, true
	}
	address := "http://" + rayDashboard(tr.Ray.Cluster, tr.Namespace)
	lines := []kubeLogLine{
		{At: since, Text: "Job submission server address: " + address},
		{At: since, Text: "-------------------------------------------------------"},
		{At: since, Text: fmt.Sprintf("Job '%s' submitted successfully", tr.Ray.JobID)},
		{At: since, Text: "-------------------------------------------------------"},
	}
	if head := tr.Pods[0]; !head.Since.IsZero() {
		for _, l := range tr.trainLines(t.w, 0, head.Since, until) {
			if l.At.Before(since) {
				l.At = since
			}
			lines = append(lines, l)
		}
	}
	lines = slices.DeleteFunc(lines, func(l kubeLogLine) bool { return l.At.After(until) })
	slices.SortStableFunc(lines, func(a, b kubeLogLine) int { return a.At.Compare(b.At) })
	due := !tr.Wake.IsZero() && !tr.Wake.After(t.now)
	return kubeLogView{lines: lines, ended: ended}, due, true
}
