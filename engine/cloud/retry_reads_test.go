package cloud_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
)

// TestRetryReadsRetriesEveryReadAndNoChange calls every method of every
// AWS port through RetryReads while the simulator throttles every call,
// and counts what reached the simulator: each read as many times as the
// retry allows, each call that changes something once.
func TestRetryReadsRetriesEveryReadAndNoChange(t *testing.T) {
	world, err := sim.New(sim.Options{DefaultRegion: "us-west-2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range []string{"sagemaker", "eks", "ec2", "iam", "sts", "servicequotas", "s3", "fsx", "helm"} {
		if _, err := world.InjectFault(sim.Fault{Kind: sim.FaultThrottle, Service: svc}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := world.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	const attempts = 3
	rp := cloud.RetryReads(p, ops.ReadRetry{Attempts: attempts}.Do)
	ports := []struct {
		service string
		port    any
		iface   reflect.Type
	}{
		{"sagemaker", rp.SageMaker, reflect.TypeFor[cloud.SageMaker]()},
		{"eks", rp.EKS, reflect.TypeFor[cloud.EKS]()},
		{"ec2", rp.EC2, reflect.TypeFor[cloud.EC2]()},
		{"iam", rp.IAM, reflect.TypeFor[cloud.IAM]()},
		{"sts", rp.STS, reflect.TypeFor[cloud.STS]()},
		{"servicequotas", rp.ServiceQuotas, reflect.TypeFor[cloud.ServiceQuotas]()},
		{"s3", rp.S3, reflect.TypeFor[cloud.S3]()},
		{"fsx", rp.FSx, reflect.TypeFor[cloud.FSx]()},
	}
	ctx := reflect.ValueOf(context.Background())
	for _, pt := range ports {
		for i := range pt.iface.NumMethod() {
			m := pt.iface.Method(i)
			in := reflect.New(m.Type.In(1).Elem())
			res := reflect.ValueOf(pt.port).MethodByName(m.Name).Call([]reflect.Value{ctx, in})
			if res[1].IsNil() {
				t.Errorf("%s %s succeeded while the service throttles every call", pt.service, m.Name)
			}
			want := 1
			if isRead(m.Name) {
				want = attempts
			}
			if got := world.Calls()[pt.service][m.Name]; got != want {
				t.Errorf("%s %s reached the service %d times, want %d", pt.service, m.Name, got, want)
			}
		}
	}
	if _, err := rp.Helm.Release(context.Background(), "eks", "ns", "rel"); err == nil {
		t.Error("helm Release succeeded while Helm throttles every call")
	}
	if _, err := rp.Helm.Install(context.Background(), "eks", cloud.HelmChart{Release: "rel", Namespace: "ns", Chart: "kuberay-operator"}); err == nil {
		t.Error("helm Install succeeded while Helm throttles every call")
	}
	if calls := world.Calls()["helm"]; calls["GetRelease"] != attempts || calls["Install"] != 1 {
		t.Errorf("helm calls %v, want GetRelease %d times and Install once", calls, attempts)
	}
}

func isRead(method string) bool {
	for _, verb := range []string{"Describe", "List", "Get", "Head"} {
		if strings.HasPrefix(method, verb) {
			return true
		}
	}
	return false
}

func TestRetryReadsKeepsMissingPortsNil(t *testing.T) {
	p := cloud.RetryReads(&cloud.Provider{Name: "partial", Region: "us-west-2"}, ops.ReadRetry{}.Do)
	if p.SageMaker != nil || p.EKS != nil || p.EC2 != nil || p.IAM != nil || p.STS != nil || p.ServiceQuotas != nil || p.Helm != nil {
		t.Fatalf("a port the provider lacks became a wrapper of nil: %+v", p)
	}
}

// The real AWS clients retry throttling themselves: their reads are not
// retried again on top; Helm's are.
func TestRetryReadsLeavesRetryingSDKClientsAlone(t *testing.T) {
	world, err := sim.New(sim.Options{DefaultRegion: "us-west-2"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := world.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	sdk := *p
	sdk.SDKRetries = true
	rp := cloud.RetryReads(&sdk, ops.ReadRetry{}.Do)
	if rp.SageMaker != p.SageMaker || rp.EKS != p.EKS || rp.EC2 != p.EC2 || rp.IAM != p.IAM || rp.STS != p.STS || rp.ServiceQuotas != p.ServiceQuotas {
		t.Fatal("the ports of a provider whose SDK retries were wrapped again")
	}
	if rp.Helm == p.Helm {
		t.Fatal("Helm's reads, which no SDK retries, were left unwrapped")
	}
}
