package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/smithy-go"
)

// Fault kinds.
const (
	// FaultCapacity makes a HyperPod cluster whose instance groups land in
	// Zone (and, if set, are of InstanceType) fail with
	// InsufficientInstanceCapacity when it would have become InService.
	FaultCapacity = "capacity"
	// FaultQuota sets the Service Quotas value of InstanceType to Value;
	// SageMaker CreateCluster asking for more fails with
	// ResourceLimitExceeded.
	FaultQuota = "quota"
	// FaultThrottle makes calls to Service (and Operation, if set) fail with
	// ThrottlingException (EC2: RequestLimitExceeded).
	FaultThrottle = "throttle"
	// FaultError makes calls to Service (and Operation, if set) fail with
	// Code (default InternalFailure) and Message.
	FaultError = "error"
	// FaultFail makes an asynchronous resource of Service (EKS cluster or
	// add-on, SageMaker cluster, EC2 NAT gateway) created by Operation (any
	// create, if empty) end in its failed state instead of its ready state.
	FaultFail = "fail"
)

// Fault is an injected misbehaviour of the simulated cloud. Empty selectors
// (Service, Operation, Region, Zone, InstanceType) match anything.
type Fault struct {
	ID           string
	Kind         string
	Service      string // "sagemaker", "eks", "ec2", "iam", "sts", "servicequotas"
	Operation    string // an SDK method name, e.g. "CreateCluster"
	Region       string
	Zone         string // a zone name ("us-west-2a") or id ("usw2-az1")
	InstanceType string // SageMaker name, e.g. "ml.p5.48xlarge"
	Code         string
	Message      string
	// Count is how many times the fault fires before it is removed; 0
	// keeps it until cleared. A throttle or error fault fires on each call
	// it fails, a capacity or fail fault on each resource it dooms, a quota
	// fault on each CreateCluster it rejects (reporting the value through
	// ListServiceQuotas does not use it up).
	Count int
	Value float64 // the quota value of a quota fault
}

// ParseFault parses the start-up flag syntax
// kind[:key=value[,key=value...]], for example
// "capacity:zone=us-west-2a,instanceType=ml.p5.48xlarge" or
// "throttle:service=eks,operation=DescribeCluster,count=3". Keys are
// case-insensitive: id, service, operation, region, zone, instanceType,
// code, message, count, value.
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
		case "code":
			f.Code = value
		case "message", "msg":
			f.Message = value
		case "count":
			f.Count, err = strconv.Atoi(value)
		case "value":
			f.Value, err = strconv.ParseFloat(value, 64)
		default:
			return Fault{}, fmt.Errorf("sim: fault %q: unknown key %q", spec, key)
		}
		if err != nil {
			return Fault{}, fmt.Errorf("sim: fault %q: bad %s: %w", spec, key, err)
		}
	}
	return f, validateFaultKind(f.Kind)
}

func validateFaultKind(kind string) error {
	switch kind {
	case FaultCapacity, FaultQuota, FaultThrottle, FaultError, FaultFail:
		return nil
	}
	return fmt.Errorf("sim: unknown fault kind %q; kinds are %s, %s, %s, %s, %s",
		kind, FaultCapacity, FaultQuota, FaultThrottle, FaultError, FaultFail)
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
	case FaultFail:
		switch f.Service {
		case svcEKS, svcSageMaker, svcEC2:
		default:
			return f, fmt.Errorf("sim: a fail fault needs service eks, sagemaker or ec2, got %q", f.Service)
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
	}
	return f, nil
}

// ClearFault removes the fault with id.
func (w *World) ClearFault(id string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, f := range w.st.Faults {
		if f.ID == id {
			w.st.Faults = append(w.st.Faults[:i:i], w.st.Faults[i+1:]...)
			if err := w.save(); err != nil {
				w.rollback()
				return err
			}
			return nil
		}
	}
	return fmt.Errorf("sim: no fault with id %q", id)
}

// ClearFaults removes every fault. Should saving fail, the faults are still
// gone from memory and the change reaches Storage with the next saved call.
func (w *World) ClearFaults() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.st.Faults = nil
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
		if service == svcEC2 {
			code = "RequestLimitExceeded"
		}
		return &smithy.GenericAPIError{Code: code, Message: "Rate exceeded", Fault: smithy.FaultClient}
	}
	return nil
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
	for i, f := range t.st.Faults {
		if f.Kind != FaultCapacity || !f.inRegion(t.region) || (f.Zone != zone.Name && f.Zone != zone.ID) ||
			(f.InstanceType != "" && f.InstanceType != typ) {
			continue
		}
		t.st.fire(i)
		return true
	}
	return false
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
