package sim

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// KubeRay's RayJob controller, as a settle plays it beside the HyperPod
// training operator (kube_training.go), while a kuberay-operator Helm
// release is deployed in the cluster. A RayJob gets a RayCluster of its
// rayClusterSpec, <job>-<5 characters drawn>, with the RayJob as its
// controller; the cluster's pods are its head, <cluster>-head, and each
// worker group's replicas, <cluster>-<group>-worker-<i>, made from their
// templates with the RayCluster as their controller (kube_raycluster.go).
// Once they all run the cluster is ready, and in K8sJobMode the submitter,
// a batch/v1 Job named as the RayJob, runs ray job submit and then ray job
// logs --follow, which prints the entrypoint's output. The entrypoint runs
// on the head: an attempt of the training program
// (kube_training_program.go), its steps, checkpoints and MLflow metrics
// from the head container's environment. A crash, an NCCL timeout or a
// lost pod fails the Ray job; KubeRay retries it on a new RayCluster (new
// pods) and a new submitter until status.failed passes spec.backoffLimit,
// then the RayJob is Failed. Ray has no hang or slowness detection: a hang
// lasts until the RayJob is deleted, and a slow job runs on to its end.
// The status carries jobDeploymentStatus (Initializing, Running, Retrying,
// Complete, Failed), jobStatus (PENDING, RUNNING, SUCCEEDED, FAILED),
// jobId, rayClusterName, dashboardURL, rayClusterStatus, failed,
// succeeded, startTime, endTime and message. Deleting the RayJob deletes
// its RayCluster, the cluster's pods and the submitter Job, as the garbage
// collector does.
//
// Left out: HTTPMode, InteractiveMode and SidecarMode, autoscaling between
// minReplicas and maxReplicas, the head and worker Services,
// shutdownAfterJobFinishes with ttlSecondsAfterFinished (the cluster and
// its pods stay after the job ends, for their logs, until the RayJob is
// deleted), the random suffixes of the pods' names, and the Ray
// processes' own log lines.

// kubeRayJobsKey is the resource key of RayJobs.
const kubeRayJobsKey = "ray.io/v1/rayjobs"

// kubeRayOn tells whether KubeRay's operator is deployed in the cluster.
func (s *kubeSession) kubeRayOn() bool {
	hc := s.t.st.Helm[kubeClusterKey(s.rec.Region, s.rec.Name)]
	if hc == nil || hc.EKSID != s.rec.EKSID {
		return false
	}
	for _, r := range hc.Releases {
		if r.Chart == "kuberay-operator" && r.status(s.t.now) == "deployed" {
			return true
		}
	}
	return false
}

// syncRayJob plays KubeRay for one RayJob.
func (sc *kubeScheduler) syncRayJob(obj *unstructured.Unstructured, owned []*kubeSchedPod) error {
	s := sc.s
	uid := string(obj.GetUID())
	rec := s.rec.Training[uid]
	plan, templates, roles, err := rayPlan(obj)
	if rec == nil {
		rec = &kubeTrainRec{Kind: "RayJob", Namespace: obj.GetNamespace(), Name: obj.GetName(), Plan: plan,
			Ray: &kubeRayRec{JobID: obj.GetName() + "-" + s.t.drawString(kubePodSuffixAlphabet, 5)}}
		if s.rec.Training == nil {
			s.rec.Training = map[string]*kubeTrainRec{}
		}
		s.rec.Training[uid] = rec
		rec.enter(trainCreated, "Initializing", "the Ray cluster is being made", s.t.now)
		if err != nil {
			rec.enter(trainFailed, "ValidationFailed", err.Error(), s.t.now)
			rec.FinishedAt = s.t.now
		}
		for range roles {
			rec.Pods = append(rec.Pods, kubeTrainPod{})
		}
	}
	if !rec.terminal() {
		sc.runTraining(obj, rec, owned, func(rank int) (*kubeSchedPod, error) {
			rc, err := sc.rayClusterFor(obj, rec)
			if err != nil {
				return nil, err
			}
			return sc.makeRayPod(rc, templates[rank], roles[rank])
		})
	}
	if err := sc.syncRayCluster(obj, rec); err != nil {
		return err
	}
	sc.writeRayJobStatus(obj, rec)
	return nil
}

// rayRole is a pod of a Ray cluster: its template's group, its node type
// and its name after the cluster's.
type rayRole struct {
	Group, NodeType, Suffix string
}

// rayPlan reads what a RayJob asks: its plan, and the template and role
// of each of its pods, the head first.
func rayPlan(obj *unstructured.Unstructured) (kubeTrainPlan, []*corev1.PodTemplateSpec, []rayRole, error) {
	var spec struct {
		BackoffLimit   *int `json:"backoffLimit"`
		RayClusterSpec struct {
			HeadGroupSpec struct {
				Template corev1.PodTemplateSpec `json:"template"`
			} `json:"headGroupSpec"`
			WorkerGroupSpecs []struct {
				GroupName string                 `json:"groupName"`
				Replicas  *int                   `json:"replicas"`
				Template  corev1.PodTemplateSpec `json:"template"`
			} `json:"workerGroupSpecs"`
		} `json:"rayClusterSpec"`
	}
	if err := kubeDecodeField(obj.Object["spec"], &spec); err != nil {
		return kubeTrainPlan{}, nil, nil, fmt.Errorf("the RayJob's spec cannot be read: %v", err)
	}
	head := &spec.RayClusterSpec.HeadGroupSpec.Template
	if len(head.Spec.Containers) == 0 {
		return kubeTrainPlan{}, nil, nil, fmt.Errorf("rayClusterSpec.headGroupSpec.template has no container")
	}
	templates := []*corev1.PodTemplateSpec{head}
	roles := []rayRole{{Group: "headgroup", NodeType: "head", Suffix: "head"}}
	for _, g := range spec.RayClusterSpec.WorkerGroupSpecs {
		n := 1
		if g.Replicas != nil {
			n = max(*g.Replicas, 0)
		}
		for i := range n {
			templates = append(templates, &g.Template)
			roles = append(roles, rayRole{Group: g.GroupName, NodeType: "worker", Suffix: fmt.Sprintf("%s-worker-%d", g.GroupName, i)})
		}
	}
	plan := kubeTrainPlan{Nodes: len(templates)}
	plan.fromContainer(&head.Spec.Containers[0])
	// KubeRay retries the whole Ray job: every restart is a new cluster.
	plan.MaxRetries = 0
	if spec.BackoffLimit != nil {
		plan.MaxRetries = *spec.BackoffLimit
	}
	plan.MaxFull, plan.BeforeFull, plan.EvalSeconds = plan.MaxRetries, 0, int((100 * 365 * 24 * time.Hour).Seconds())
	return plan, templates, roles, nil
}

// writeRayJobStatus writes the RayJob's status from rec.
func (sc *kubeScheduler) writeRayJobStatus(obj *unstructured.Unstructured, rec *kubeTrainRec) {
	deploy, job := "Initializing", "PENDING"
	switch rec.State {
	case trainRunning:
		deploy, job = "Running", "RUNNING"
	case trainRestarting:
		deploy, job = "Retrying", "FAILED"
	case trainCompleted:
		deploy, job = "Complete", "SUCCEEDED"
	case trainFailed:
		deploy, job = "Failed", "FAILED"
	}
	st := map[string]any{"jobDeploymentStatus": deploy, "jobStatus": job, "failed": int64(rec.Restarts), "succeeded": int64(0)}
	if rec.State == trainFailed {
		st["failed"] = int64(rec.Restarts + 1)
	}
	if rec.State == trainCompleted {
		st["succeeded"] = int64(1)
	}
	if c, ok := rec.Conds[rec.State]; ok && c.Message != "" {
		st["message"] = c.Message
	}
	if !rec.StartedAt.IsZero() {
		st["startTime"] = rec.StartedAt.UTC().Format(time.RFC3339)
	}
	if !rec.FinishedAt.IsZero() {
		st["endTime"] = rec.FinishedAt.UTC().Format(time.RFC3339)
	}
	if r := rec.Ray; r != nil {
		st["jobId"] = r.JobID
		if r.Cluster != "" {
			st["rayClusterName"] = r.Cluster
			st["dashboardURL"] = rayDashboard(r.Cluster, rec.Namespace)
			if rc, err := sc.s.get(kubeRayClustersKey, rec.Namespace, r.Cluster); err == nil && rc != nil {
				if cst, ok := rc.Object["status"].(map[string]any); ok {
					st["rayClusterStatus"] = cst
				}
			}
		}
		switch {
		case deploy == "Running" && r.Submitted != r.Cluster:
			// The Ray job is not submitted yet.
			st["jobDeploymentStatus"], st["jobStatus"] = "Initializing", "PENDING"
		case rec.terminal() && r.Submitted != "" && !r.SubmitterDone:
			// KubeRay waits for the submitter to finish (its log is the
			// job's) before the RayJob ends.
			st["jobDeploymentStatus"] = "Running"
			delete(st, "endTime")
		}
	}
	if kubeSameJSON(obj.Object["status"], st) {
		return
	}
	next := obj.DeepCopy()
	next.Object["status"] = st
	sc.s.put(kubeRayJobsKey, obj, next)
}
