package sim

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The fault kinds, the Fault a client injects, and how one is parsed,
// checked and stored. Each kind is one entry of faultKinds: what its
// faults select, the rules that check and complete one, and the selectors
// it refuses. Where faults strike is in faults_fire.go and beside the code
// they strike.

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
	// ThrottlingException (EC2: RequestLimitExceeded, S3: SlowDown;
	// Kubernetes: 429 TooManyRequests with a Retry-After of a second, which
	// the simulated clients, as client-go's, answer by sending the request
	// again, up to 10 times). With Probability it fails that share of the
	// matching calls.
	FaultThrottle = "throttle"
	// FaultError makes calls to Service (and Operation, if set) fail with
	// Code (default InternalFailure, a server fault: the 5xx form) and
	// Message; code ServiceUnavailable is AWS's 503. Kubernetes answers 503
	// ServiceUnavailable for code ServiceUnavailable and 500 InternalError
	// for any other code, as an API server does. With Probability it fails
	// that share of the matching calls.
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
	// count: it holds until it is cleared. With Probability, Count still
	// counts the calls the fault fails, not those it lets through.
	Count int
	Value float64 // the quota value of a quota fault
	// Probability, in (0, 1], is the share of the matching calls a throttle
	// or error fault fails; 0 fails every one. Each matching call draws
	// from a stream of the world's own, seeded by Options.Seed, so that a
	// world with the same seed that receives the same calls fails the same
	// ones, and drawing changes no generated id. Faults are tried in the
	// order they were injected: with a throttle fault of 0.1 and an error
	// fault of 0.02 on one service, about 10% of the calls are throttled
	// and 2% of the rest fail.
	Probability float64 `json:",omitempty"`
}

// ParseFault parses the start-up flag syntax
// kind[:key=value[,key=value...]], for example
// "capacity:zone=us-west-2a,instanceType=ml.p5.48xlarge",
// "throttle:service=eks,operation=DescribeCluster,count=3",
// "node:cluster=hp,group=workers,recovery=replace" or
// "healthcheck:cluster=hp,instanceType=ml.p5.48xlarge" or
// "load:namespace=default,deployment=vllm-chat,rps=5" or
// "throttle:service=kubernetes,probability=0.1" (a tenth of the calls to
// the Kubernetes APIs answer 429) or
// "error:service=s3,code=ServiceUnavailable,probability=0.02". Keys are
// case-insensitive: id, service, operation, region, zone, instanceType,
// cluster, group, instance, recovery, job, pod, namespace, deployment,
// image, rps, code, message, count, value, probability (throttle and
// error faults only: the share of the matching calls that fail, above 0
// and at most 1; count then counts the calls failed).
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
		case "probability":
			if f.Probability, err = strconv.ParseFloat(value, 64); err == nil {
				// 0 would read as no probability: refused here, where it was written.
				err = probabilityRange(f.Probability)
			}
		default:
			return Fault{}, fmt.Errorf("sim: fault %q: unknown key %q", spec, key)
		}
		if err != nil {
			return Fault{}, fmt.Errorf("sim: fault %q: bad %s: %w", spec, key, err)
		}
	}
	return f, validateFaultKind(f.Kind)
}

// faultKind is one kind of fault: what its faults select, the rules that
// check and complete one, and the selectors it refuses.
type faultKind struct {
	name string
	// scope is what its faults select instead of API calls; nil for calls.
	scope *faultScope
	// rules check a fault of the kind in order, the first broken one
	// giving the fault's error; they may complete it (a default count, the
	// region of its zone).
	rules []faultRule
	// excludes are the scopes whose selectors a fault of the kind must not
	// set, checked once its rules pass.
	excludes []*faultScope
}

// faultKinds is every fault kind, in the order error messages list them.
// A kind that selects calls refuses the selectors of every scope; a kind
// of a scope refuses, in its rules, the fields they name.
var faultKinds = []faultKind{
	{name: FaultCapacity, excludes: faultScopes, rules: []faultRule{
		fieldRule(fieldZone, 0, "sim: a %s fault needs a zone"),
		zoneRegion,
	}},
	{name: FaultQuota, excludes: faultScopes, rules: []faultRule{
		fieldRule(fieldInstanceType, 0, "sim: a %s fault needs an instance type"),
		quotaValue,
	}},
	{name: FaultThrottle, excludes: faultScopes, rules: []faultRule{
		fieldRule(fieldService, 0, "sim: a %s fault needs a service"),
	}},
	{name: FaultError, excludes: faultScopes, rules: []faultRule{
		fieldRule(fieldService, 0, "sim: a %s fault needs a service"),
		defaultErrorCode,
	}},
	{name: FaultFail, excludes: faultScopes, rules: []faultRule{asyncService}},
	{name: FaultNode, scope: scopeNodes, rules: nodeRules(nodeRecovery)},
	{name: FaultHealthCheck, scope: scopeNodes, rules: nodeRules(noRecovery("a node that fails its deep health checks needs a replacement"))},
	{name: FaultPatch, scope: scopeNodes, rules: nodeRules(noRecovery("the software update stops, and rolls back if asked"))},
	{name: FaultHold, excludes: faultScopes, rules: []faultRule{asyncService, untilCleared}},
	{name: FaultHang, scope: scopeJobs, rules: jobRules},
	{name: FaultCrash, scope: scopeJobs, rules: jobRules},
	{name: FaultNCCL, scope: scopeJobs, rules: jobRules},
	{name: FaultSlow, scope: scopeJobs, rules: jobRules},
	{name: FaultGPUOOM, scope: scopeServers, rules: serverRules("namespace and deployment",
		fieldRule(fieldDeployment, fieldImage|fieldRPS|fieldMessage,
			"sim: a %s fault needs deployment (the serving Deployment's name) and may take namespace; it takes no image, rps or message"),
	)},
	{name: FaultImagePull, scope: scopeServers, rules: serverRules("image and message",
		fieldRule(fieldImage, fieldNamespace|fieldDeployment|fieldRPS,
			"sim: an %s fault needs image (the image reference that cannot be pulled) and may take message (the registry's answer); it takes no namespace, deployment or rps"),
	)},
	{name: FaultLoad, scope: scopeServers, rules: serverRules("namespace, deployment and rps",
		fieldRule(fieldDeployment, fieldImage|fieldMessage,
			"sim: a %s fault needs deployment and rps, and may take namespace; it takes no image or message"),
		loadRate,
	)},
	{name: FaultNoFilters, excludes: faultScopes, rules: []faultRule{describeCalls}},
	{name: FaultSmallPages, excludes: faultScopes, rules: []faultRule{pageSize}},
	{name: FaultIAMLag, excludes: faultScopes, rules: []faultRule{roleCalls}},
}

// faultScope is what the faults of some kinds select instead of API
// calls, by selectors of their own.
type faultScope struct {
	// selectors are the fields that select it, named so in messages;
	// what says what they select.
	selectors   faultField
	names, what string
}

// The scopes of faults that select no calls.
var (
	scopeNodes   = &faultScope{fieldCluster | fieldGroup | fieldInstance | fieldRecovery, "cluster, group, instance and recovery", "select nodes"}
	scopeJobs    = &faultScope{fieldJob | fieldPod, "job and pod", "select training jobs"}
	scopeServers = &faultScope{fieldNamespace | fieldDeployment | fieldImage | fieldRPS, "namespace, deployment, image and rps", "select model servers"}
)

// faultScopes is every scope, in the order a fault is checked against
// them.
var faultScopes = []*faultScope{scopeServers, scopeJobs, scopeNodes}

// refusal is the error of a fault of a kind that excludes scope sc, for
// setting its selectors: it names the kinds that take them.
func (sc *faultScope) refusal() error {
	var kinds []string
	for _, k := range faultKinds {
		if k.scope == sc {
			kinds = append(kinds, k.name)
		}
	}
	last := len(kinds) - 1
	return fmt.Errorf("sim: %s %s; only %s and %s faults take them", sc.names, sc.what, strings.Join(kinds[:last], ", "), kinds[last])
}

// faultKindNamed is the kind called name, nil for none.
func faultKindNamed(name string) *faultKind {
	i := slices.IndexFunc(faultKinds, func(k faultKind) bool { return k.name == name })
	if i < 0 {
		return nil
	}
	return &faultKinds[i]
}

// validateFaultKind refuses a kind that faultKinds does not have.
func validateFaultKind(kind string) error {
	if faultKindNamed(kind) != nil {
		return nil
	}
	names := make([]string, len(faultKinds))
	for i, k := range faultKinds {
		names[i] = k.name
	}
	return fmt.Errorf("sim: unknown fault kind %q; kinds are %s", kind, strings.Join(names, ", "))
}

// trainingFault tells whether kind is a fault of a training job.
func trainingFault(kind string) bool {
	k := faultKindNamed(kind)
	return k != nil && k.scope == scopeJobs
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

// normalizeFault checks f as its kind's entry of faultKinds says, after
// what every kind shares (a known service, region and instance type), and
// returns it completed.
func (w *World) normalizeFault(f Fault) (Fault, error) {
	f.Kind = strings.ToLower(f.Kind)
	f.Service = strings.ToLower(f.Service)
	kind := faultKindNamed(f.Kind)
	if kind == nil {
		return f, validateFaultKind(f.Kind)
	}
	if f.Count < 0 {
		return f, fmt.Errorf("sim: fault count must not be negative, got %d", f.Count)
	}
	if f.Service != "" && serviceID(f.Service) == f.Service {
		return f, fmt.Errorf("sim: unknown service %q; services are %s", f.Service, strings.Join(serviceNames(), ", "))
	}
	if f.Service == svcKubernetes && f.Kind != FaultSmallPages && f.Kind != FaultThrottle && f.Kind != FaultError {
		return f, fmt.Errorf("sim: service %q takes only the %s, %s and %s faults (its calls answer 429, or 500 and 503; its lists return pages of size items); the faults of pods and nodes name their job, pod or group instead of a service", svcKubernetes, FaultThrottle, FaultError, FaultSmallPages)
	}
	if err := callProbability(f); err != nil {
		return f, err
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
	for _, rule := range kind.rules {
		if err := rule(w, &f); err != nil {
			return f, err
		}
	}
	for _, sc := range kind.excludes {
		if f.sets(sc.selectors) {
			return f, sc.refusal()
		}
	}
	return f, nil
}

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

// faultField is a field of Fault, as a bit of a set of fields.
type faultField uint32

// The fields a kind may need or refuse. Region is not one: every kind
// takes it.
const (
	fieldService faultField = 1 << iota
	fieldOperation
	fieldZone
	fieldInstanceType
	fieldCluster
	fieldGroup
	fieldInstance
	fieldRecovery
	fieldJob
	fieldPod
	fieldNamespace
	fieldDeployment
	fieldImage
	fieldRPS
	fieldCode
	fieldMessage
	fieldCount
	fieldValue
)

// fields is the set of fields f sets: not empty, not zero.
func (f Fault) fields() faultField {
	var set faultField
	for field, on := range map[faultField]bool{
		fieldService: f.Service != "", fieldOperation: f.Operation != "", fieldZone: f.Zone != "",
		fieldInstanceType: f.InstanceType != "", fieldCluster: f.Cluster != "", fieldGroup: f.Group != "",
		fieldInstance: f.Instance != "", fieldRecovery: f.Recovery != "", fieldJob: f.Job != "", fieldPod: f.Pod != "",
		fieldNamespace: f.Namespace != "", fieldDeployment: f.Deployment != "", fieldImage: f.Image != "",
		fieldRPS: f.RPS != 0, fieldCode: f.Code != "", fieldMessage: f.Message != "", fieldCount: f.Count != 0,
		fieldValue: f.Value != 0,
	} {
		if on {
			set |= field
		}
	}
	return set
}

// sets tells whether f sets any of fields.
func (f Fault) sets(fields faultField) bool { return f.fields()&fields != 0 }

// faultRule checks one thing of a fault of its kind, and may complete it.
// It returns why the fault is refused.
type faultRule func(w *World, f *Fault) error

// fieldRule is the rule that a fault sets every field of needs and none
// of refuses; format, given the fault's kind, says what the kind takes.
func fieldRule(needs, refuses faultField, format string) faultRule {
	return func(_ *World, f *Fault) error {
		if set := f.fields(); set&needs != needs || set&refuses != 0 {
			return fmt.Errorf(format, f.Kind)
		}
		return nil
	}
}

// zoneRegion checks that the fault's zone exists, in its region if it
// names one, and makes the zone's region the fault's.
func zoneRegion(w *World, f *Fault) error {
	if f.Zone == "" {
		return nil
	}
	region, ok := w.catalog.regionOfZone(f.Zone)
	if !ok || (f.Region != "" && f.Region != region) {
		return fmt.Errorf("sim: unknown zone %q", f.Zone)
	}
	f.Region = region
	return nil
}

// quotaValue checks a quota fault's value.
func quotaValue(_ *World, f *Fault) error {
	if f.Value < 0 {
		return fmt.Errorf("sim: a quota value must not be negative, got %v", f.Value)
	}
	return nil
}

// defaultErrorCode gives an error fault with no code the one of a server fault.
func defaultErrorCode(_ *World, f *Fault) error {
	if f.Code == "" {
		f.Code = "InternalFailure"
	}
	return nil
}

// asyncService checks that the fault's service has resources that are
// created asynchronously, which fail and hold faults act on.
func asyncService(_ *World, f *Fault) error {
	switch f.Service {
	case svcEKS, svcSageMaker, svcEC2, svcHelm:
		return nil
	}
	return fmt.Errorf("sim: a %s fault needs service eks, sagemaker, ec2 or helm, got %q", f.Kind, f.Service)
}

// callProbability checks a fault's probability: only throttle and error
// faults take one, above 0 and at most 1.
func callProbability(f Fault) error {
	if f.Probability == 0 {
		return nil
	}
	if f.Kind != FaultThrottle && f.Kind != FaultError {
		return fmt.Errorf("sim: a %s fault takes no probability; only %s and %s faults fail a share of the calls they select", f.Kind, FaultThrottle, FaultError)
	}
	if err := probabilityRange(f.Probability); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	return nil
}

// probabilityRange refuses a probability outside (0, 1].
func probabilityRange(p float64) error {
	if !(p > 0 && p <= 1) {
		return fmt.Errorf("probability is the share of the matching calls the fault fails: above 0 and at most 1, such as 0.1 for one call in ten; got %v (leave it out to fail every call)", p)
	}
	return nil
}

// untilCleared refuses a count to a kind whose faults last until they are
// cleared.
func untilCleared(_ *World, f *Fault) error {
	if f.Count != 0 {
		return fmt.Errorf("sim: a %s fault lasts until it is cleared; it takes no count, got %d", f.Kind, f.Count)
	}
	return nil
}

// firesOnce makes a fault with no count fire once.
func firesOnce(_ *World, f *Fault) error {
	if f.Count == 0 {
		f.Count = 1
	}
	return nil
}

// nodeRules are the rules of a kind whose faults select HyperPod nodes,
// not calls; recovery checks what the struck node needs.
func nodeRules(recovery faultRule) []faultRule {
	return []faultRule{
		fieldRule(0, fieldService|fieldOperation|fieldCode|fieldValue,
			"sim: a %s fault selects nodes by region, zone, instanceType, cluster, group and instance; it takes no service, operation, code or value"),
		zoneRegion,
		instanceID,
		recovery,
		firesOnce,
	}
}

// instanceIDPattern is the shape of an EC2 instance id.
var instanceIDPattern = regexp.MustCompile(`^i-[0-9a-f]{8}([0-9a-f]{9})?$`)

// instanceID checks the shape of the instance a node fault selects.
func instanceID(_ *World, f *Fault) error {
	if f.Instance != "" && !instanceIDPattern.MatchString(f.Instance) {
		return fmt.Errorf("sim: instance %q is not an instance id such as i-0123456789abcdef0", f.Instance)
	}
	return nil
}

// nodeRecovery checks the recovery a node fault asks for, a reboot when
// it names none.
func nodeRecovery(_ *World, f *Fault) error {
	f.Recovery = strings.ToLower(f.Recovery)
	switch f.Recovery {
	case "":
		f.Recovery = recoverReboot
	case recoverReboot, recoverReplace:
	default:
		return fmt.Errorf("sim: recovery must be %s or %s, got %q", recoverReboot, recoverReplace, f.Recovery)
	}
	return nil
}

// noRecovery refuses a recovery to a node kind whose node needs none it
// could choose, for the reason why.
func noRecovery(why string) faultRule {
	return func(_ *World, f *Fault) error {
		if f.Recovery != "" {
			return fmt.Errorf("sim: a %s fault takes no recovery: %s", f.Kind, why)
		}
		return nil
	}
}

// jobRules are the rules of a kind whose faults strike a training job:
// they name it, and fire once when Count is 0.
var jobRules = []faultRule{
	fieldRule(fieldJob, 0, "sim: a %s fault needs the training job's name (job)"),
	fieldRule(0, fieldService|fieldOperation|fieldCode|fieldValue|fieldZone|fieldInstanceType|fieldCluster|fieldGroup|fieldInstance|fieldRecovery,
		"sim: a %s fault selects a training job by region, job and pod; it takes nothing else"),
	firesOnce,
}

// serverRules are the rules of a kind whose faults strike model servers,
// selected by region and keys, and last until they are cleared, followed
// by the kind's own.
func serverRules(keys string, own ...faultRule) []faultRule {
	selectors := func(_ *World, f *Fault) error {
		if f.sets(fieldService | fieldOperation | fieldCode | fieldValue | fieldZone | fieldInstanceType |
			fieldCluster | fieldGroup | fieldInstance | fieldRecovery | fieldJob | fieldPod) {
			return fmt.Errorf("sim: a %s fault selects model servers by region and %s; it takes nothing else", f.Kind, keys)
		}
		return nil
	}
	return append([]faultRule{selectors, untilCleared}, own...)
}

// loadRate checks the requests a second a load fault adds.
func loadRate(_ *World, f *Fault) error {
	if !(f.RPS > 0) || math.IsInf(f.RPS, 1) {
		return fmt.Errorf("sim: a %s fault needs rps, the requests a second it adds, above 0; got %v", f.Kind, f.RPS)
	}
	return nil
}

// describeCalls checks a nofilters fault: it selects EC2's describe calls,
// and its service is EC2's when it names none.
func describeCalls(_ *World, f *Fault) error {
	if (f.Service != "" && f.Service != svcEC2) || (f.Operation != "" && !strings.HasPrefix(f.Operation, "Describe")) ||
		f.sets(fieldZone|fieldInstanceType|fieldCode|fieldMessage|fieldCount|fieldValue) {
		return fmt.Errorf("sim: a %s fault selects EC2 describe calls by region and operation (Describe...); it takes nothing else and lasts until it is cleared", f.Kind)
	}
	f.Service = svcEC2
	return nil
}

// pageSize checks a smallpages fault: its size (Value) is a whole number
// of items.
func pageSize(_ *World, f *Fault) error {
	if f.sets(fieldZone|fieldInstanceType|fieldCode|fieldMessage|fieldCount) || f.Value < 0 || f.Value != float64(int32(f.Value)) {
		return fmt.Errorf("sim: a %s fault takes a size (a whole number of items, 1 when omitted) and selects calls by service, region and operation; it lasts until it is cleared", f.Kind)
	}
	return nil
}

// roleCalls checks an iamlag fault: it selects the EKS and SageMaker calls
// that use an IAM role.
func roleCalls(_ *World, f *Fault) error {
	if (f.Service != "" && f.Service != svcEKS && f.Service != svcSageMaker) ||
		f.sets(fieldZone|fieldInstanceType|fieldCode|fieldMessage|fieldValue) {
		return fmt.Errorf("sim: a %s fault selects EKS or SageMaker calls that use an IAM role, by service (eks or sagemaker), region and operation, and takes a count; nothing else", f.Kind)
	}
	return nil
}
