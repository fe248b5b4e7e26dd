package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The HyperPod inference operator's reconciler: the states it moves an
// InferenceEndpointConfig or JumpStartModel through, the status it writes
// and what it collects once the object is gone. What it makes for an
// object is built in kube_inference_workload.go; its events go through
// kubeRecordEvent (kube_events.go).
//
// A settle plays the operator after the scheduler (see playInference). It
// acts while the cluster's amazon-sagemaker-hyperpod-inference add-on is
// ACTIVE; the garbage collector deletes what it made for an object that is
// gone whether or not it runs.
//
//   - An InferenceEndpointConfig or JumpStartModel <name> is
//     DeploymentPending for inferencePrepareTime after it was made (or
//     after the add-on became ACTIVE): the operator checks it and prepares
//     its certificate.
//   - It then gets, each with the object as controller owner: a
//     Deployment <name> (selector and pod label app=<name>, as the
//     HyperPod CLI finds an endpoint's pods) of spec.replicas pods of one
//     container "worker" (the worker's image, command, args, environment,
//     resources and invocation port; a readiness probe on the load
//     balancer's health check path unless the worker has its own), with
//     required node affinity to the instance type (or types) on
//     node.kubernetes.io/instance-type and spec.nodeAffinity's terms; a
//     ClusterIP Service <name> on the invocation port (name and number) to
//     the pods; and, for an S3 or FSx model, the claim <name>-model bound
//     to a static PersistentVolume <name>-<namespace>-model of the S3 CSI
//     driver (the bucket, its region, mount option "prefix
//     <modelLocation>/") or of the FSx CSI driver (the file system, its DNS
//     and mount names; the worker mounts modelLocation as subPath),
//     mounted read-only at modelVolumeMount.mountPath under
//     modelVolumeMount.name. A JumpStartModel's worker runs the hub's LMI
//     image on all the instance type's GPUs, port 8080, its model in an
//     emptyDir the operator fills (not simulated).
//   - The state is then DeploymentInProgress until the Deployment's ready
//     replicas reach its replicas (DeploymentComplete), or a pod of it
//     cannot come up: a container waiting in ErrImagePull,
//     ImagePullBackOff, CrashLoopBackOff, InvalidImageName or
//     CreateContainerConfigError, or ended OOMKilled, which fails it
//     (DeploymentFailed, with the pod's reason and message, and a Warning
//     event), as do the Deployment's ProgressDeadlineExceeded and passing
//     maxDeployTimeInSeconds. A failure lasts, for
//     the same generation, until every replica is ready. While it
//     progresses, status.deploymentStatus.message says what it waits for
//     (an unschedulable pod's scheduler message).
//   - A change of spec (a new generation) updates the Deployment's
//     template and replicas and the Service; between changes the operator
//     leaves the Deployment's replicas to whoever scales it (KEDA).
//   - The status carries state, observedGeneration, replicas and selector
//     (the scale subresource's), conditions (each state entered, the
//     current one True), deploymentStatus (the Deployment's name and own
//     status, reason, message, lastUpdated) and metricsStatus.
//
// Left out: the SageMaker endpoint registration (status.endpoints), the
// TLS certificate, the Application Load Balancer and its Ingress, the
// intelligent router and the KV cache settings (the fields are accepted
// and ignored), the KEDA ScaledObject of autoScalingSpec, prefetching the
// model in an init container, instance-type fallback beyond node affinity,
// and the deletion states (objects go at once).

// Resource keys of what the operator reads and writes.
const (
	kubeEndpointConfigsKey = "inference.sagemaker.aws.amazon.com/v1/inferenceendpointconfigs"
	kubeJumpStartModelsKey = "inference.sagemaker.aws.amazon.com/v1/jumpstartmodels"
	inferenceServicesKey   = "v1/services"
)

// kubeInferenceOperatorAddon is the EKS add-on that runs the operator.
const kubeInferenceOperatorAddon = "amazon-sagemaker-hyperpod-inference"

// inferenceGroupVersion is the API version of the operator's kinds.
const inferenceGroupVersion = "inference.sagemaker.aws.amazon.com/v1"

// inferencePrepareTime is how long, in real time, an object stays
// DeploymentPending before its Deployment is made.
const inferencePrepareTime = 10 * time.Second

// The operator's states (status.state).
const (
	inferencePending    = "DeploymentPending"
	inferenceInProgress = "DeploymentInProgress"
	inferenceComplete   = "DeploymentComplete"
	inferenceFailed     = "DeploymentFailed"
)

// inferenceFailingReasons are the container states from which a worker
// does not come up by waiting.
var inferenceFailingReasons = []string{"ErrImagePull", "ImagePullBackOff", "CrashLoopBackOff", "InvalidImageName", "CreateContainerConfigError"}

// inferenceSpec is the part of an InferenceEndpointConfig's or
// JumpStartModel's spec the operator reads.
type inferenceSpec struct {
	InstanceType           string   `json:"instanceType"`
	InstanceTypes          []string `json:"instanceTypes"`
	Replicas               *int32   `json:"replicas"`
	MaxDeployTimeInSeconds *int32   `json:"maxDeployTimeInSeconds"`
	ModelSourceConfig      *struct {
		ModelSourceType string `json:"modelSourceType"`
		S3Storage       *struct {
			BucketName string `json:"bucketName"`
			Region     string `json:"region"`
		} `json:"s3Storage"`
		FsxStorage *struct {
			FileSystemID string `json:"fileSystemId"`
			DNSName      string `json:"dnsName"`
			MountName    string `json:"mountName"`
		} `json:"fsxStorage"`
		ModelLocation string `json:"modelLocation"`
	} `json:"modelSourceConfig"`
	Worker *struct {
		Image                string                      `json:"image"`
		Command              []string                    `json:"command"`
		Args                 []string                    `json:"args"`
		WorkingDir           string                      `json:"workingDir"`
		EnvironmentVariables []corev1.EnvVar             `json:"environmentVariables"`
		Resources            corev1.ResourceRequirements `json:"resources"`
		ModelInvocationPort  struct {
			ContainerPort int32  `json:"containerPort"`
			Name          string `json:"name"`
		} `json:"modelInvocationPort"`
		ModelVolumeMount struct {
			Name      string `json:"name"`
			MountPath string `json:"mountPath"`
		} `json:"modelVolumeMount"`
		Probes struct {
			LivenessProbe  *corev1.Probe `json:"livenessProbe"`
			ReadinessProbe *corev1.Probe `json:"readinessProbe"`
			StartupProbe   *corev1.Probe `json:"startupProbe"`
		} `json:"probes"`
	} `json:"worker"`
	NodeAffinity *corev1.NodeAffinity `json:"nodeAffinity"`
	Kubernetes   struct {
		ServiceAccountName string `json:"serviceAccountName"`
		SchedulerName      string `json:"schedulerName"`
	} `json:"kubernetes"`
	AutoScalingSpec json.RawMessage `json:"autoScalingSpec"`
	LoadBalancer    struct {
		HealthCheckPath string `json:"healthCheckPath"`
	} `json:"loadBalancer"`
	Metrics struct {
		Enabled                      *bool  `json:"enabled"`
		MetricsScrapeIntervalSeconds *int32 `json:"metricsScrapeIntervalSeconds"`
		ModelMetrics                 struct {
			Path string `json:"path"`
			Port int32  `json:"port"`
		} `json:"modelMetrics"`
	} `json:"metrics"`
	// A JumpStartModel's.
	Model *struct {
		ModelID string `json:"modelId"`
	} `json:"model"`
	Server *struct {
		InstanceType string `json:"instanceType"`
	} `json:"server"`
	EnvironmentVariables []corev1.EnvVar `json:"environmentVariables"`
}

// inferenceFailure is why an object's deployment failed: a reason
// (CamelCase, as conditions want) and a message.
type inferenceFailure struct{ reason, message string }

func (f *inferenceFailure) Error() string { return f.message }

func inferenceFail(reason, format string, args ...any) *inferenceFailure {
	return &inferenceFailure{reason: reason, message: fmt.Sprintf(format, args...)}
}

// inferenceOperatorOn tells whether the cluster runs the inference
// operator, and since when.
func (s *kubeSession) inferenceOperatorOn() (time.Time, bool) {
	ad := s.eks.Addons[kubeInferenceOperatorAddon]
	if ad == nil || ad.status(s.t.now) != ekstypes.AddonStatusActive {
		return time.Time{}, false
	}
	return ad.Life.ReadyAt, true
}

// playInferenceOperator plays the garbage collector for what the operator
// made for objects that are gone, then the operator (see the top of this
// file). It returns the coming moments at which an object needs it.
func (s *kubeSession) playInferenceOperator() ([]time.Time, error) {
	var objs []*unstructured.Unstructured
	present := map[string]bool{}
	for _, key := range []string{kubeEndpointConfigsKey, kubeJumpStartModelsKey} {
		list, err := s.list(key, "")
		if err != nil {
			return nil, err
		}
		for _, obj := range list {
			present[string(obj.GetUID())] = true
		}
		objs = append(objs, list...)
	}
	if err := s.collectInferenceGarbage(present); err != nil {
		return nil, err
	}
	since, on := s.inferenceOperatorOn()
	if !on {
		return nil, nil
	}
	var wakes []time.Time
	for _, obj := range objs {
		wake, err := s.syncInference(obj, since)
		if err != nil {
			return nil, err
		}
		if !wake.IsZero() {
			wakes = append(wakes, wake)
		}
	}
	return wakes, nil
}

// inferenceOwner is the uid of the InferenceEndpointConfig or
// JumpStartModel that controls obj, "" for none.
func inferenceOwner(obj *unstructured.Unstructured) string {
	for _, o := range obj.GetOwnerReferences() {
		if strings.HasPrefix(o.APIVersion, "inference.sagemaker.aws.amazon.com/") && (o.Kind == "InferenceEndpointConfig" || o.Kind == "JumpStartModel") &&
			o.Controller != nil && *o.Controller {
			return string(o.UID)
		}
	}
	return ""
}

// collectInferenceGarbage deletes the Deployments, Services and claims an
// object that is gone controlled, and the PersistentVolume pre-bound to
// such a claim: the operator makes it with reclaim policy Retain, and
// deletes it itself.
func (s *kubeSession) collectInferenceGarbage(present map[string]bool) error {
	marker := []byte(`"apiVersion":"inference.sagemaker.aws.amazon.com/`)
	for _, key := range []string{kubeDeploymentsKey, inferenceServicesKey, kubePVCsKey} {
		for _, k := range sortedKeys(s.rec.Objects[key]) {
			raw := s.rec.Objects[key][k]
			// Only an object that names one of the operator's kinds can be
			// its; the others are not decoded.
			if !bytes.Contains(raw, marker) {
				continue
			}
			obj, err := kubeDecode(raw)
			if err != nil {
				return err
			}
			owner := inferenceOwner(obj)
			if owner == "" || present[owner] {
				continue
			}
			s.remove(key, obj)
			if key != kubePVCsKey {
				continue
			}
			pvName, _, _ := unstructured.NestedString(obj.Object, "spec", "volumeName")
			pv, err := s.get(kubePVsKey, "", pvName)
			if err != nil {
				return err
			}
			if pv == nil {
				continue
			}
			ns, _, _ := unstructured.NestedString(pv.Object, "spec", "claimRef", "namespace")
			name, _, _ := unstructured.NestedString(pv.Object, "spec", "claimRef", "name")
			if ns == obj.GetNamespace() && name == obj.GetName() {
				s.remove(kubePVsKey, pv)
			}
		}
	}
	return nil
}

// inferenceRecord is what the operator reads back of an object's status.
type inferenceRecord struct {
	State              string `json:"state"`
	ObservedGeneration int64  `json:"observedGeneration"`
	Conditions         []struct {
		Type               string `json:"type"`
		Status             string `json:"status"`
		Reason             string `json:"reason"`
		Message            string `json:"message"`
		LastTransitionTime string `json:"lastTransitionTime"`
	} `json:"conditions"`
}

// entered is when the object last entered state, zero if never.
func (r *inferenceRecord) entered(state string) time.Time {
	for _, c := range r.Conditions {
		if c.Type == state {
			at, _ := time.Parse(time.RFC3339, c.LastTransitionTime)
			return at
		}
	}
	return time.Time{}
}

// syncInference plays the operator for one object, the operator running
// since since. It returns the next moment the object needs it, zero for
// none.
func (s *kubeSession) syncInference(obj *unstructured.Unstructured, since time.Time) (time.Time, error) {
	now := s.t.now
	var rec inferenceRecord
	if err := kubeDecodeField(obj.Object["status"], &rec); err != nil {
		rec = inferenceRecord{}
	}
	gen := obj.GetGeneration()
	if rec.ObservedGeneration != gen {
		// A new spec is a new rollout: its clock starts now.
		rec.State = ""
	}
	st := &inferenceStatus{rec: &rec, gen: gen, now: now}
	var spec inferenceSpec
	if err := kubeDecodeField(obj.Object["spec"], &spec); err != nil {
		st.fail(inferenceFail("InvalidSpec", "the spec cannot be read: %v", err))
		return time.Time{}, s.writeInferenceStatus(obj, st, nil)
	}
	dep, err := s.get(kubeDeploymentsKey, obj.GetNamespace(), obj.GetName())
	if err != nil {
		return time.Time{}, err
	}
	start := obj.GetCreationTimestamp().Time
	if since.After(start) {
		start = since
	}
	if ready := start.Add(s.t.w.scale(inferencePrepareTime)); dep == nil && now.Before(ready) {
		st.enter(inferencePending, "Preparing", "validating the spec and preparing the endpoint's certificate")
		return ready, s.writeInferenceStatus(obj, st, nil)
	}
	w, err := s.inferenceWorkload(obj, &spec)
	if err == nil {
		scaled := len(spec.AutoScalingSpec) > 0 && string(spec.AutoScalingSpec) != "null"
		dep, err = s.applyInferenceWorkload(obj, w, dep, rec.State == "", scaled)
	}
	var failure *inferenceFailure
	if errors.As(err, &failure) {
		st.fail(failure)
		return time.Time{}, s.writeInferenceStatus(obj, st, dep)
	}
	if err != nil {
		return time.Time{}, err
	}
	return s.followInference(obj, &spec, st, dep)
}

// followInference moves the object's state after its Deployment's, and
// writes it. It returns when the deployment's time is up, if it is still
// to come.
func (s *kubeSession) followInference(obj *unstructured.Unstructured, spec *inferenceSpec, st *inferenceStatus, dep *unstructured.Unstructured) (time.Time, error) {
	var d appsv1.Deployment
	if err := kubeDecodeAs(dep, &d); err != nil {
		return time.Time{}, err
	}
	desired := int32(1)
	if d.Spec.Replicas != nil {
		desired = *d.Spec.Replicas
	}
	ready := d.Status.ReadyReplicas
	observed := d.Status.ObservedGeneration == 0 || d.Status.ObservedGeneration >= d.Generation
	if ready >= desired && observed && (desired == 0 || ready > 0) {
		st.enter(inferenceComplete, "DeploymentReady", fmt.Sprintf("%d of %d replicas are ready", ready, desired))
		return time.Time{}, s.writeInferenceStatus(obj, st, dep)
	}
	prev := st.rec.State
	if prev == inferenceComplete && ready > 0 {
		// A serving endpoint stays complete while it scales or rolls.
		st.enter(inferenceComplete, "DeploymentReady", fmt.Sprintf("%d of %d replicas are ready", ready, desired))
		return time.Time{}, s.writeInferenceStatus(obj, st, dep)
	}
	if prev == inferenceFailed {
		st.keep()
		return time.Time{}, s.writeInferenceStatus(obj, st, dep)
	}
	waiting, failure, err := s.inferencePods(obj.GetNamespace(), d.Spec.Selector)
	if err != nil {
		return time.Time{}, err
	}
	for _, c := range d.Status.Conditions {
		if failure == nil && c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
			failure = inferenceFail(c.Reason, "Deployment %s: %s", d.Name, c.Message)
		}
	}
	if failure != nil {
		st.fail(failure)
		return time.Time{}, s.writeInferenceStatus(obj, st, dep)
	}
	if prev != inferenceInProgress {
		st.enter(inferenceInProgress, "Deploying", "")
	} else {
		st.keep()
	}
	limit := 3600 * time.Second
	if spec.MaxDeployTimeInSeconds != nil {
		limit = time.Duration(*spec.MaxDeployTimeInSeconds) * time.Second
	}
	deadline := s.t.now
	if prev == inferenceInProgress {
		deadline = st.rec.entered(inferenceInProgress)
	}
	deadline = deadline.Add(s.t.w.scale(limit))
	if !s.t.now.Before(deadline) {
		st.fail(inferenceFail("DeploymentTimedOut", "the deployment did not complete within maxDeployTimeInSeconds (%d s): %d of %d replicas are ready", int64(limit/time.Second), ready, desired))
		return time.Time{}, s.writeInferenceStatus(obj, st, dep)
	}
	st.reason, st.message = "Deploying", fmt.Sprintf("%d of %d replicas are ready", ready, desired)
	if waiting != "" {
		st.reason, st.message = "PodsNotReady", st.message+"; "+waiting
	}
	return deadline, s.writeInferenceStatus(obj, st, dep)
}

// inferencePods reads the pods selector picks in namespace ns: what the
// first that is not ready waits for, or why one cannot come up.
func (s *kubeSession) inferencePods(ns string, selector *metav1.LabelSelector) (string, *inferenceFailure, error) {
	if selector == nil {
		return "", nil, nil
	}
	f, err := newKubeFilter(metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(selector)})
	if err != nil {
		return "", nil, nil
	}
	pods, err := s.list(kubePodsKey, ns)
	if err != nil {
		return "", nil, err
	}
	waiting := ""
	for _, obj := range pods {
		if !f.matches(obj) || obj.GetDeletionTimestamp() != nil {
			continue
		}
		var p corev1.Pod
		if err := kubeDecodeAs(obj, &p); err != nil {
			return "", nil, err
		}
		statuses := append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...)
		for _, cs := range statuses {
			if w := cs.State.Waiting; w != nil && slices.Contains(inferenceFailingReasons, w.Reason) {
				msg := w.Message
				if t := cs.LastTerminationState.Terminated; t != nil && t.Message != "" {
					msg = strings.TrimSpace(msg + " " + t.Message)
				}
				return "", inferenceFail(w.Reason, "pod %s: container %s: %s: %s", p.Name, cs.Name, w.Reason, msg), nil
			}
			if t := cs.State.Terminated; t != nil && t.Reason == "OOMKilled" {
				return "", inferenceFail("OOMKilled", "pod %s: container %s was OOMKilled: %s", p.Name, cs.Name, t.Message), nil
			}
		}
		if waiting != "" || kubePodReady(&p) {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message != "" {
				waiting = fmt.Sprintf("pod %s is %s: %s", p.Name, c.Reason, c.Message)
			}
		}
		if waiting == "" {
			waiting = fmt.Sprintf("pod %s is %s and not ready", p.Name, p.Status.Phase)
		}
	}
	return waiting, nil, nil
}

// inferenceStatus is the status the operator is writing for an object.
type inferenceStatus struct {
	rec *inferenceRecord
	gen int64
	now time.Time
	// state is the state being entered or kept, with its reason and
	// message; failed marks a failure met at this settle.
	state, reason, message string
	failed                 bool
}

// enter makes state the object's, with reason and message.
func (st *inferenceStatus) enter(state, reason, message string) {
	st.state, st.reason, st.message = state, reason, message
}

// keep keeps the object's state, reason and message.
func (st *inferenceStatus) keep() {
	st.state = st.rec.State
	for _, c := range st.rec.Conditions {
		if c.Type == st.state {
			st.reason, st.message = c.Reason, c.Message
		}
	}
}

// fail makes the object DeploymentFailed for f.
func (st *inferenceStatus) fail(f *inferenceFailure) {
	st.enter(inferenceFailed, f.reason, f.message)
	st.failed = st.rec.State != inferenceFailed
}

// writeInferenceStatus writes obj's status from st and its Deployment dep
// (nil before there is one), and the Warning event of a new failure.
func (s *kubeSession) writeInferenceStatus(obj *unstructured.Unstructured, st *inferenceStatus, dep *unstructured.Unstructured) error {
	stamp := st.now.UTC().Format(time.RFC3339)
	var conds []any
	seen := false
	for _, c := range st.rec.Conditions {
		if !slices.Contains([]string{inferencePending, inferenceInProgress, inferenceComplete, inferenceFailed}, c.Type) {
			continue
		}
		cond := map[string]any{"type": c.Type, "status": "False", "reason": c.Reason, "message": c.Message, "lastTransitionTime": c.LastTransitionTime, "observedGeneration": st.gen}
		if c.Type == st.state {
			seen = true
			cond["status"], cond["reason"], cond["message"] = "True", st.reason, st.message
			if st.rec.State != st.state {
				cond["lastTransitionTime"] = stamp
			}
		}
		conds = append(conds, cond)
	}
	if !seen {
		conds = append(conds, map[string]any{"type": st.state, "status": "True", "reason": st.reason, "message": st.message, "lastTransitionTime": stamp, "observedGeneration": st.gen})
	}
	for _, c := range conds {
		if m := c.(map[string]any); m["message"] == "" {
			m["message"] = m["type"]
		}
	}
	out := map[string]any{
		"state": st.state, "observedGeneration": st.gen, "conditions": conds,
		"selector": "app=" + obj.GetName(), "replicas": int64(0),
		"metricsStatus": inferenceMetricsStatus(obj),
	}
	if dep != nil {
		ds := map[string]any{"name": dep.GetName(), "reason": st.reason, "message": st.message}
		if depStatus, ok := dep.Object["status"].(map[string]any); ok {
			ds["status"] = runtime.DeepCopyJSONValue(depStatus)
			if n, ok := depStatus["replicas"]; ok {
				out["replicas"] = n
			}
		}
		// lastUpdated moves only when the rest changes.
		ds["lastUpdated"] = stamp
		if old, _, _ := unstructured.NestedMap(obj.Object, "status", "deploymentStatus"); old != nil {
			was := old["lastUpdated"]
			delete(old, "lastUpdated")
			delete(ds, "lastUpdated")
			same := kubeSameJSON(old, ds)
			ds["lastUpdated"] = stamp
			if same {
				ds["lastUpdated"] = was
			}
		}
		out["deploymentStatus"] = ds
	}
	if st.failed {
		s.inferenceEvent(obj, corev1.EventTypeWarning, st.reason, st.message)
	}
	if kubeSameJSON(obj.Object["status"], out) {
		return nil
	}
	next := obj.DeepCopy()
	next.Object["status"] = out
	s.put(kubeInferenceResource(obj), obj, next)
	return nil
}

// kubeInferenceResource is the resource key of one of the operator's kinds.
func kubeInferenceResource(obj *unstructured.Unstructured) string {
	if obj.GetKind() == "JumpStartModel" {
		return kubeJumpStartModelsKey
	}
	return kubeEndpointConfigsKey
}

// inferenceMetricsStatus is the metrics the operator scrapes of obj's
// workers, as its spec.metrics (with the CRD's defaults) says.
func inferenceMetricsStatus(obj *unstructured.Unstructured) map[string]any {
	var spec inferenceSpec
	_ = kubeDecodeField(obj.Object["spec"], &spec)
	m := spec.Metrics
	enabled := m.Enabled == nil || *m.Enabled
	out := map[string]any{"enabled": enabled}
	if !enabled {
		return out
	}
	interval := int64(15)
	if m.MetricsScrapeIntervalSeconds != nil {
		interval = int64(*m.MetricsScrapeIntervalSeconds)
	}
	path, port := m.ModelMetrics.Path, int64(m.ModelMetrics.Port)
	if path == "" {
		path = "/metrics"
	}
	if port == 0 {
		port = 8080
	}
	out["state"] = "Enabled"
	out["metricsScrapeIntervalSeconds"] = interval
	out["modelMetrics"] = map[string]any{"path": path, "port": port}
	return out
}

// inferenceEvent records an event of obj from the operator, once for a
// given reason and message.
func (s *kubeSession) inferenceEvent(obj *unstructured.Unstructured, typ, reason, message string) {
	kubeRecordEvent(s, obj, typ, reason, message, "hyperpod-inference-operator")
}

// playInference plays, after the scheduler, the HyperPod inference
// operator (see the top of this file) and the AWS Load Balancer Controller
// (kube_loadbalancer.go), and adds the moments at which they have
// something due to the cluster's wakes, so that a settle comes then.
func (sc *kubeScheduler) playInference() error {
	s := sc.s
	wakes, err := s.playInferenceOperator()
	if err != nil {
		return err
	}
	lbs, err := s.playLoadBalancers()
	if err != nil {
		return err
	}
	for _, at := range append(wakes, lbs...) {
		if at.After(s.t.now) {
			s.rec.Wakes = append(s.rec.Wakes, at)
		}
	}
	slices.SortFunc(s.rec.Wakes, time.Time.Compare)
	s.rec.Wakes = slices.CompactFunc(s.rec.Wakes, time.Time.Equal)
	return nil
}
