package sim

import (
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/smithy-go"
)

func TestCreateEKSClusterValidation(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b", "us-west-2a")
	other := f.network("10.1.0.0/16", "us-west-2c")
	role := f.role("eks")
	cases := []struct {
		name    string
		edit    func(in *eks.CreateClusterInput)
		wantErr any
	}{
		{"valid", func(*eks.CreateClusterInput) {}, nil},
		{"one subnet", func(in *eks.CreateClusterInput) { in.ResourcesVpcConfig.SubnetIds = n.subnets[:1] }, new(*ekstypes.InvalidParameterException)},
		{"two subnets in one zone", func(in *eks.CreateClusterInput) {
			in.ResourcesVpcConfig.SubnetIds = []string{n.subnets[0], n.subnets[2]}
		}, new(*ekstypes.InvalidParameterException)},
		{"subnets of two VPCs", func(in *eks.CreateClusterInput) {
			in.ResourcesVpcConfig.SubnetIds = []string{n.subnets[0], other.subnets[0]}
		}, new(*ekstypes.InvalidParameterException)},
		{"unknown subnet", func(in *eks.CreateClusterInput) {
			in.ResourcesVpcConfig.SubnetIds = []string{n.subnets[0], "subnet-00000000000000000"}
		}, new(*ekstypes.InvalidParameterException)},
		{"unknown role", func(in *eks.CreateClusterInput) { in.RoleArn = aws.String("arn:aws:iam::123456789012:role/nope") }, new(*ekstypes.InvalidParameterException)},
		{"old version", func(in *eks.CreateClusterInput) { in.Version = aws.String("1.27") }, new(*ekstypes.InvalidParameterException)},
		{"future version", func(in *eks.CreateClusterInput) { in.Version = aws.String("1.35") }, new(*ekstypes.InvalidParameterException)},
		{"bad name", func(in *eks.CreateClusterInput) { in.Name = aws.String("-x") }, new(*ekstypes.InvalidParameterException)},
		{"no role", func(in *eks.CreateClusterInput) { in.RoleArn = nil }, new(*smithy.InvalidParamsError)},
		{"security group of another VPC", func(in *eks.CreateClusterInput) {
			in.ResourcesVpcConfig.SecurityGroupIds = []string{other.sg}
		}, new(*ekstypes.InvalidParameterException)},
	}
	for i, c := range cases {
		in := &eks.CreateClusterInput{
			Name: aws.String("c" + string(rune('a'+i))), RoleArn: aws.String(role),
			ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: n.subnets[:2]},
		}
		c.edit(in)
		_, err := f.p.EKS.CreateCluster(f.ctx, in)
		switch {
		case c.wantErr == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr != nil && !errors.As(err, c.wantErr):
			t.Errorf("%s: err = %v, want %T", c.name, err, c.wantErr)
		}
	}
}

func TestEKSClusterLifecycle(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	role := f.role("eks")
	created := ok(f.p.EKS.CreateCluster(f.ctx, &eks.CreateClusterInput{
		Name: aws.String("hp"), RoleArn: aws.String(role), ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: n.subnets},
	})).must(t).Cluster
	if created.Status != ekstypes.ClusterStatusCreating || *created.Version != "1.33" ||
		created.AccessConfig.AuthenticationMode != ekstypes.AuthenticationModeConfigMap {
		t.Errorf("new cluster = %s %s %s", created.Status, *created.Version, created.AccessConfig.AuthenticationMode)
	}
	if created.Endpoint != nil {
		t.Errorf("a CREATING cluster has an endpoint")
	}
	if !regexp.MustCompile(`^https://oidc\.eks\.us-west-2\.amazonaws\.com/id/[0-9A-F]{32}$`).MatchString(*created.Identity.Oidc.Issuer) {
		t.Errorf("issuer = %s", *created.Identity.Oidc.Issuer)
	}
	if *created.ResourcesVpcConfig.VpcId != n.vpc || created.ResourcesVpcConfig.ClusterSecurityGroupId == nil {
		t.Errorf("vpc config = %+v", created.ResourcesVpcConfig)
	}
	_, err := f.p.EKS.DeleteCluster(f.ctx, &eks.DeleteClusterInput{Name: aws.String("hp")})
	var inUse *ekstypes.ResourceInUseException
	if !errors.As(err, &inUse) {
		t.Errorf("delete while CREATING: %v", err)
	}

	// At the default speed of 25, eight to twelve minutes take 19.2 to
	// 28.8 seconds.
	status := func() ekstypes.ClusterStatus {
		return ok(f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("hp")})).must(t).Cluster.Status
	}
	f.clock.Advance(19200*time.Millisecond - time.Millisecond)
	if got := status(); got != ekstypes.ClusterStatusCreating {
		t.Fatalf("just before 19.2s: %s", got)
	}
	f.clock.Advance(9600 * time.Millisecond)
	c := ok(f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("hp")})).must(t).Cluster
	if c.Status != ekstypes.ClusterStatusActive || !regexp.MustCompile(`^https://[0-9A-F]{32}\.gr7\.us-west-2\.eks\.amazonaws\.com$`).MatchString(aws.ToString(c.Endpoint)) ||
		aws.ToString(c.CertificateAuthority.Data) == "" {
		t.Fatalf("at 24s: %s endpoint %s", c.Status, aws.ToString(c.Endpoint))
	}
	if names := ok(f.p.EKS.ListClusters(f.ctx, nil)).must(t).Clusters; len(names) != 1 || names[0] != "hp" {
		t.Errorf("ListClusters = %v", names)
	}
	// The cluster security group keeps the VPC alive until the cluster is gone.
	clusterSG := *c.ResourcesVpcConfig.ClusterSecurityGroupId
	_, err = f.p.EC2.DeleteSecurityGroup(f.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &clusterSG})
	if code := errorCode(t, err); code != "DependencyViolation" {
		t.Errorf("delete of the cluster security group: code %q", code)
	}

	_, err = f.p.EC2.DeleteSubnet(f.ctx, &ec2.DeleteSubnetInput{SubnetId: &n.subnets[0]})
	if code := errorCode(t, err); code != "DependencyViolation" {
		t.Errorf("delete of a subnet the control plane uses: code %q", code)
	}

	deleting := ok(f.p.EKS.DeleteCluster(f.ctx, &eks.DeleteClusterInput{Name: aws.String("hp")})).must(t).Cluster
	if deleting.Status != ekstypes.ClusterStatusDeleting {
		t.Errorf("after DeleteCluster: %s", deleting.Status)
	}
	f.clock.Advance(scaled(eksDeleteTime))
	var notFound *ekstypes.ResourceNotFoundException
	if _, err := f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("hp")}); !errors.As(err, &notFound) {
		t.Errorf("describe after deletion: %v", err)
	}
	sgs := ok(f.p.EC2.DescribeSecurityGroups(f.ctx, &ec2.DescribeSecurityGroupsInput{
		Filters: []ec2types.Filter{{Name: aws.String("tag:aws:eks:cluster-name"), Values: []string{"hp"}}},
	})).must(t).SecurityGroups
	if len(sgs) != 0 {
		t.Errorf("the cluster security group outlived the cluster")
	}
}

func TestEKSClientRequestTokenIsIdempotent(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	in := &eks.CreateClusterInput{
		Name: aws.String("hp"), RoleArn: aws.String(f.role("eks")), ClientRequestToken: aws.String("op-1/eks/1"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: n.subnets},
	}
	first := ok(f.p.EKS.CreateCluster(f.ctx, in)).must(t).Cluster
	f.clock.Advance(time.Second)
	again := ok(f.p.EKS.CreateCluster(f.ctx, in)).must(t).Cluster
	if *again.Arn != *first.Arn || !again.CreatedAt.Equal(*first.CreatedAt) {
		t.Errorf("the replay made a new cluster: %v vs %v", again.CreatedAt, first.CreatedAt)
	}
	in.ClientRequestToken = aws.String("op-2/eks/1")
	var inUse *ekstypes.ResourceInUseException
	if _, err := f.p.EKS.CreateCluster(f.ctx, in); !errors.As(err, &inUse) {
		t.Errorf("another token: %v", err)
	}
	in.ClientRequestToken = nil
	if _, err := f.p.EKS.CreateCluster(f.ctx, in); !errors.As(err, &inUse) {
		t.Errorf("no token: %v", err)
	}
	if got := f.w.Calls()["eks"]["CreateCluster"]; got != 4 {
		t.Errorf("CreateCluster counted %d times, want 4", got)
	}
}

func TestEKSSpeedScalesLatency(t *testing.T) {
	for _, speed := range []float64{1, 25, 600} {
		clock := newTestClock()
		w := ok(New(Options{Speed: speed, Clock: clock.Now})).must(t)
		f := &fixture{t: t, ctx: t.Context(), clock: clock, w: w, p: ok(w.Provider("us-west-2")).must(t)}
		n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
		ok(f.p.EKS.CreateCluster(f.ctx, &eks.CreateClusterInput{
			Name: aws.String("c"), RoleArn: aws.String(f.role("r")), ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: n.subnets},
		})).must(t)
		earliest, latest := time.Duration(float64(eksCreateMin)/speed), time.Duration(float64(eksCreateMax)/speed)
		clock.Advance(earliest - time.Millisecond)
		if s := ok(f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("c")})).must(t).Cluster.Status; s != ekstypes.ClusterStatusCreating {
			t.Errorf("speed %v: %s before %v", speed, s, earliest)
		}
		clock.Advance(latest - earliest + time.Millisecond)
		if s := ok(f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("c")})).must(t).Cluster.Status; s != ekstypes.ClusterStatusActive {
			t.Errorf("speed %v: %s at %v", speed, s, latest)
		}
	}
}

// eksCreationTime creates an EKS cluster in a world of seed, at speed 1,
// and returns how long it stayed CREATING, to the second, as DescribeCluster
// shows it.
func eksCreationTime(t *testing.T, seed uint64) time.Duration {
	t.Helper()
	clock := newTestClock()
	w := ok(New(Options{Speed: 1, Clock: clock.Now, Seed: seed})).must(t)
	f := &fixture{t: t, ctx: t.Context(), clock: clock, w: w, p: ok(w.Provider("us-west-2")).must(t)}
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	ok(f.p.EKS.CreateCluster(f.ctx, &eks.CreateClusterInput{
		Name: aws.String("c"), RoleArn: aws.String(f.role("r")), ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: n.subnets},
	})).must(t)
	for elapsed := time.Duration(0); elapsed <= eksCreateMax+time.Minute; elapsed += time.Second {
		if s := ok(f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("c")})).must(t).Cluster.Status; s == ekstypes.ClusterStatusActive {
			return elapsed
		}
		clock.Advance(time.Second)
	}
	t.Fatalf("seed %d: the cluster is not ACTIVE after %v", seed, eksCreateMax+time.Minute)
	return 0
}

func TestEKSCreationTimeIsDrawnFromTheSeed(t *testing.T) {
	seen := map[time.Duration]bool{}
	for seed := uint64(1); seed <= 6; seed++ {
		d := eksCreationTime(t, seed)
		if d < eksCreateMin || d > eksCreateMax {
			t.Errorf("seed %d: CREATING for %v, want %v to %v", seed, d, eksCreateMin, eksCreateMax)
		}
		if again := eksCreationTime(t, seed); again != d {
			t.Errorf("seed %d: CREATING for %v, then %v in a world with the same seed", seed, d, again)
		}
		seen[d] = true
	}
	if len(seen) < 2 {
		t.Errorf("six seeds drew one creation time %v; the time is not drawn", seen)
	}
}
