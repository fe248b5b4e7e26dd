package sim

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/smithy-go"
)

// Fault kinds.
const (
	// FaultCapacity makes a HyperPod cluster whose instance groups land in
	// Zone (and, if set, are of InstanceType) fail with
	// InsufficientInstanceCapacity when it would have become InService.
	// Nodes added to a running cluster wait for capacity instead, for as
	// long as the fault lasts.
	FaultCapacity = "capacity"
	// FaultQuota sets the Service Quotas value of InstanceType to Value;
	// SageMaker CreateCluster, UpdateCluster or BatchAddClusterNodes asking
	// for more fails with ResourceLimitExceeded.
	FaultQuota = "quota"
	// FaultThrottle makes calls to Service (and Operation, if set) fail with
	// ThrottlingException (EC2: RequestLimitExceeded).
	FaultThrottle = "throttle"
	// FaultError makes calls to Service (and Operation, if set) fail with
	// Code (default InternalFailure) and Message.
	FaultError = "error"
	// FaultFail makes an asynchronous resource of Service (EKS cluster or
	// add-on, SageMaker cluster or MLflow tracking server, EC2 NAT
	// gateway, Helm release) created by
	// Operation (any create, if empty; Helm's is "Install", installs and
	// upgrades alike) end in its failed state instead of its ready state.
	FaultFail = "fail"
	// FaultNode strikes healthy Running HyperPod nodes (of Cluster, Group,
	// Instance, Zone, InstanceType, when set): their health label turns
	// Unschedulable and, after the health-monitoring agent notices, they
	// need the Recovery ("reboot", the default, or "replace"). HyperPod
	// recovers them itself when the cluster's NodeRecovery is Automatic;
	// with None they stay Unschedulable until a client reboots or replaces
	// them.
	FaultNode = "node"
	// FaultHealthCheck makes the next deep health check of a matching
	// HyperPod node (by Cluster, Group, Instance, Zone, InstanceType) fail.
	FaultHealthCheck = "healthcheck"
	// FaultPatch makes a matching HyperPod node (by Cluster, Group,
	// Instance, Zone, InstanceType) come back unhealthy (Failure) from
	// the next software update (UpdateClusterSoftware) that replaces it,
	// so that its batch stops the rolling update.
	FaultPatch = "patch"
	// FaultHold keeps each asynchronous resource of Service (EKS cluster
	// or add-on, SageMaker cluster or MLflow tracking server, EC2 NAT
	// gateway, Helm release) that Operation creates (any create, if empty;
	// Helm's is "Install") in its creating state (CREATING, Creating,
	// pending, pending-install) for as
	// long as the fault is active, so a test catches it there however
	// slow the machine. Once the fault is cleared, the resource ends its
	// creation as it would have: at once if its time has passed. It takes
	// no count.
	FaultHold = "hold"
	// FaultHang hangs the training job named Job (a HyperPodPyTorchJob or
	// a RayJob, by name) at the next settle: its pod Pod (by name; empty
	// for the job's first) stops in a collective and every rank's log
	// stops, until the job's hang rule (logMonitoringConfiguration) fires
	// and the operator restarts it. A job with no hang rule hangs until
	// it is deleted.
	FaultHang = "hang"
	// FaultCrash kills a training process of pod Pod of job Job: the
	// worker exits with an error (Message, or a CUDA error) and the
	// operator restarts the job.
	FaultCrash = "crash"
	// FaultNCCL makes the ranks of job Job time out in an NCCL collective
	// (the next initialisation, or the running all-reduce): they exit
	// once the NCCL watchdog's timeout has passed, and the operator
	// restarts the job.
	FaultNCCL = "nccl"
	// FaultSlow makes job Job slow from the next settle: a straggler (pod
	// Pod, empty for the first) holds every rank back in the collectives,
	// so each logs a throughput of a hundredth of the healthy one, until
	// the job's throughput rule (a logMonitoringConfiguration rule with a
	// metricThreshold) has seen metricEvaluationDataPoints step lines
	// under its threshold and the operator restarts the job. A job with no
	// such rule runs on slowly to its end.
	FaultSlow = "slow"
	// FaultGPUOOM makes the model servers of Deployment Deployment run out
	// of GPU memory as they load their model: the container exits with
	// torch.OutOfMemoryError and goes into CrashLoopBackOff, until the
	// fault is cleared.
	FaultGPUOOM = "gpuoom"
	// FaultImagePull makes image Image unpullable: pods that run it stay
	// Pending, their container waiting in ErrImagePull, until the fault is
	// cleared.
	FaultImagePull = "imagepull"
	// FaultLoad adds a steady RPS requests a second to the model servers
	// of Deployment Deployment (of Namespace; any when empty), as a load
	// generator would, until the fault is cleared: KEDA reads them in the
	// request rate and the router's queue, and the servers' latency grows
	// with them. They are not answered one by one.
	FaultLoad = "load"
	// FaultNoFilters makes EC2's describe calls (of Operation; any when
	// empty) ignore their filters and answer with every resource of the
	// region, as some AWS emulators do, until the fault is cleared: what
	// a client finds by tag it must check again on its side.
	FaultNoFilters = "nofilters"
	// FaultSmallPages caps every page of the simulator's list and describe
	// calls (of Operation; any when empty) at Value items (1 when 0),
	// whatever the caller asks for, until it is cleared: a caller that
	// does not follow the next token misses items. Service "kubernetes"
	// (operations "list pods", ...) caps the Kubernetes lists that set a
	// limit, as a real API server may. Spec key: size.
	FaultSmallPages = "smallpages"
	// FaultIAMLag makes EKS or SageMaker (Service; either when empty)
	// refuse an IAM role that exists, in calls of Operation (any when
	// empty), with the answer they give for a role they cannot see or
	// assume: what they answer while IAM's new role or trust policy has
	// not reached them yet. It fires once per refused call, Count times (0:
	// until it is cleared).
	FaultIAMLag = "iamlag"
)

// trainingFault tells whether kind is a fault of a training job.
func trainingFault(kind string) bool {
	return kind == FaultHang || kind == FaultCrash || kind == FaultNCCL || kind == FaultSlow
}

// Fault is an injected misbehaviour of the simulated cloud. Empty selectors
// (Service, Operation, Region, Zone, InstanceType, Cluster, Group,
// Instance) match anything.
type Fault struct {
	ID           string
	Kind         string
	Service      string // "sagemaker", "eks", "ec2", "iam", "sts", "servicequotas", "helm"
	Operation    string // an SDK method name, e.g. "CreateCluster"; Helm's are "Install", "Uninstall", "GetRelease"
	Region       string
	Zone         string  // a zone name ("us-west-2a") or id ("usw2-az1")
	InstanceType string  // SageMaker name, e.g. "ml.p5.48xlarge"
	Cluster      string  `json:",omitempty"` // a HyperPod cluster name (node and healthcheck faults)
	Group        string  `json:",omitempty"` // an instance group name (node and healthcheck faults)
	Instance     string  `json:",omitempty"` // an instance id, "i-..." (node and healthcheck faults)
	Recovery     string  `json:",omitempty"` // what a node fault needs: "reboot" (default) or "replace"
	Job          string  `json:",omitempty"` // a training job's name (hang, crash and nccl faults)
	Pod          string  `json:",omitempty"` // a pod of the job (hang, crash and nccl faults); empty for its first
	Namespace    string  `json:",omitempty"` // the Deployment's namespace (gpuoom and load faults); empty for any
	Deployment   string  `json:",omitempty"` // a Deployment's name (gpuoom and load faults)
	Image        string  `json:",omitempty"` // a container image (imagepull faults)
	RPS          float64 `json:",omitempty"` // requests a second (load faults)
	Code         string
	Message      string
	// Count is how many times the fault fires before it is removed; 0
	// keeps it until cleared. A throttle or error fault fires on each call
	// it fails, a capacity or fail fault on each resource it dooms, a quota
	// fault on each request it rejects (reporting the value through
	// ListServiceQuotas does not use it up), a node fault on each node it
	// strikes, a healthcheck fault on each check it fails, a patch fault
	// on each updated node it leaves unhealthy. Node, healthcheck and
	// patch faults fire once when Count is 0. A hold fault takes no
	// count: it holds until it is cleared.
	Count int
	Value float64 // the quota value of a quota fault
}

// ParseFault parses the start-up flag syntax
// kind[:key=value[,key=value...]], for example
// "capacity:zone=us-west-2a,instanceType=ml.p5.48xlarge",
// "throttle:service=eks,operation=DescribeCluster,count=3",
// "node:cluster=hp,group=workers,recovery=replace" or
// "healthcheck:cluster=hp,instanceType=ml.p5.48xlarge" or
// "load:namespace=default,deployment=vllm-chat,rps=5". Keys are
// case-insensitive: id, service, operation, region, zone, instanceType,
// cluster, group, instance, recovery, job, pod, namespace, deployment,
// image, rps, code, message, count, value.
func ParseFault(spec string) (Fault, error) {
	kind, rest, _ := strings.Cut(strings.TrimSpace(spec), ":")
	f := Fault{Kind: strings.ToLower(strings.TrimSpace(kind))}
	if rest == "" {
		return f, validateFaultKind(f.Kind)
	}
	for _, kv := range strings.Split(rest, ",") {
		key, value, ok := strings.Cut(kv, "=")
		if !ok {
			return Fault{}, fmt.Errorf("sim: fault %q: %q is not key=value", spec, kv)
		}
		key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
		var err error
		switch key {
		case "id":
			f.ID = value
		case "service":
			f.Service = value
		case "operation", "op":
			f.Operation = value
		case "region":
			f.Region = value
		case "zone", "az":
			f.Zone = value
		case "instancetype", "instance-type", "type":
			f.InstanceType = value
		case "cluster":
			f.Cluster = value
		case "group", "instancegroup", "instance-group":
			f.Group = value
		case "instance", "instanceid", "instance-id":
			f.Instance = value
		case "job":
			f.Job = value
		case "pod":
			f.Pod = value
		case "namespace", "ns":
			f.Namespace = value
		case "deployment":
			f.Deployment = value
		case "image":
			f.Image = value
		case "recovery":
			f.Recovery = value
		case "code":
			f.Code = value
		case "message", "msg":
			f.Message = value
		case "count":
			f.Count, err = strconv.Atoi(value)
		case "value":
			f.Value, err = strconv.ParseFloat(value, 64)
		case "size":
			f.Value, err = strconv.ParseFloat(value, 64)
		case "rps":
			f.RPS, err = strconv.ParseFloat(value, 64)
		default:
			return Fault{}, fmt.Errorf("sim: fault %q: unknown key %q", spec, key)
		}
		if err != nil {
			return Fault{}, fmt.Errorf("sim: fault %q: bad %s: %w", spec, key, err)
		}
	}
	return f, validateFaultKind(f.Kind)
}

// faultKinds lists the fault kinds.
var faultKinds = []string{FaultCapacity, FaultQuota, FaultThrottle, FaultError, FaultFail, FaultNode, FaultHealthCheck, FaultPatch, FaultHold, FaultHang, FaultCrash, FaultNCCL, FaultSlow, FaultGPUOOM, FaultImagePull, FaultLoad, FaultNoFilters, FaultSmallPages, FaultIAMLag}

func validateFaultKind(kind string) error {
	if slices.Contains(faultKinds, kind) {
		return nil
	}
	return fmt.Errorf("sim: unknown fault kind %q; kinds are %s", kind, strings.Join(faultKinds, ", "))
}

// InjectFault validates f, gives it an ID if it has none, and makes it
// active. It returns the fault as stored.
func (w *World) InjectFault(f Fault) (Fault, error) {
	f, err := w.normalizeFault(f)
	if err != nil {
		return Fault{}, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if f.ID == "" {
		w.st.FaultSeq++
		f.ID = fmt.Sprintf("fault-%d", w.st.FaultSeq)
	}
	for _, g := range w.st.Faults {
		if g.ID == f.ID {
			return Fault{}, fmt.Errorf("sim: a fault with id %q already exists", f.ID)
		}
	}
	w.st.Faults = append(w.st.Faults, f)
	if err := w.save(); err != nil {
		w.rollback()
		return Fault{}, err
	}
	return f, nil
}

func (w *World) normalizeFault(f Fault) (Fault, error) {
	f.Kind = strings.ToLower(f.Kind)
	f.Service = strings.ToLower(f.Service)
	if err := validateFaultKind(f.Kind); err != nil {
		return f, err
	}
	if f.Count < 0 {
		return f, fmt.Errorf("sim: fault count must not be negative, got %d", f.Count)
	}
	if f.Service != "" && serviceID(f.Service) == f.Service {
		return f, fmt.Errorf("sim: unknown service %q; services are %s", f.Service, strings.Join(serviceNames(), ", "))
	}
	if f.Service == svcKubernetes && f.Kind != FaultSmallPages {
		return f, fmt.Errorf("sim: service %q takes only the %s fault (its lists then return pages of size items); the faults of pods and nodes name their job, pod or group instead of a service", svcKubernetes, FaultSmallPages)
	}
	if f.Region != "" {
		if _, ok := w.catalog.region(f.Region); !ok {
			return f, w.unknownRegion(f.Region)
		}
	}
	if f.InstanceType != "" {
		f.InstanceType = "ml." + strings.TrimPrefix(f.InstanceType, "ml.")
		if !w.catalog.knownType(f.InstanceType) {
			return f, fmt.Errorf("sim: unknown instance type %q", f.InstanceType)
		}
	}
	switch f.Kind {
	case FaultThrottle, FaultError:
		if f.Service == "" {
			return f, fmt.Errorf("sim: a %s fault needs a service", f.Kind)
		}
		if f.Kind == FaultError && f.Code == "" {
			f.Code = "InternalFailure"
		}
	case FaultFail, FaultHold:
		switch f.Service {
		case svcEKS, svcSageMaker, svcEC2, svcHelm:
		default:
			return f, fmt.Errorf("sim: a %s fault needs service eks, sagemaker, ec2 or helm, got %q", f.Kind, f.Service)
		}
		if f.Kind == FaultHold && f.Count != 0 {
			return f, fmt.Errorf("sim: a hold fault lasts until it is cleared; it takes no count, got %d", f.Count)
		}
	case FaultCapacity:
		if f.Zone == "" {
			return f, fmt.Errorf("sim: a capacity fault needs a zone")
		}
		region, ok := w.catalog.regionOfZone(f.Zone)
		if !ok || (f.Region != "" && f.Region != region) {
			return f, fmt.Errorf("sim: unknown zone %q", f.Zone)
		}
		f.Region = region
	case FaultQuota:
		if f.InstanceType == "" {
			return f, fmt.Errorf("sim: a quota fault needs an instance type")
		}
		if f.Value < 0 {
			return f, fmt.Errorf("sim: a quota value must not be negative, got %v", f.Value)
		}
	case FaultNode, FaultHealthCheck, FaultPatch:
		return w.normalizeNodeFault(f)
	case FaultHang, FaultCrash, FaultNCCL, FaultSlow:
		return normalizeTrainingFault(f)
	case FaultGPUOOM, FaultImagePull, FaultLoad:
		return normalizeServingFault(f)
	case FaultSmallPages:
		if f.Zone != "" || f.InstanceType != "" || f.Code != "" || f.Message != "" || f.Count != 0 || f.Value < 0 || f.Value != float64(int32(f.Value)) {
			return f, fmt.Errorf("sim: a %s fault takes a size (a whole number of items, 1 when omitted) and selects calls by service, region and operation; it lasts until it is cleared", f.Kind)
		}
	case FaultIAMLag:
		if (f.Service != "" && f.Service != svcEKS && f.Service != svcSageMaker) || f.Zone != "" || f.InstanceType != "" ||
			f.Code != "" || f.Message != "" || f.Value != 0 {
			return f, fmt.Errorf("sim: a %s fault selects EKS or SageMaker calls that use an IAM role, by service (eks or sagemaker), region and operation, and takes a count; nothing else", f.Kind)
		}
	case FaultNoFilters:
		if (f.Service != "" && f.Service != svcEC2) || (f.Operation != "" && !strings.HasPrefix(f.Operation, "Describe")) || f.Zone != "" || f.InstanceType != "" ||
			f.Code != "" || f.Message != "" || f.Count != 0 || f.Value != 0 {
			return f, fmt.Errorf("sim: a %s fault selects EC2 describe calls by region and operation (Describe...); it takes nothing else and lasts until it is cleared", f.Kind)
		}
		f.Service = svcEC2
	}
	if f.Namespace != "" || f.Deployment != "" || f.Image != "" || f.RPS != 0 {
		return f, fmt.Errorf("sim: namespace, deployment, image and rps select model servers; only %s, %s and %s faults take them", FaultGPUOOM, FaultImagePull, FaultLoad)
	}
	if f.Job != "" || f.Pod != "" {
		return f, fmt.Errorf("sim: job and pod select training jobs; only %s, %s, %s and %s faults take them", FaultHang, FaultCrash, FaultNCCL, FaultSlow)
	}
	if f.Cluster != "" || f.Group != "" || f.Instance != "" || f.Recovery != "" {
		return f, fmt.Errorf("sim: cluster, group, instance and recovery select nodes; only %s, %s and %s faults take them", FaultNode, FaultHealthCheck, FaultPatch)
	}
	return f, nil
}

// normalizeNodeFault checks the selectors of a node or healthcheck fault:
// they pick HyperPod nodes, not calls.
func (w *World) normalizeNodeFault(f Fault) (Fault, error) {
	if f.Service != "" || f.Operation != "" || f.Code != "" || f.Value != 0 {
		return f, fmt.Errorf("sim: a %s fault selects nodes by region, zone, instanceType, cluster, group and instance; it takes no service, operation, code or value", f.Kind)
	}
	if f.Zone != "" {
		region, ok := w.catalog.regionOfZone(f.Zone)
		if !ok || (f.Region != "" && f.Region != region) {
			return f, fmt.Errorf("sim: unknown zone %q", f.Zone)
		}
		f.Region = region
	}
	if f.Instance != "" && !instanceIDPattern.MatchString(f.Instance) {
		return f, fmt.Errorf("sim: instance %q is not an instance id such as i-0123456789abcdef0", f.Instance)
	}
	f.Recovery = strings.ToLower(f.Recovery)
	switch {
	case f.Kind == FaultHealthCheck && f.Recovery != "":
		return f, fmt.Errorf("sim: a %s fault takes no recovery: a node that fails its deep health checks needs a replacement", FaultHealthCheck)
	case f.Kind == FaultPatch && f.Recovery != "":
		return f, fmt.Errorf("sim: a %s fault takes no recovery: the software update stops, and rolls back if asked", FaultPatch)
	case f.Kind == FaultNode && f.Recovery == "":
		f.Recovery = recoverReboot
	case f.Kind == FaultNode && f.Recovery != recoverReboot && f.Recovery != recoverReplace:
		return f, fmt.Errorf("sim: recovery must be %s or %s, got %q", recoverReboot, recoverReplace, f.Recovery)
	}
	if f.Count == 0 {
		f.Count = 1
	}
	return f, nil
}

// normalizeTrainingFault checks a hang, crash or nccl fault: it names the
// job it strikes, and fires once when Count is 0.
func normalizeTrainingFault(f Fault) (Fault, error) {
	if f.Job == "" {
		return f, fmt.Errorf("sim: a %s fault needs the training job's name (job)", f.Kind)
	}
	if f.Service != "" || f.Operation != "" || f.Code != "" || f.Value != 0 || f.Zone != "" || f.InstanceType != "" ||
		f.Cluster != "" || f.Group != "" || f.Instance != "" || f.Recovery != "" {
		return f, fmt.Errorf("sim: a %s fault selects a training job by region, job and pod; it takes nothing else", f.Kind)
	}
	if f.Count == 0 {
		f.Count = 1
	}
	return f, nil
}

// normalizeServingFault checks a gpuoom, imagepull or load fault: it
// selects model servers by region and its own keys, and lasts until it is
// cleared.
func normalizeServingFault(f Fault) (Fault, error) {
	if f.Service != "" || f.Operation != "" || f.Code != "" || f.Value != 0 || f.Zone != "" || f.InstanceType != "" ||
		f.Cluster != "" || f.Group != "" || f.Instance != "" || f.Recovery != "" || f.Job != "" || f.Pod != "" {
		return f, fmt.Errorf("sim: a %s fault selects model servers by region and %s; it takes nothing else", f.Kind, servingFaultKeys[f.Kind])
	}
	if f.Count != 0 {
		return f, fmt.Errorf("sim: a %s fault lasts until it is cleared; it takes no count, got %d", f.Kind, f.Count)
	}
	switch f.Kind {
	case FaultGPUOOM:
		if f.Deployment == "" || f.Image != "" || f.RPS != 0 || f.Message != "" {
			return f, fmt.Errorf("sim: a %s fault needs deployment (the serving Deployment's name) and may take namespace; it takes no image, rps or message", f.Kind)
		}
	case FaultImagePull:
		if f.Image == "" || f.Namespace != "" || f.Deployment != "" || f.RPS != 0 {
			return f, fmt.Errorf("sim: an %s fault needs image (the image reference that cannot be pulled) and may take message (the registry's answer); it takes no namespace, deployment or rps", f.Kind)
		}
	case FaultLoad:
		if f.Deployment == "" || f.Image != "" || f.Message != "" {
			return f, fmt.Errorf("sim: a %s fault needs deployment and rps, and may take namespace; it takes no image or message", f.Kind)
		}
		if !(f.RPS > 0) || math.IsInf(f.RPS, 1) {
			return f, fmt.Errorf("sim: a %s fault needs rps, the requests a second it adds, above 0; got %v", f.Kind, f.RPS)
		}
	}
	return f, nil
}

// servingFaultKeys names the keys of each serving fault, for its messages.
var servingFaultKeys = map[string]string{
	FaultGPUOOM:    "namespace and deployment",
	FaultImagePull: "image and message",
	FaultLoad:      "namespace, deployment and rps",
}

// instanceIDPattern is the shape of an EC2 instance id.
var instanceIDPattern = regexp.MustCompile(`^i-[0-9a-f]{8}([0-9a-f]{9})?$`)

// ClearFault removes the fault with id. What a hold fault kept in its
// creating state goes on from now.
func (w *World) ClearFault(id string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, f := range w.st.Faults {
		if f.ID == id {
			w.st.Faults = append(w.st.Faults[:i:i], w.st.Faults[i+1:]...)
			w.st.releaseHolds(w.clock())
			if err := w.save(); err != nil {
				w.rollback()
				return err
			}
			return nil
		}
	}
	return fmt.Errorf("sim: no fault with id %q", id)
}

// ClearFaults removes every fault, releasing what hold faults kept in
// their creating state. Should saving fail, the faults are still
// gone from memory and the change reaches Storage with the next saved call.
func (w *World) ClearFaults() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.st.Faults = nil
	w.st.releaseHolds(w.clock())
	_ = w.save()
}

// Faults returns the active faults in the order they were injected.
func (w *World) Faults() []Fault {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Fault(nil), w.st.Faults...)
}

// fire records that the fault at index i fired: a counted fault that has
// fired its last time is removed.
func (st *state) fire(i int) {
	f := &st.Faults[i]
	if f.Count == 0 {
		return
	}
	f.Count--
	if f.Count == 0 {
		st.Faults = append(st.Faults[:i:i], st.Faults[i+1:]...)
	}
}

// inRegion tells whether fault f applies to a call in region ("" for the
// global services, which every regional fault applies to).
func (f Fault) inRegion(region string) bool {
	return f.Region == "" || region == "" || f.Region == region
}

// callFault fires the first throttle or error fault that matches a call.
func (t *txn) callFault(service, op string) error {
	for i, f := range t.st.Faults {
		if (f.Kind != FaultThrottle && f.Kind != FaultError) || f.Service != service ||
			(f.Operation != "" && f.Operation != op) || !f.inRegion(t.region) {
			continue
		}
		t.st.fire(i)
		if f.Kind == FaultError {
			msg := f.Message
			if msg == "" {
				msg = "Injected fault"
			}
			return &smithy.GenericAPIError{Code: f.Code, Message: msg, Fault: smithy.FaultServer}
		}
		code := "ThrottlingException"
		switch service {
		case svcEC2:
			code = "RequestLimitExceeded"
		case svcS3:
			code = "SlowDown"
		}
		return &smithy.GenericAPIError{Code: code, Message: "Rate exceeded", Fault: smithy.FaultClient}
	}
	return nil
}

// roleUsable returns the role arn names as the service of the call sees
// it: nil when there is none, or when an iamlag fault makes the call's
// service not see it yet (the fault fires then).
func (t *txn) roleUsable(arn string) *roleRec {
	r := t.roleByArn(arn)
	if r == nil {
		return nil
	}
	for i, f := range t.st.Faults {
		if f.Kind != FaultIAMLag || (f.Service != "" && f.Service != t.service) ||
			(f.Operation != "" && f.Operation != t.op) || !f.inRegion(t.region) {
			continue
		}
		t.st.fire(i)
		return nil
	}
	return r
}

// failFault fires the first fail fault for a resource of service created by
// op, and returns its failure message.
func (t *txn) failFault(service, op, defaultMessage string) (string, bool) {
	for i, f := range t.st.Faults {
		if f.Kind != FaultFail || f.Service != service || (f.Operation != "" && f.Operation != op) || !f.inRegion(t.region) {
			continue
		}
		t.st.fire(i)
		if f.Message != "" {
			return f.Message, true
		}
		return defaultMessage, true
	}
	return "", false
}

// capacityFault fires the first capacity fault for instances of typ (a
// SageMaker name) in zone.
func (t *txn) capacityFault(zone Zone, typ string) bool {
	i := t.capacityFaultIndex(zone, typ)
	if i >= 0 {
		t.st.fire(i)
	}
	return i >= 0
}

// capacityFaultIndex returns the index of the first capacity fault for
// instances of typ in zone, or -1.
func (t *txn) capacityFaultIndex(zone Zone, typ string) int {
	for i, f := range t.st.Faults {
		if f.Kind == FaultCapacity && f.inRegion(t.region) && (f.Zone == zone.Name || f.Zone == zone.ID) &&
			(f.InstanceType == "" || f.InstanceType == typ) {
			return i
		}
	}
	return -1
}

// quotaFault returns the index of the quota fault that overrides the quota
// of typ (a SageMaker name) in the call's region, or -1.
func (t *txn) quotaFault(typ string) int {
	for i, f := range t.st.Faults {
		if f.Kind == FaultQuota && f.InstanceType == typ && f.inRegion(t.region) {
			return i
		}
	}
	return -1
}

// nodeFaultMatches tells whether node fault or healthcheck fault f selects
// node n of group g of cluster c.
func (t *txn) nodeFaultMatches(f Fault, c *hpClusterRec, g *hpGroupRec, n *hpNodeRec) bool {
	if !f.inRegion(t.region) || (f.Cluster != "" && f.Cluster != c.Name) || (f.Group != "" && f.Group != g.Name) ||
		(f.Instance != "" && f.Instance != n.InstanceID) || (f.InstanceType != "" && f.InstanceType != n.InstanceType) {
		return false
	}
	if f.Zone != "" {
		zone, _ := t.w.catalog.zone(t.region, n.Zone)
		return f.Zone == zone.Name || f.Zone == zone.ID
	}
	return true
}

// strikeNodeFaults lets the node faults strike the healthy nodes they
// select, one node per firing, in the order of cluster names, groups and
// nodes. A fault that selects no healthy node now waits for one.
func (t *txn) strikeNodeFaults() {
	var ids []string
	for _, f := range t.st.Faults {
		if f.Kind == FaultNode && f.inRegion(t.region) {
			ids = append(ids, f.ID)
		}
	}
	for _, id := range ids {
		for {
			i := slices.IndexFunc(t.st.Faults, func(f Fault) bool { return f.ID == id })
			if i < 0 {
				break
			}
			f := t.st.Faults[i]
			c, g, n := t.nodeFaultTarget(f)
			if n == nil {
				break
			}
			msg := f.Message
			if msg == "" {
				msg = defaultNodeFaultMessage(f.Recovery)
			}
			t.breakNode(c, g, n, t.now, f.Recovery, msg)
			t.st.fire(i)
		}
	}
}

// nodeFaultTarget finds the first healthy node fault f selects.
func (t *txn) nodeFaultTarget(f Fault) (*hpClusterRec, *hpGroupRec, *hpNodeRec) {
	for _, name := range sortedKeys(t.rs.HyperPod) {
		c := t.rs.HyperPod[name]
		if !c.alive() {
			continue
		}
		for _, g := range c.Groups {
			for _, n := range g.Nodes {
				if n.healthy() && t.nodeFaultMatches(f, c, g, n) {
					return c, g, n
				}
			}
		}
	}
	return nil, nil, nil
}

// defaultNodeFaultMessage is what the health-monitoring agent reports for
// a simulated fault that needs recovery.
func defaultNodeFaultMessage(recovery string) string {
	if recovery == recoverReplace {
		return "GPU hardware failure: NVIDIA XID 79, the GPU has fallen off the bus (simulated fault)."
	}
	return "The node stopped responding: kernel soft lockup detected (simulated fault)."
}

// patchFault fires the first patch fault that selects node n and returns
// the message its failed update reports.
func (t *txn) patchFault(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, version string) (string, bool) {
	for i, f := range t.st.Faults {
		if f.Kind != FaultPatch || !t.nodeFaultMatches(f, c, g, n) {
			continue
		}
		t.st.fire(i)
		if f.Message != "" {
			return f.Message, true
		}
		return fmt.Sprintf("Node %s failed its health checks after the update to image %s: the GPU driver did not load (simulated fault).", n.InstanceID, version), true
	}
	return "", false
}

// healthCheckFault fires the first healthcheck fault that selects node n,
// which starts the deep health checks checks, and returns the message
// they fail with.
func (t *txn) healthCheckFault(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, checks []string) (string, bool) {
	for i, f := range t.st.Faults {
		if f.Kind != FaultHealthCheck || !t.nodeFaultMatches(f, c, g, n) {
			continue
		}
		t.st.fire(i)
		if f.Message != "" {
			return f.Message, true
		}
		return fmt.Sprintf("Deep health check %s failed on %s: GPU stress test found uncorrectable ECC errors (simulated fault).", checks[0], n.InstanceID), true
	}
	return "", false
}
