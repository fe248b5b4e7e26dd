package sim

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The workload the HyperPod inference operator (kube_inference_operator.go)
// makes for an InferenceEndpointConfig or JumpStartModel: the model
// server's container, the Deployment and Service that run and expose it,
// the PersistentVolume and claim of an S3 or FSx model, the node affinity
// to the instance types; and how it is stored, made where missing and
// brought to a new spec.

// inferenceWorkerContainer is the name of the model server's container.
const inferenceWorkerContainer = "worker"

// jumpStartImage is the serving image the operator runs a JumpStart model
// with (the hub's LMI container), %s standing for the region, and
// jumpStartPort the port it serves on.
const (
	jumpStartImage = "763104351884.dkr.ecr.%s.amazonaws.com/djl-inference:0.32.0-lmi14.0.0-cu124"
	jumpStartPort  = 8080
)

// inferenceWorkload is what the operator makes for an object: its
// Deployment, Service and model volume (nil for none), named and owned.
type inferenceWorkload struct {
	deployment *appsv1.Deployment
	service    *corev1.Service
	pv         *corev1.PersistentVolume
	claim      *corev1.PersistentVolumeClaim
}

// inferenceWorkload builds what the operator makes for obj.
func (s *kubeSession) inferenceWorkload(obj *unstructured.Unstructured, spec *inferenceSpec) (*inferenceWorkload, error) {
	name, ns := obj.GetName(), obj.GetNamespace()
	owner := metav1.OwnerReference{
		APIVersion: inferenceGroupVersion, Kind: obj.GetKind(), Name: name, UID: obj.GetUID(),
		Controller: new(true), BlockOwnerDeletion: new(true),
	}
	labels := map[string]string{"app": name}
	meta := metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, OwnerReferences: []metav1.OwnerReference{owner}}
	w := &inferenceWorkload{}
	var (
		container corev1.Container
		volume    corev1.Volume
		types     []string
		err       error
	)
	switch obj.GetKind() {
	case "JumpStartModel":
		container, volume, types, err = s.jumpStartWorker(spec)
	default:
		container, volume, types, err = s.endpointWorker(spec)
		if err == nil {
			w.pv, w.claim, err = s.inferenceModelVolume(spec, meta)
		}
	}
	if err != nil {
		return nil, err
	}
	if container.ReadinessProbe == nil {
		path := spec.LoadBalancer.HealthCheckPath
		if path == "" {
			path = "/ping"
		}
		container.ReadinessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(container.Ports[0].ContainerPort)}},
			PeriodSeconds: 10, FailureThreshold: 3, SuccessThreshold: 1, TimeoutSeconds: 1,
		}
	}
	replicas := int32(1)
	if spec.Replicas != nil {
		replicas = *spec.Replicas
	}
	w.deployment = &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: *meta.DeepCopy(),
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: corev1.PodSpec{
					Containers:         []corev1.Container{container},
					Volumes:            []corev1.Volume{volume},
					Affinity:           inferenceAffinity(spec.NodeAffinity, types),
					ServiceAccountName: spec.Kubernetes.ServiceAccountName,
					SchedulerName:      spec.Kubernetes.SchedulerName,
				},
			},
		},
	}
	port := container.Ports[0]
	w.service = &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: *meta.DeepCopy(),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{
				Name: port.Name, Protocol: corev1.ProtocolTCP, Port: port.ContainerPort, TargetPort: intstr.FromInt32(port.ContainerPort),
			}},
		},
	}
	return w, nil
}

// endpointWorker is an InferenceEndpointConfig's worker container, its
// model volume and the instance types it may run on.
func (s *kubeSession) endpointWorker(spec *inferenceSpec) (corev1.Container, corev1.Volume, []string, error) {
	wk := spec.Worker
	if wk == nil || wk.Image == "" || spec.ModelSourceConfig == nil {
		return corev1.Container{}, corev1.Volume{}, nil, inferenceFail("InvalidSpec", "spec.worker.image and spec.modelSourceConfig are required")
	}
	portName := wk.ModelInvocationPort.Name
	if portName == "" {
		portName = "http"
	}
	mountPath := wk.ModelVolumeMount.MountPath
	if mountPath == "" {
		mountPath = "/opt/ml/model"
	}
	volName := wk.ModelVolumeMount.Name
	if volName == "" {
		volName = "model-weights"
	}
	mount := corev1.VolumeMount{Name: volName, MountPath: mountPath, ReadOnly: true}
	if spec.ModelSourceConfig.ModelSourceType == "fsx" {
		mount.SubPath = strings.Trim(spec.ModelSourceConfig.ModelLocation, "/")
	}
	c := corev1.Container{
		Name: inferenceWorkerContainer, Image: wk.Image, Command: wk.Command, Args: wk.Args, WorkingDir: wk.WorkingDir,
		Env:            slices.Clone(wk.EnvironmentVariables),
		Resources:      *wk.Resources.DeepCopy(),
		Ports:          []corev1.ContainerPort{{Name: portName, ContainerPort: wk.ModelInvocationPort.ContainerPort, Protocol: corev1.ProtocolTCP}},
		VolumeMounts:   []corev1.VolumeMount{mount},
		LivenessProbe:  wk.Probes.LivenessProbe,
		ReadinessProbe: wk.Probes.ReadinessProbe,
		StartupProbe:   wk.Probes.StartupProbe,
	}
	if c.Ports[0].ContainerPort <= 0 {
		return c, corev1.Volume{}, nil, inferenceFail("InvalidSpec", "spec.worker.modelInvocationPort.containerPort is required")
	}
	vol := corev1.Volume{Name: volName, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ReadOnly: true}}}
	types := spec.InstanceTypes
	if spec.InstanceType != "" {
		types = append([]string{spec.InstanceType}, types...)
	}
	return c, vol, types, nil
}

// jumpStartWorker is a JumpStartModel's worker container, its model
// volume and the instance type it runs on.
func (s *kubeSession) jumpStartWorker(spec *inferenceSpec) (corev1.Container, corev1.Volume, []string, error) {
	if spec.Model == nil || spec.Model.ModelID == "" || spec.Server == nil || spec.Server.InstanceType == "" {
		return corev1.Container{}, corev1.Volume{}, nil, inferenceFail("InvalidSpec", "spec.model.modelId and spec.server.instanceType are required")
	}
	typ := spec.Server.InstanceType
	gpus, ok := kubeNodeCapacity(typ)[kubeResourceGPU]
	if !ok || gpus.IsZero() {
		return corev1.Container{}, corev1.Volume{}, nil, inferenceFail("UnsupportedInstanceType",
			"JumpStart model %s cannot be served on %s: the instance type has no NVIDIA GPU", spec.Model.ModelID, typ)
	}
	env := []corev1.EnvVar{
		{Name: "SM_NUM_GPUS", Value: gpus.String()},
		{Name: "OPTION_MODEL_ID", Value: "/opt/ml/model"},
		{Name: "OPTION_TENSOR_PARALLEL_DEGREE", Value: gpus.String()},
		{Name: "SAGEMAKER_JUMPSTART_MODEL_ID", Value: spec.Model.ModelID},
	}
	env = append(env, spec.EnvironmentVariables...)
	c := corev1.Container{
		Name: inferenceWorkerContainer, Image: fmt.Sprintf(jumpStartImage, s.rec.Region), Env: env,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{kubeResourceGPU: gpus.DeepCopy()},
			Limits:   corev1.ResourceList{kubeResourceGPU: gpus.DeepCopy()},
		},
		Ports:        []corev1.ContainerPort{{Name: "http", ContainerPort: jumpStartPort, Protocol: corev1.ProtocolTCP}},
		VolumeMounts: []corev1.VolumeMount{{Name: "model-weights", MountPath: "/opt/ml/model"}},
	}
	vol := corev1.Volume{Name: "model-weights", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	return c, vol, []string{typ}, nil
}

// inferenceModelCapacity is the size the operator gives the model's
// volume and claim: the S3 and FSx drivers ignore it, Kubernetes needs one.
var inferenceModelCapacity = resource.MustParse("1200Gi")

// inferenceModelVolume is the static PersistentVolume and the claim the
// worker mounts the model from (see the top of kube_inference_operator.go).
func (s *kubeSession) inferenceModelVolume(spec *inferenceSpec, meta metav1.ObjectMeta) (*corev1.PersistentVolume, *corev1.PersistentVolumeClaim, error) {
	src := spec.ModelSourceConfig
	claimName := meta.Name + "-model"
	pv := &corev1.PersistentVolume{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: meta.Name + "-" + meta.Namespace + "-model", Labels: map[string]string{"app": meta.Name}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: inferenceModelCapacity},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              "",
			ClaimRef:                      &corev1.ObjectReference{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: meta.Namespace, Name: claimName},
		},
	}
	switch src.ModelSourceType {
	case "s3":
		if src.S3Storage == nil || src.S3Storage.BucketName == "" {
			return nil, nil, inferenceFail("InvalidSpec", "spec.modelSourceConfig.s3Storage.bucketName is required for an s3 model")
		}
		opts := []string{"region " + src.S3Storage.Region}
		if loc := strings.Trim(src.ModelLocation, "/"); loc != "" {
			opts = append(opts, "prefix "+loc+"/")
		}
		pv.Spec.MountOptions = opts
		pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{
			Driver: "s3.csi.aws.com", VolumeHandle: pv.Name,
			VolumeAttributes: map[string]string{"bucketName": src.S3Storage.BucketName},
		}
	case "fsx":
		if src.FsxStorage == nil || src.FsxStorage.FileSystemID == "" {
			return nil, nil, inferenceFail("InvalidSpec", "spec.modelSourceConfig.fsxStorage.fileSystemId is required for an fsx model")
		}
		id := src.FsxStorage.FileSystemID
		dns, mountName := src.FsxStorage.DNSName, src.FsxStorage.MountName
		if dns == "" || mountName == "" {
			fs := s.t.st.regionState(s.rec.Region).FileSystems[id]
			if fs == nil {
				return nil, nil, inferenceFail("FileSystemNotFound", "FSx file system %s does not exist in %s", id, s.rec.Region)
			}
			dns, mountName = fmt.Sprintf("%s.fsx.%s.amazonaws.com", id, s.rec.Region), fs.MountName
		}
		pv.Spec.MountOptions = []string{"flock"}
		pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{
			Driver: "fsx.csi.aws.com", VolumeHandle: id,
			VolumeAttributes: map[string]string{"dnsname": dns, "mountname": mountName},
		}
	default:
		return nil, nil, inferenceFail("InvalidSpec", "model source type %q is not one the operator deploys here (s3 or fsx)", src.ModelSourceType)
	}
	claim := &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: claimName, Namespace: meta.Namespace, Labels: map[string]string{"app": meta.Name}, OwnerReferences: meta.OwnerReferences},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			StorageClassName: new(""),
			VolumeName:       pv.Name,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: inferenceModelCapacity}},
		},
	}
	return pv, claim, nil
}

// inferenceAffinity is the workers' node affinity: the object's own, each
// of its required terms narrowed to the instance types; nil for none.
func inferenceAffinity(own *corev1.NodeAffinity, types []string) *corev1.Affinity {
	if own == nil && len(types) == 0 {
		return nil
	}
	a := &corev1.NodeAffinity{}
	if own != nil {
		a = own.DeepCopy()
	}
	if len(types) == 0 {
		return &corev1.Affinity{NodeAffinity: a}
	}
	req := corev1.NodeSelectorRequirement{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: slices.Compact(slices.Clone(types))}
	if a.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(a.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		a.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}
	}
	terms := a.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for i := range terms {
		terms[i].MatchExpressions = append(terms[i].MatchExpressions, req)
	}
	return &corev1.Affinity{NodeAffinity: a}
}

// applyInferenceWorkload makes what w holds where it is missing, and,
// when update is set (a new spec), brings the Deployment's template and
// the Service's ports and selector to w's, and the Deployment's replicas
// too unless an autoscaler owns them (scaled). It refuses to take over an
// object of the same name another owner controls. It returns the stored
// Deployment.
func (s *kubeSession) applyInferenceWorkload(obj *unstructured.Unstructured, w *inferenceWorkload, dep *unstructured.Unstructured, update, scaled bool) (*unstructured.Unstructured, error) {
	uid := string(obj.GetUID())
	now := s.t.now
	if w.pv != nil {
		cur, err := s.get(kubePVsKey, "", w.pv.Name)
		if err != nil {
			return nil, err
		}
		if cur == nil {
			s.put(kubePVsKey, nil, s.stamp(kubeToUnstructured(w.pv), now))
		}
		cur, err = s.get(kubePVCsKey, w.claim.Namespace, w.claim.Name)
		switch {
		case err != nil:
			return nil, err
		case cur == nil:
			s.put(kubePVCsKey, nil, s.stamp(kubeToUnstructured(w.claim), now))
		case inferenceOwner(cur) != uid:
			return nil, inferenceFail("NameConflict", "PersistentVolumeClaim %s/%s exists and is not this %s's", w.claim.Namespace, w.claim.Name, obj.GetKind())
		}
		w.deployment.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName = w.claim.Name
	}
	svc, err := s.get(inferenceServicesKey, w.service.Namespace, w.service.Name)
	switch {
	case err != nil:
		return nil, err
	case svc == nil:
		s.put(inferenceServicesKey, nil, s.stamp(kubeToUnstructured(w.service), now))
	case inferenceOwner(svc) != uid:
		return nil, inferenceFail("NameConflict", "Service %s/%s exists and is not this %s's", w.service.Namespace, w.service.Name, obj.GetKind())
	case update:
		next := svc.DeepCopy()
		fresh := kubeToUnstructured(w.service)
		for _, f := range []string{"ports", "selector"} {
			if err := unstructured.SetNestedField(next.Object, fresh.Object["spec"].(map[string]any)[f], "spec", f); err != nil {
				return nil, err
			}
		}
		s.put(inferenceServicesKey, svc, next)
	}
	fresh := kubeToUnstructured(w.deployment)
	switch {
	case dep == nil:
		return s.put(kubeDeploymentsKey, nil, s.stamp(fresh, now)), nil
	case inferenceOwner(dep) != uid:
		return dep, inferenceFail("NameConflict", "Deployment %s/%s exists and is not this %s's", w.deployment.Namespace, w.deployment.Name, obj.GetKind())
	case !update:
		return dep, nil
	}
	next := dep.DeepCopy()
	spec := next.Object["spec"].(map[string]any)
	want := fresh.Object["spec"].(map[string]any)
	spec["template"], spec["selector"] = want["template"], want["selector"]
	if !scaled {
		spec["replicas"] = want["replicas"]
	}
	if !kubeSameJSON(dep.Object["spec"], spec) {
		next.SetGeneration(dep.GetGeneration() + 1)
	}
	return s.put(kubeDeploymentsKey, dep, next), nil
}
