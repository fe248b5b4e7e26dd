package sim

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
)

func TestNewAppliesDefaults(t *testing.T) {
	w, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.DefaultRegion(); got != "us-east-1" {
		t.Errorf("DefaultRegion = %q, want us-east-1", got)
	}
	p, err := w.Provider("eu-west-1")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "sim" || p.Region != "eu-west-1" {
		t.Errorf("provider = %q/%q, want sim/eu-west-1", p.Name, p.Region)
	}
	id := ok(p.STS.GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})).must(t)
	if *id.Account != DefaultAccountID || *id.Arn != "arn:aws:iam::123456789012:role/InstantStartManagement" {
		t.Errorf("caller = %s %s", *id.Account, *id.Arn)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for name, opts := range map[string]Options{
		"negative speed":         {Speed: -1},
		"short account":          {AccountID: "42"},
		"unknown default region": {DefaultRegion: "mars-north-1"},
		"empty region":           {Regions: []Region{{Name: "x"}}},
	} {
		if _, err := New(opts); err == nil {
			t.Errorf("%s: New succeeded, want an error", name)
		}
	}
}

func TestProviderUnknownRegionListsKnownRegions(t *testing.T) {
	w, _ := New(Options{})
	_, err := w.Provider("mars-north-1")
	if err == nil {
		t.Fatal("want an error")
	}
	for _, r := range []string{"us-east-1", "us-east-2", "us-west-2", "eu-west-1", "ap-northeast-1"} {
		if !strings.Contains(err.Error(), r) {
			t.Errorf("error %q does not list %s", err, r)
		}
	}
}

func TestCallsCountEveryCallAndReset(t *testing.T) {
	f := newFixture(t)
	f.p.EC2.DescribeVpcs(f.ctx, nil)
	f.p.EC2.DescribeVpcs(f.ctx, nil)
	f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("missing")}) // failed calls count too
	f.p.STS.GetCallerIdentity(f.ctx, nil)
	want := map[string]map[string]int{
		"ec2": {"DescribeVpcs": 2},
		"eks": {"DescribeCluster": 1},
		"sts": {"GetCallerIdentity": 1},
	}
	if got := f.w.Calls(); !reflect.DeepEqual(got, want) {
		t.Errorf("Calls = %v, want %v", got, want)
	}
	f.w.Calls()["ec2"]["DescribeVpcs"] = 99 // a copy: no effect
	if got := f.w.Calls()["ec2"]["DescribeVpcs"]; got != 2 {
		t.Errorf("Calls returned the live map: count is %d", got)
	}
	f.w.ResetCalls()
	if got := f.w.Calls(); len(got) != 0 {
		t.Errorf("after ResetCalls, Calls = %v", got)
	}
}

func TestEveryCallIsSavedBeforeItReturns(t *testing.T) {
	f := newFixture(t)
	before := f.store.saves
	f.p.EC2.DescribeVpcs(f.ctx, nil)
	if f.store.saves != before+1 {
		t.Fatalf("saves = %d, want %d", f.store.saves, before+1)
	}
	restarted := f.world()
	if got := restarted.Calls()["ec2"]["DescribeVpcs"]; got != 1 {
		t.Errorf("restarted world counted %d DescribeVpcs, want 1", got)
	}
}

func TestPersistenceRoundTrip(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	roleArn := f.role("eks")
	ok(f.p.EKS.CreateCluster(f.ctx, &eks.CreateClusterInput{
		Name: aws.String("c1"), RoleArn: aws.String(roleArn), ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: n.subnets},
	})).must(t)
	fault := ok(f.w.InjectFault(Fault{Kind: FaultThrottle, Service: "iam", Count: 2})).must(t)
	calls, faults := f.w.Calls(), f.w.Faults()

	// A second world on the same storage is the process after kill -9.
	w2 := f.world()
	if got := w2.Calls(); !reflect.DeepEqual(got, calls) {
		t.Errorf("restored calls = %v, want %v", got, calls)
	}
	if got := w2.Faults(); !reflect.DeepEqual(got, faults) || got[0].ID != fault.ID {
		t.Errorf("restored faults = %v, want %v", got, faults)
	}
	vpcs := ok(f.p.EC2.DescribeVpcs(f.ctx, &ec2.DescribeVpcsInput{VpcIds: []string{n.vpc}})).must(t)
	if len(vpcs.Vpcs) != 1 {
		t.Fatalf("restored world has %d VPCs", len(vpcs.Vpcs))
	}
	c := ok(f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("c1")})).must(t).Cluster
	if c.Status != ekstypes.ClusterStatusCreating {
		t.Errorf("restored cluster is %s, want CREATING", c.Status)
	}
	f.clock.Advance(eksActiveAfter)
	c = ok(f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("c1")})).must(t).Cluster
	if c.Status != ekstypes.ClusterStatusActive {
		t.Errorf("restored cluster is %s after its creation time, want ACTIVE", c.Status)
	}
	// New ids continue the sequence instead of repeating it.
	v2 := ok(f.p.EC2.CreateVpc(f.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.1.0.0/16")})).must(t).Vpc
	if *v2.VpcId == n.vpc {
		t.Errorf("restored world reused id %s", n.vpc)
	}
}

func TestFailedSaveRollsBack(t *testing.T) {
	f := newFixture(t)
	f.store.fail = errors.New("disk full")
	_, err := f.p.EC2.CreateVpc(f.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("CreateVpc with a failing store: err = %v", err)
	}
	var oe *smithy.OperationError
	if !errors.As(err, &oe) || oe.OperationName != "CreateVpc" {
		t.Errorf("error is not an operation error of CreateVpc: %v", err)
	}
	f.store.fail = nil
	if vpcs := ok(f.p.EC2.DescribeVpcs(f.ctx, nil)).must(t).Vpcs; len(vpcs) != 0 {
		t.Errorf("a VPC the store never saved is visible: %v", vpcs)
	}
	if got := f.w.Calls()["ec2"]["CreateVpc"]; got != 0 {
		t.Errorf("the unsaved call was counted %d times", got)
	}
}

func TestCancelledContextIsNotACall(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(f.ctx)
	cancel()
	if _, err := f.p.EC2.DescribeVpcs(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if got := f.w.Calls(); len(got) != 0 {
		t.Errorf("a cancelled call was counted: %v", got)
	}
}

func TestFileStorageRoundTrip(t *testing.T) {
	s := FileStorage{Path: t.TempDir() + "/world.json"}
	if data, err := s.LoadWorld(); data != nil || err != nil {
		t.Fatalf("empty storage: %q, %v", data, err)
	}
	w := ok(New(Options{Storage: s})).must(t)
	p := ok(w.Provider("us-east-1")).must(t)
	ok(p.EC2.CreateVpc(context.Background(), &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})).must(t)
	w2 := ok(New(Options{Storage: s})).must(t)
	p2 := ok(w2.Provider("us-east-1")).must(t)
	if vpcs := ok(p2.EC2.DescribeVpcs(context.Background(), nil)).must(t).Vpcs; len(vpcs) != 1 {
		t.Errorf("reloaded world has %d VPCs, want 1", len(vpcs))
	}
}

func TestConcurrentCallsAreSerialised(t *testing.T) {
	f := newFixture(t)
	const workers, each = 8, 10
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < each; j++ {
				cidr := fmt.Sprintf("10.%d.0.0/16", i*each+j)
				if _, err := f.p.EC2.CreateVpc(f.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String(cidr)}); err != nil {
					t.Error(err)
				}
				f.p.EC2.DescribeVpcs(f.ctx, nil)
			}
		}(i)
	}
	wg.Wait()
	if vpcs := ok(f.p.EC2.DescribeVpcs(f.ctx, nil)).must(t).Vpcs; len(vpcs) != workers*each {
		t.Errorf("%d VPCs, want %d", len(vpcs), workers*each)
	}
	if got := f.w.Calls()["ec2"]; got["CreateVpc"] != workers*each || got["DescribeVpcs"] != workers*each+1 {
		t.Errorf("counters = %v", got)
	}
}
