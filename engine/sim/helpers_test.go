package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/cloud"
)

// testClock is a clock tests advance by hand instead of sleeping.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// memStorage is a Storage in memory that can be told to fail.
type memStorage struct {
	mu    sync.Mutex
	data  []byte
	saves int
	fail  error
}

func (s *memStorage) LoadWorld() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data, nil
}

func (s *memStorage) SaveWorld(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.data = append([]byte(nil), b...)
	s.saves++
	return nil
}

// fixture is a world at speed 25 in us-west-2 with a test clock.
type fixture struct {
	t     *testing.T
	ctx   context.Context
	clock *testClock
	store *memStorage
	w     *World
	p     *cloud.Provider
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background(), clock: newTestClock(), store: &memStorage{}}
	f.w = f.world()
	return f
}

// world opens a World on the fixture's storage and clock, as a restarted
// process would.
func (f *fixture) world() *World {
	f.t.Helper()
	w, err := New(Options{Storage: f.store, Clock: f.clock.Now})
	if err != nil {
		f.t.Fatalf("New: %v", err)
	}
	p, err := w.Provider("us-west-2")
	if err != nil {
		f.t.Fatalf("Provider: %v", err)
	}
	f.p = p
	return w
}

// scaled is how long a real duration d takes at the default speed.
func scaled(d time.Duration) time.Duration { return d / DefaultSpeed }

// eksActiveAfter is when, at the default speed, every EKS cluster is
// ACTIVE however long its creation drew: a whole number of seconds, as
// Kubernetes timestamps keep.
var eksActiveAfter = (scaled(eksCreateMax) + time.Second - 1).Truncate(time.Second)

// errorCode returns the API error code of err, or "" for nil.
func errorCode(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not a smithy.APIError", err, err)
	}
	return ae.ErrorCode()
}

// result holds what a call returned, for ok(call(...)).must(t).
type result[T any] struct {
	v   T
	err error
}

func ok[T any](v T, err error) result[T] { return result[T]{v, err} }

// must fails the test when the call failed, and returns its output.
func (r result[T]) must(t *testing.T) T {
	t.Helper()
	if r.err != nil {
		t.Fatalf("unexpected error: %v", r.err)
	}
	return r.v
}

// network is a VPC with one subnet per listed zone and a security group.
type network struct {
	vpc     string
	subnets []string
	sg      string
}

func (f *fixture) network(cidr string, zones ...string) network {
	f.t.Helper()
	ec := f.p.EC2
	vpc := ok(ec.CreateVpc(f.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String(cidr)})).must(f.t).Vpc
	n := network{vpc: *vpc.VpcId}
	base := vpc.CidrBlock
	for i, z := range zones {
		var a, b, c, d, bits int
		fmt.Sscanf(*base, "%d.%d.%d.%d/%d", &a, &b, &c, &d, &bits)
		sub := fmt.Sprintf("%d.%d.%d.0/20", a, b, 16*i) // a /20 each, as HyperPod's nodes need on EKS
		s := ok(ec.CreateSubnet(f.ctx, &ec2.CreateSubnetInput{VpcId: vpc.VpcId, CidrBlock: aws.String(sub), AvailabilityZone: aws.String(z)})).must(f.t).Subnet
		n.subnets = append(n.subnets, *s.SubnetId)
	}
	n.sg = *ok(ec.CreateSecurityGroup(f.ctx, &ec2.CreateSecurityGroupInput{
		GroupName: aws.String("nodes"), Description: aws.String("nodes"), VpcId: vpc.VpcId,
	})).must(f.t).GroupId
	return n
}

const trustPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"eks.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

// role creates an IAM role and returns its ARN.
func (f *fixture) role(name string) string {
	f.t.Helper()
	out := ok(f.p.IAM.CreateRole(f.ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trustPolicy)})).must(f.t)
	return *out.Role.Arn
}

// eksCluster creates an EKS cluster with API authentication on n and waits
// (on the test clock) until it is ACTIVE.
func (f *fixture) eksCluster(name string, n network) *ekstypes.Cluster {
	f.t.Helper()
	roleName := name + "-eks-role"
	if _, err := f.p.IAM.GetRole(f.ctx, &iam.GetRoleInput{RoleName: aws.String(roleName)}); err != nil {
		f.role(roleName)
	}
	ok(f.p.EKS.CreateCluster(f.ctx, &eks.CreateClusterInput{
		Name: aws.String(name), RoleArn: aws.String("arn:aws:iam::123456789012:role/" + roleName),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: n.subnets},
		AccessConfig:       &ekstypes.CreateAccessConfigRequest{AuthenticationMode: ekstypes.AuthenticationModeApi},
	})).must(f.t)
	f.clock.Advance(eksActiveAfter)
	c := ok(f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String(name)})).must(f.t).Cluster
	if c.Status != ekstypes.ClusterStatusActive {
		f.t.Fatalf("EKS cluster %s is %s, want ACTIVE", name, c.Status)
	}
	return c
}

// tagSpec is a TagSpecification with one tag.
func tagSpec(rt ec2types.ResourceType, key, value string) []ec2types.TagSpecification {
	return []ec2types.TagSpecification{{ResourceType: rt, Tags: []ec2types.Tag{{Key: aws.String(key), Value: aws.String(value)}}}}
}

// errorsAs is errors.As, named so tests read as assertions.
func errorsAs(err error, target any) bool { return errors.As(err, target) }

// timeFraction is the part x of d.
func timeFraction(d time.Duration, x float64) time.Duration { return time.Duration(float64(d) * x) }
