package inference

import (
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/instantstart/instantstart/engine/hyperpod"
)

// Labels of what an endpoint makes.
const (
	managedByLabel  = "app.kubernetes.io/managed-by"
	managedBy       = "instantstart"
	endpointIDLabel = "instantstart.io/endpoint-id"
	componentLabel  = "instantstart.io/component"
	appLabel        = "app"
	poolLabel       = "model-id"
	businessLabel   = "business"
	// unassigned is a pool worker's business until one is given.
	unassigned = "unassigned"
)

// Serving settings of the engines.
const (
	vllmPort     = 8000
	sglangPort   = 30000
	servicePort  = 80
	portName     = "http"
	modelsMount  = "/s3"
	serverName   = "server"
	instanceType = "node.kubernetes.io/instance-type"
	gpuResource  = corev1.ResourceName("nvidia.com/gpu")
)

// routerImage is the SGLang image the router runs from: the router
// (sglang_router) ships in SGLang's release images.
const routerImage = "lmsysorg/sglang:v0.5.3-cu126"

// deploymentName is the Deployment of a self-managed endpoint.
func deploymentName(engine Engine, name string) string {
	if engine == SGLang {
		return "sglang-" + name
	}
	return "vllm-" + name
}

// labels are the labels every object of endpoint e carries.
func labels(e *Endpoint) map[string]string {
	return map[string]string{managedByLabel: managedBy, endpointIDLabel: e.ID}
}

func with(m map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(m)+len(kv)/2)
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// enginePort is the port the engine's server listens on.
func enginePort(engine Engine) int32 {
	if engine == SGLang {
		return sglangPort
	}
	return vllmPort
}

// serverCommand is the container's command and arguments.
func serverCommand(e *Endpoint) ([]string, []string) {
	model := modelsMount + "/models/" + e.Model
	tp := strconv.Itoa(e.TensorParallelSize)
	port := strconv.Itoa(int(enginePort(e.Engine)))
	if e.Engine == SGLang {
		return []string{"python3", "-m", "sglang.launch_server"},
			[]string{"--model-path", model, "--served-model-name", e.Model, "--tp", tp, "--host", "0.0.0.0", "--port", port}
	}
	return []string{"vllm", "serve", model},
		[]string{"--served-model-name", e.Model, "--tensor-parallel-size", tp, "--host", "0.0.0.0", "--port", port}
}

// shape is what a replica asks of its node besides GPUs: a share of the
// instance's vCPUs and memory in proportion to its GPUs, with room left
// for the node's own daemons.
type shape struct {
	gpus, vcpus, memoryGiB int
}

func (sh shape) resources(gpus int) corev1.ResourceRequirements {
	cpu, mem := 1, 4
	if sh.gpus > 0 && sh.vcpus > 0 {
		cpu = max(1, sh.vcpus*gpus/sh.gpus*8/10)
		mem = max(4, sh.memoryGiB*gpus/sh.gpus*8/10)
	}
	req := corev1.ResourceList{
		gpuResource:           *resource.NewQuantity(int64(gpus), resource.DecimalSI),
		corev1.ResourceCPU:    *resource.NewQuantity(int64(cpu), resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse(fmt.Sprintf("%dGi", mem)),
	}
	return corev1.ResourceRequirements{Requests: req, Limits: corev1.ResourceList{gpuResource: req[gpuResource]}}
}

// instanceAffinity keeps pods on nodes of the instance type.
func instanceAffinity(t string) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: instanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{t}}}}}}}}
}

// selfManagedDeployment is a self-managed endpoint's Deployment.
func selfManagedDeployment(e *Endpoint, claim string, sh shape) *appsv1.Deployment {
	podLabels := with(labels(e), appLabel, e.Workload)
	if e.Form == ModelPool {
		podLabels = with(podLabels, poolLabel, e.Pool, businessLabel, unassigned)
	}
	cmd, args := serverCommand(e)
	replicas := int32(e.Replicas)
	memory := corev1.StorageMediumMemory
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: e.Workload, Namespace: e.Namespace, Labels: with(labels(e), appLabel, e.Workload)},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{appLabel: e.Workload}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					Affinity: instanceAffinity(e.InstanceType),
					Containers: []corev1.Container{{
						Name: serverName, Image: e.Image, Command: cmd, Args: args,
						Ports:     []corev1.ContainerPort{{Name: portName, ContainerPort: enginePort(e.Engine), Protocol: corev1.ProtocolTCP}},
						Resources: sh.resources(e.GPUsPerReplica),
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromString(portName)}},
							PeriodSeconds: 10, FailureThreshold: 3},
						VolumeMounts: []corev1.VolumeMount{{Name: "s3", MountPath: modelsMount, ReadOnly: true}, {Name: "dshm", MountPath: "/dev/shm"}},
					}},
					Volumes: []corev1.Volume{
						{Name: "s3", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim, ReadOnly: true}}},
						{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: memory}}},
					},
				},
			},
		},
	}
}

// service is a Service of endpoint e named name, selecting selector.
func service(e *Endpoint, name string, selector map[string]string, lb bool) *corev1.Service {
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.Namespace, Labels: labels(e)},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector,
			Ports:    []corev1.ServicePort{{Name: portName, Port: servicePort, TargetPort: intstr.FromString(portName), Protocol: corev1.ProtocolTCP}},
		},
	}
	if lb {
		class := "service.k8s.aws/nlb"
		svc.Spec.Type, svc.Spec.LoadBalancerClass = corev1.ServiceTypeLoadBalancer, &class
		svc.Annotations = map[string]string{
			"service.beta.kubernetes.io/aws-load-balancer-type":            "external",
			"service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip",
			"service.beta.kubernetes.io/aws-load-balancer-scheme":          "internet-facing",
		}
	}
	return svc
}

// endpointService is a self-managed endpoint's own Service, nil for a pool.
func endpointService(e *Endpoint) *corev1.Service {
	if e.Form == ModelPool {
		return nil
	}
	return service(e, e.Workload, map[string]string{appLabel: e.Workload}, e.Form == LoadBalancer)
}

// poolService is the Service of a pool's business.
func poolService(e *Endpoint, business string) *corev1.Service {
	svc := service(e, poolServiceName(e.Pool, business), map[string]string{poolLabel: e.Pool, businessLabel: business}, false)
	svc.Labels = with(svc.Labels, poolLabel, e.Pool, businessLabel, business)
	return svc
}

func poolServiceName(pool, business string) string { return pool + "-" + business }

// routerName is the router's Deployment, Service and service account.
func routerName(e *Endpoint) string { return e.Workload + "-router" }

// routerPolicyArg is a policy as the router's --policy takes it.
func routerPolicyArg(p RouterPolicy) string {
	switch p {
	case RoundRobin:
		return "round_robin"
	case Random:
		return "random"
	case PowerOfTwo:
		return "power_of_two"
	}
	return "cache_aware"
}

// systemAffinity has a pod prefer the system node group's nodes
// (hyperpod.SystemAffinity): the router needs no accelerator, and there it
// keeps running while the endpoint's GPU nodes come and go.
func systemAffinity() *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
		Weight: 100,
		Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
			Key: hyperpod.SystemNodeLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{hyperpod.SystemNodeValue},
		}}},
	}}}}
}

// routerDeployment is the SGLang router of endpoint e, discovering its
// pods by their app label.
func routerDeployment(e *Endpoint, p RouterPolicy) *appsv1.Deployment {
	name := routerName(e)
	podLabels := with(labels(e), appLabel, name, componentLabel, "router")
	one := int32(1)
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.Namespace, Labels: podLabels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{appLabel: name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					ServiceAccountName: name,
					Affinity:           systemAffinity(),
					Containers: []corev1.Container{{
						Name: "router", Image: routerImage,
						Command: []string{"python3", "-m", "sglang_router.launch_router"},
						Args: []string{"--service-discovery", "--selector", appLabel + "=" + e.Workload, "--service-discovery-namespace", e.Namespace,
							"--service-discovery-port", strconv.Itoa(sglangPort), "--policy", routerPolicyArg(p),
							"--host", "0.0.0.0", "--port", strconv.Itoa(sglangPort), "--prometheus-port", "29000"},
						Ports: []corev1.ContainerPort{{Name: portName, ContainerPort: sglangPort, Protocol: corev1.ProtocolTCP},
							{Name: "metrics", ContainerPort: 29000, Protocol: corev1.ProtocolTCP}},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi")}},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromString(portName)}}},
					}},
				},
			},
		},
	}
}
