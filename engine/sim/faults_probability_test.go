package sim

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/errs"
)

func TestParseFaultProbability(t *testing.T) {
	const outOfRange = "probability is the share of the matching calls the fault fails: above 0 and at most 1"
	cases := []struct {
		spec    string
		want    Fault
		wantErr string
	}{
		{"throttle:service=kubernetes,probability=0.1", Fault{Kind: FaultThrottle, Service: "kubernetes", Probability: 0.1}, ""},
		{"error:service=s3,code=ServiceUnavailable,Probability=1", Fault{Kind: FaultError, Service: "s3", Code: "ServiceUnavailable", Probability: 1}, ""},
		{"throttle:service=eks,probability=0.5,count=3", Fault{Kind: FaultThrottle, Service: "eks", Probability: 0.5, Count: 3}, ""},
		{"throttle:service=eks,probability=0", Fault{}, outOfRange},
		{"throttle:service=eks,probability=1.5", Fault{}, outOfRange},
		{"throttle:service=eks,probability=-0.1", Fault{}, outOfRange},
		{"throttle:service=eks,probability=NaN", Fault{}, outOfRange},
		{"throttle:service=eks,probability=often", Fault{}, "bad probability"},
	}
	for _, c := range cases {
		got, err := ParseFault(c.spec)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("ParseFault(%q): %v", c.spec, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("ParseFault(%q) = %+v, %v; want an error saying %q", c.spec, got, err, c.wantErr)
		case c.wantErr == "" && got != c.want:
			t.Errorf("ParseFault(%q) = %+v, want %+v", c.spec, got, c.want)
		}
	}
}

func TestInjectFaultProbabilityValidates(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		fault   Fault
		wantErr string // empty: accepted
	}{
		{Fault{Kind: FaultThrottle, Service: "ec2", Probability: 0.1}, ""},
		{Fault{Kind: FaultError, Service: "kubernetes", Code: "ServiceUnavailable", Probability: 0.02}, ""},
		{Fault{Kind: FaultThrottle, Service: "kubernetes", Operation: "list pods"}, ""},
		{Fault{Kind: FaultThrottle, Service: "helm", Probability: 1}, ""},
		{Fault{Kind: FaultThrottle, Service: "ec2", Probability: 1.5}, "sim: probability is the share of the matching calls the fault fails: above 0 and at most 1, such as 0.1 for one call in ten; got 1.5 (leave it out to fail every call)"},
		{Fault{Kind: FaultError, Service: "ec2", Probability: -1}, "above 0 and at most 1"},
		{Fault{Kind: FaultError, Service: "ec2", Probability: math.Inf(1)}, "above 0 and at most 1"},
		{Fault{Kind: FaultCapacity, Zone: "us-west-2a", Probability: 0.5}, "sim: a capacity fault takes no probability; only throttle and error faults fail a share of the calls they select"},
		{Fault{Kind: FaultFail, Service: "kubernetes"}, `sim: service "kubernetes" takes only the throttle, error and smallpages faults`},
		{Fault{Kind: FaultIAMLag, Service: "kubernetes"}, `sim: service "kubernetes" takes only the throttle, error and smallpages faults`},
	}
	for _, c := range cases {
		got, err := f.w.InjectFault(c.fault)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("InjectFault(%+v): %v", c.fault, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("InjectFault(%+v) = %+v, %v; want an error saying %q", c.fault, got, err, c.wantErr)
		case c.wantErr == "" && got.Probability != c.fault.Probability:
			t.Errorf("InjectFault(%+v) stored probability %v", c.fault, got.Probability)
		}
	}
}

// throttledCalls makes n STS calls to a memory world of seed with a
// throttle fault of probability p and count, and returns which failed.
func throttledCalls(t *testing.T, seed uint64, p float64, count, n int) []bool {
	t.Helper()
	w := ok(New(Options{Seed: seed, Clock: newTestClock().Now})).must(t)
	ok(w.InjectFault(Fault{Kind: FaultThrottle, Service: "sts", Probability: p, Count: count})).must(t)
	prov := ok(w.Provider("us-west-2")).must(t)
	failed := make([]bool, n)
	for i := range failed {
		_, err := prov.STS.GetCallerIdentity(context.Background(), nil)
		if err != nil && errorCode(t, err) != "ThrottlingException" {
			t.Fatalf("call %d: %v", i, err)
		}
		failed[i] = err != nil
	}
	return failed
}

// TestProbabilityFaultFailsAShare: a throttle fault of probability 0.1
// fails about a tenth of 2,000 calls, the same ones for the same seed and
// others for another; with a count it fails that many calls and is gone.
func TestProbabilityFaultFailsAShare(t *testing.T) {
	const n = 2000
	share := func(failed []bool) float64 {
		k := 0
		for _, f := range failed {
			if f {
				k++
			}
		}
		return float64(k) / float64(len(failed))
	}
	first := throttledCalls(t, 7, 0.1, 0, n)
	if got := share(first); got < 0.08 || got > 0.12 {
		t.Errorf("probability 0.1 failed %.3f of %d calls, want about 0.1", got, n)
	}
	if again := throttledCalls(t, 7, 0.1, 0, n); !slices.Equal(first, again) {
		t.Error("the same seed failed other calls")
	}
	if other := throttledCalls(t, 8, 0.1, 0, n); slices.Equal(first, other) {
		t.Error("another seed failed the same calls")
	}
	if got := share(throttledCalls(t, 7, 1, 0, 50)); got != 1 {
		t.Errorf("probability 1 failed %.2f of the calls, want all", got)
	}

	counted := throttledCalls(t, 7, 0.5, 5, 100)
	if k := share(counted) * 100; k != 5 {
		t.Errorf("probability 0.5 with count 5 failed %v calls, want 5", k)
	}
	if k := share(counted[:10]) * 10; k == 10 || k == 0 {
		t.Errorf("probability 0.5 failed %v of the first 10 calls: %v", k, counted[:10])
	}
}

// TestProbabilityDrawsChangeNoIDs: the draws of a probability fault come
// from a stream of their own, so a world that drew them generates the
// ids a world that did not would.
func TestProbabilityDrawsChangeNoIDs(t *testing.T) {
	vpcAfterCalls := func(fault bool) string {
		w := ok(New(Options{Seed: 3, Clock: newTestClock().Now})).must(t)
		if fault {
			ok(w.InjectFault(Fault{Kind: FaultThrottle, Service: "sts", Probability: 0.3})).must(t)
		}
		prov := ok(w.Provider("us-west-2")).must(t)
		for range 100 {
			_, _ = prov.STS.GetCallerIdentity(context.Background(), nil)
		}
		out := ok(prov.EC2.CreateVpc(context.Background(), &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})).must(t)
		return *out.Vpc.VpcId
	}
	if with, without := vpcAfterCalls(true), vpcAfterCalls(false); with != without {
		t.Errorf("the VPC is %s after drawing, %s without", with, without)
	}
}

// TestKubeCallFaults: through the clients the engine uses, a throttle
// fault on service kubernetes answers 429 with a Retry-After, which the
// clients answer as client-go does, by sending the request again (up to
// 10 times): a short throttle passes unseen, a lasting one is a 429. An
// error fault answers 503 or 500 at once, as an API server does. All are
// retryable for the engine; every try is counted.
func TestKubeCallFaults(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	pods := kc.Core.CoreV1().Pods("default")
	ok(f.w.InjectFault(Fault{Kind: FaultThrottle, Service: "kubernetes", Operation: "list pods", Count: 3})).must(t)
	ok(pods.List(f.ctx, metav1.ListOptions{})).must(t)
	if got := f.w.Calls()["kubernetes"]["list pods"]; got != 4 {
		t.Errorf("a list throttled 3 times took %d tries, want 4", got)
	}

	lasting := ok(f.w.InjectFault(Fault{Kind: FaultThrottle, Service: "kubernetes", Operation: "list pods"})).must(t)
	_, err := pods.List(f.ctx, metav1.ListOptions{})
	if !apierrors.IsTooManyRequests(err) {
		t.Fatalf("list under a lasting throttle: %v, want 429 TooManyRequests", err)
	}
	if delay, ok := apierrors.SuggestsClientDelay(err); !ok || delay != 1 {
		t.Errorf("Retry-After %d, %v; want 1 s", delay, ok)
	}
	if !errs.IsRetryable(err) {
		t.Errorf("429 is not retryable: %v", err)
	}
	if got := f.w.Calls()["kubernetes"]["list pods"]; got != 4+11 {
		t.Errorf("a lasting throttle took %d tries, want 11", got-4)
	}
	if err := f.w.ClearFault(lasting.ID); err != nil {
		t.Fatal(err)
	}

	configMaps := kc.Core.CoreV1().ConfigMaps("default")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
	ok(f.w.InjectFault(ok(ParseFault("error:service=kubernetes,operation=create configmaps,code=ServiceUnavailable,count=1")).must(t))).must(t)
	_, err = configMaps.Create(f.ctx, cm, metav1.CreateOptions{})
	if !apierrors.IsServiceUnavailable(err) || !errs.IsRetryable(err) {
		t.Fatalf("create under an unavailable fault: %v, want a retryable 503", err)
	}
	ok(f.w.InjectFault(Fault{Kind: FaultError, Service: "kubernetes", Operation: "get hyperpodpytorchjobs", Count: 1})).must(t)
	_, err = kc.Dynamic.Resource(hyperPodJobs).Namespace("default").Get(f.ctx, "j", metav1.GetOptions{})
	if !apierrors.IsInternalError(err) || !errs.IsRetryable(err) {
		t.Fatalf("dynamic get under an error fault: %v, want a retryable 500", err)
	}
	if _, err := configMaps.Create(f.ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create once the fault fired: %v", err)
	}
	if got := len(ok(configMaps.List(f.ctx, metav1.ListOptions{})).must(t).Items); got != 1 {
		t.Errorf("%d config maps: the failed create made one", got)
	}
	if got := f.w.Calls()["kubernetes"]["create configmaps"]; got != 2 {
		t.Errorf("a failed create is a call too: counted %d, want 2", got)
	}
	if got := f.w.Faults(); len(got) != 0 {
		t.Errorf("spent faults left: %+v", got)
	}
}
