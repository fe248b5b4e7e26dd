//go:build integration

package kumotest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cloud/awscloud"
	"github.com/instantstart/instantstart/engine/cloud/awscloud/awsenv"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// These tests run the cluster phases kumo emulates (IAM roles with AWS's
// managed policies, the VPC, subnets, route table, internet gateway and
// security group, the EKS control plane, the OIDC provider) and their
// deletes through the real --provider aws SDK clients against kumo, and
// read the result back from kumo through the SDK. Where kumo lacks an
// operation a phase needs, that phase fails on it and the test says so;
// nothing answers in kumo's place.

const (
	region = "us-west-2"
	caller = "kumo-integration"
	// speed shortens the runner's backoffs and phase deadlines: kumo
	// answers at once and makes everything ACTIVE when created.
	speed = 100
	// The tag keys the engine puts on what it makes (engine/cluster): part
	// of what it leaves in an account, so spelled out here.
	tagClusterID = "instantstart:cluster-id"
	tagRole      = "instantstart:role"
)

// The phases of createCluster and deleteCluster, as engine/cluster names them.
const (
	phaseIAMRoles        = "iam-roles"
	phaseVPC             = "vpc"
	phaseSubnets         = "subnets"
	phaseNAT             = "nat-gateway"
	phaseEKS             = "eks-cluster"
	phaseOIDC            = "oidc-provider"
	phaseAccess          = "cluster-access"
	phaseAddons          = "base-addons"
	phaseSystemNodes     = "system-nodes"
	phaseDependencies    = "cluster-dependencies"
	phaseComputeSubnet   = "compute-subnet"
	phaseReplaceHyperPod = "replace-failed-hyperpod"
	phaseHyperPod        = "hyperpod-cluster"
	phaseNetwork         = "network"
	phaseElasticIP       = "elastic-ip"
)

// gap is a phase kumo cannot take through: what it lacks, and a piece of
// the phase's error that shows it failed on that and nothing else.
type gap struct {
	lacks, errorHas string
}

// createGaps are the createCluster phases that fail on kumo v0.33.1.
// base-addons (which kumo lacks too: its unknown EKS paths fall through
// to S3) is not reached: it waits for the system node group, which waits
// for the NAT gateway.
var createGaps = map[string]gap{
	phaseNAT:             {"EC2 DescribeAddresses (Elastic IPs)", "DescribeAddresses"},
	phaseReplaceHyperPod: {"SageMaker (HyperPod clusters)", "SageMaker"},
	phaseAccess:          {"EKS access entries (its unknown EKS paths fall through to S3)", "ListAssociatedAccessPolicies"},
}

// deleteGaps are the deleteCluster phases that fail on kumo v0.33.1.
var deleteGaps = map[string]gap{
	phaseElasticIP: {"EC2 DescribeAddresses (Elastic IPs)", "DescribeAddresses"},
	phaseNetwork:   {"EC2 DisassociateRouteTable and DeleteRouteTable", "DisassociateRouteTable"},
}

// kumoWorld is kumo running, with the --provider aws clients pointed at it.
type kumoWorld struct {
	url      string
	regions  *awscloud.Regions
	p        *cloud.Provider
	policies []string // the AWS-managed policies seeded
}

// startKumo starts the kumo binary named by KUMO_BIN with the AWS-managed
// policies the engine attaches seeded, and builds the AWS provider the way
// --provider aws does: the standard credential chain, AWS_REGION and
// AWS_ENDPOINT_URL.
func startKumo(t *testing.T) *kumoWorld {
	t.Helper()
	bin, err := Bin()
	if err != nil {
		t.Fatal(err)
	}
	policies, err := ManagedPolicies("..")
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if err := SeedManagedPolicies(data, policies); err != nil {
		t.Fatal(err)
	}
	srv, err := Start(bin, data, testLog{t}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)

	awsenv.Isolate(t)
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	t.Setenv("AWS_REGION", region)
	regions, err := awscloud.New(context.Background(), awscloud.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := regions.Provider(region)
	if err != nil {
		t.Fatal(err)
	}
	return &kumoWorld{url: srv.URL, regions: regions, p: p, policies: policies}
}

// testLog writes kumo's log lines into the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Logf("kumo: %s", strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

func tagsOf(clusterID, role string) []ec2types.Tag {
	return []ec2types.Tag{
		{Key: aws.String("Name"), Value: aws.String("another-cluster-" + role)},
		{Key: aws.String(tagClusterID), Value: aws.String(clusterID)},
		{Key: aws.String(tagRole), Value: aws.String(role)},
	}
}

func tagSpec(rt ec2types.ResourceType, clusterID, role string) []ec2types.TagSpecification {
	return []ec2types.TagSpecification{{ResourceType: rt, Tags: tagsOf(clusterID, role)}}
}

func tag(tt []ec2types.Tag, key string) string {
	for _, t := range tt {
		if aws.ToString(t.Key) == key {
			return aws.ToString(t.Value)
		}
	}
	return ""
}

// foreignNetwork is another cluster's network, made directly in kumo and
// tagged with that cluster's id and the same roles the engine gives its
// own: since kumo ignores tag filters, every lookup of the engine's
// network gets these back too, and only the engine's own checks of the
// tags keep it off them.
type foreignNetwork struct {
	clusterID                        string
	vpc, igw, subnet, sg, routeTable string
}

func makeForeignNetwork(t *testing.T, ctx context.Context, p *cloud.Provider) foreignNetwork {
	t.Helper()
	f := foreignNetwork{clusterID: "01FOREIGNCLUSTER0000000000"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("make the foreign network: %v", err)
		}
	}
	vpc, err := p.EC2.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16"), TagSpecifications: tagSpec(ec2types.ResourceTypeVpc, f.clusterID, "vpc")})
	must(err)
	f.vpc = aws.ToString(vpc.Vpc.VpcId)
	igw, err := p.EC2.CreateInternetGateway(ctx, &ec2.CreateInternetGatewayInput{TagSpecifications: tagSpec(ec2types.ResourceTypeInternetGateway, f.clusterID, "igw")})
	must(err)
	f.igw = aws.ToString(igw.InternetGateway.InternetGatewayId)
	_, err = p.EC2.AttachInternetGateway(ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: aws.String(f.igw), VpcId: aws.String(f.vpc)})
	must(err)
	sub, err := p.EC2.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: aws.String(f.vpc), CidrBlock: aws.String("10.0.0.0/24"), AvailabilityZone: aws.String(region + "a"),
		TagSpecifications: tagSpec(ec2types.ResourceTypeSubnet, f.clusterID, "public")})
	must(err)
	f.subnet = aws.ToString(sub.Subnet.SubnetId)
	sg, err := p.EC2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String("another-cluster-nodes"), VpcId: aws.String(f.vpc),
		Description: aws.String("another cluster's nodes"), TagSpecifications: tagSpec(ec2types.ResourceTypeSecurityGroup, f.clusterID, "nodes")})
	must(err)
	f.sg = aws.ToString(sg.GroupId)
	rt, err := p.EC2.CreateRouteTable(ctx, &ec2.CreateRouteTableInput{VpcId: aws.String(f.vpc), TagSpecifications: tagSpec(ec2types.ResourceTypeRouteTable, f.clusterID, "public")})
	must(err)
	f.routeTable = aws.ToString(rt.RouteTable.RouteTableId)
	_, err = p.EC2.CreateRoute(ctx, &ec2.CreateRouteInput{RouteTableId: aws.String(f.routeTable), DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String(f.igw)})
	must(err)
	_, err = p.EC2.AssociateRouteTable(ctx, &ec2.AssociateRouteTableInput{RouteTableId: aws.String(f.routeTable), SubnetId: aws.String(f.subnet)})
	must(err)
	return f
}

// checkForeignNetworkIntact fails the test unless every piece of f is
// still in kumo, with its tags and attachments as made.
func checkForeignNetworkIntact(t *testing.T, ctx context.Context, p *cloud.Provider, f foreignNetwork) {
	t.Helper()
	n := readNetwork(t, ctx, p)
	v, ok := n.vpcs[f.vpc]
	if !ok || tag(v.Tags, tagClusterID) != f.clusterID {
		t.Errorf("the foreign VPC %s is gone or retagged: %+v", f.vpc, v)
	}
	g, ok := n.igws[f.igw]
	if !ok || tag(g.Tags, tagClusterID) != f.clusterID || len(g.Attachments) != 1 || aws.ToString(g.Attachments[0].VpcId) != f.vpc {
		t.Errorf("the foreign internet gateway %s is gone, retagged or detached: %+v", f.igw, g)
	}
	if s, ok := n.subnets[f.subnet]; !ok || tag(s.Tags, tagClusterID) != f.clusterID || aws.ToString(s.VpcId) != f.vpc {
		t.Errorf("the foreign subnet %s is gone or changed: %+v", f.subnet, s)
	}
	if g, ok := n.sgs[f.sg]; !ok || tag(g.Tags, tagClusterID) != f.clusterID || len(g.IpPermissions) != 0 {
		t.Errorf("the foreign security group %s is gone, retagged or given rules: %+v", f.sg, g)
	}
	// Associated with its own subnet only: the cluster's public subnets
	// went to the cluster's own route table.
	rt, ok := n.routeTables[f.routeTable]
	if !ok || tag(rt.Tags, tagClusterID) != f.clusterID || len(rt.Associations) != 1 || !associatedWith(rt, f.subnet) {
		t.Errorf("the foreign route table %s is gone, retagged, or associated with other than %s: %+v", f.routeTable, f.subnet, rt)
	}
}

func associatedWith(rt ec2types.RouteTable, subnet string) bool {
	return slices.ContainsFunc(rt.Associations, func(a ec2types.RouteTableAssociation) bool { return aws.ToString(a.SubnetId) == subnet })
}

// network is everything EC2 in kumo holds, by id, read without filters.
type network struct {
	vpcs        map[string]ec2types.Vpc
	subnets     map[string]ec2types.Subnet
	igws        map[string]ec2types.InternetGateway
	sgs         map[string]ec2types.SecurityGroup
	routeTables map[string]ec2types.RouteTable
}

func readNetwork(t *testing.T, ctx context.Context, p *cloud.Provider) network {
	t.Helper()
	n := network{vpcs: map[string]ec2types.Vpc{}, subnets: map[string]ec2types.Subnet{}, igws: map[string]ec2types.InternetGateway{},
		sgs: map[string]ec2types.SecurityGroup{}, routeTables: map[string]ec2types.RouteTable{}}
	vpcs, err := p.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vpcs.Vpcs {
		n.vpcs[aws.ToString(v.VpcId)] = v
	}
	subnets, err := p.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range subnets.Subnets {
		n.subnets[aws.ToString(s.SubnetId)] = s
	}
	igws, err := p.EC2.DescribeInternetGateways(ctx, &ec2.DescribeInternetGatewaysInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range igws.InternetGateways {
		n.igws[aws.ToString(g.InternetGatewayId)] = g
	}
	sgs, err := p.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range sgs.SecurityGroups {
		n.sgs[aws.ToString(g.GroupId)] = g
	}
	rts, err := p.EC2.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range rts.RouteTables {
		n.routeTables[aws.ToString(rt.RouteTableId)] = rt
	}
	return n
}

// owned lists, sorted, the ids in n tagged as clusterID's.
func (n network) owned(clusterID string) []string {
	var ids []string
	add := func(id string, tt []ec2types.Tag) {
		if tag(tt, tagClusterID) == clusterID {
			ids = append(ids, id)
		}
	}
	for id, v := range n.vpcs {
		add(id, v.Tags)
	}
	for id, s := range n.subnets {
		add(id, s.Tags)
	}
	for id, g := range n.igws {
		add(id, g.Tags)
	}
	for id, g := range n.sgs {
		add(id, g.Tags)
	}
	for id, rt := range n.routeTables {
		add(id, rt.Tags)
	}
	slices.Sort(ids)
	return ids
}

// engine is the control plane's cluster service on the kumo provider.
type engine struct {
	runner *ops.Runner
	svc    *cluster.Service
}

func newEngine(t *testing.T, regions cloud.Regions) *engine {
	t.Helper()
	st, err := store.Open("", store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	runner := ops.NewRunner(st, ops.Options{Speed: speed})
	svc := cluster.New(st, runner, regions, cluster.Options{})
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		runner.Shutdown(context.Background())
		st.Close()
	})
	return &engine{runner: runner, svc: svc}
}

// waitEnd polls operation id until it ends.
func (e *engine) waitEnd(t *testing.T, id string) *ops.Operation {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		op, err := e.runner.Wait(context.Background(), id, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if op.Status.Terminal() {
			return op
		}
	}
	t.Fatalf("operation %s did not end within 2 minutes", id)
	return nil
}

// drive runs operation id as far as kumo lets it. A failed phase stops
// the runner from starting others (the phases already running finish),
// so a phase kumo cannot serve would also hold back the independent
// phases that come after it: the operation is retried, which runs the
// failed phases again and starts every phase whose dependencies are done,
// as long as a round takes more phases to their end.
func (e *engine) drive(t *testing.T, id string) *ops.Operation {
	t.Helper()
	ended := -1
	for {
		op := e.waitEnd(t, id)
		n := 0
		for _, p := range op.Phases {
			if p.Status == ops.PhaseSucceeded || p.Status == ops.PhaseSkipped {
				n++
			}
		}
		if op.Status != ops.Failed || n == ended {
			return op
		}
		ended = n
		if _, err := e.runner.Retry(id); err != nil {
			t.Fatalf("retry operation %s: %v", id, err)
		}
	}
}

// checkPhases fails the test unless every phase of op that kumo can serve
// ended (want: SUCCEEDED or SKIPPED), and every phase in gaps failed on
// what kumo lacks. The rest must still be pending behind a gap.
func checkPhases(t *testing.T, op *ops.Operation, want map[string]ops.PhaseStatus, gaps map[string]gap) {
	t.Helper()
	for _, p := range op.Phases {
		msg := p.Message
		if p.Error != nil {
			msg = p.Error.Message
		}
		if w, ok := want[p.Name]; ok {
			if p.Status != w {
				t.Errorf("%s phase %s is %s; want %s: %s", op.Kind, p.Name, p.Status, w, msg)
			}
			continue
		}
		if g, ok := gaps[p.Name]; ok {
			switch {
			case p.Status == ops.PhaseSucceeded || p.Status == ops.PhaseSkipped:
				t.Logf("%s phase %s %s on kumo: kumo now serves %s; move it to the checked phases", op.Kind, p.Name, p.Status, g.lacks)
			case p.Status != ops.PhaseFailed || !strings.Contains(msg, g.errorHas):
				t.Errorf("%s phase %s is %s (%s); want it to fail on what kumo lacks (%s)", op.Kind, p.Name, p.Status, msg, g.lacks)
			default:
				t.Logf("skipped on kumo: %s phase %s fails because kumo lacks %s (retryable %v): %s", op.Kind, p.Name, g.lacks, p.Error.Retryable, msg)
			}
			continue
		}
		if p.Status != ops.PhasePending {
			t.Errorf("%s phase %s is %s (%s); want it pending behind a phase kumo cannot serve", op.Kind, p.Name, p.Status, msg)
			continue
		}
		t.Logf("not reached on kumo: %s phase %s waits for %s", op.Kind, p.Name, strings.Join(p.DependsOn, ", "))
	}
}

func TestKumoIsReachable(t *testing.T) {
	w := startKumo(t)
	out, err := w.p.EKS.ListClusters(context.Background(), &eks.ListClustersInput{})
	if err != nil {
		t.Fatalf("EKS ListClusters on kumo at %s: %v", w.url, err)
	}
	if len(out.Clusters) != 0 {
		t.Fatalf("a fresh kumo lists EKS clusters %v", out.Clusters)
	}
	// Known to differ from AWS, where both name the one account.
	id, err := w.p.STS.GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatalf("STS GetCallerIdentity on kumo: %v", err)
	}
	t.Logf("kumo's STS says account %s (%s); its IAM makes ARNs in account 123456789012", aws.ToString(id.Account), aws.ToString(id.Arn))
	for _, arn := range w.policies {
		if _, err := w.p.IAM.GetPolicy(context.Background(), &iam.GetPolicyInput{PolicyArn: aws.String(arn)}); err != nil {
			t.Errorf("seeded policy %s: %v", arn, err)
		}
	}
}

// TestClusterPhasesOnKumo creates a cluster's IAM roles, network, EKS
// control plane and OIDC provider in kumo with the engine's own phases,
// checks them in kumo, then deletes the cluster and checks that what kumo
// can delete is gone, while another cluster's network, which every
// lookup also returned, is untouched.
func TestClusterPhasesOnKumo(t *testing.T) {
	w := startKumo(t)
	ctx := context.Background()
	p := w.p
	foreign := makeForeignNetwork(t, ctx, p)
	logTagFilters(t, ctx, p, foreign)
	e := newEngine(t, w.regions)

	in := cluster.CreateInput{Name: "kumo-1", Region: region, KubernetesVersion: cluster.DefaultKubernetesVersion, Zones: []string{region + "a", region + "b"}}
	createOp, err := e.svc.Create(ctx, caller, in, "")
	var clusterID string
	if err == nil {
		clusterID = createOp.Target.ID
	} else {
		// createCluster checks the zones against DescribeAvailabilityZones
		// before anything is made; kumo does not serve it.
		if !strings.Contains(err.Error(), "DescribeAvailabilityZones") {
			t.Fatalf("createCluster refused for another reason than kumo's missing DescribeAvailabilityZones: %v", err)
		}
		t.Logf("skipped on kumo: createCluster's checks against the region (kumo lacks DescribeAvailabilityZones): %v", err)
		t.Logf("the operation is submitted to the runner directly, as createCluster would submit it after its checks")
		clusterID = (&store.IDs{}).NewID()
		createOp, err = e.runner.Submit(ops.Request{Kind: cluster.KindCreate, Target: ops.Ref{Kind: cluster.TargetKind, ID: clusterID, Name: in.Name},
			RequestedBy: caller, Input: in,
			Prepare: func(tx *store.Tx, _ *ops.Operation) error {
				now := tx.Now()
				// The HyperPod cluster stays unnamed: kumo has no SageMaker,
				// so none is made, and deleteCluster has none to delete.
				return tx.Put(cluster.RecordKind, clusterID, &hyperpod.Cluster{ID: clusterID, Name: in.Name, Region: in.Region,
					KubernetesVersion: in.KubernetesVersion, Zones: in.Zones, Status: hyperpod.ClusterCreating, CreatedAt: now, UpdatedAt: now,
					Network: hyperpod.Network{Owned: true}, EKS: hyperpod.EKS{Name: in.Name, Owned: true}, Roles: hyperpod.Roles{Owned: true}})
			}})
		if err != nil {
			t.Fatal(err)
		}
	}

	covered := map[string]ops.PhaseStatus{
		phaseIAMRoles: ops.PhaseSucceeded, phaseVPC: ops.PhaseSucceeded, phaseSubnets: ops.PhaseSucceeded,
		phaseEKS: ops.PhaseSucceeded, phaseOIDC: ops.PhaseSucceeded,
	}
	created := e.drive(t, createOp.ID)
	checkPhases(t, created, covered, createGaps)
	c, err := e.svc.Get(clusterID)
	if err != nil {
		t.Fatal(err)
	}
	checkCreated(t, ctx, w, c, foreign)
	checkForeignNetworkIntact(t, ctx, p, foreign)
	if t.Failed() {
		t.FailNow()
	}
	network := readNetwork(t, ctx, p).owned(c.ID)
	checkRunAgainMakesNothing(t, ctx, w, e, createOp, in, covered, network)

	del, err := e.svc.Delete(ctx, caller, clusterID, cluster.DeleteOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	deleted := e.drive(t, del.ID)
	checkPhases(t, deleted, map[string]ops.PhaseStatus{
		phaseHyperPod: ops.PhaseSkipped, phaseEKS: ops.PhaseSucceeded, phaseOIDC: ops.PhaseSucceeded,
		phaseNAT: ops.PhaseSucceeded, phaseIAMRoles: ops.PhaseSucceeded,
		// kumo has no node groups: its 404 for the unknown EKS path reads
		// as a node group that is not there, which is true of this one.
		phaseSystemNodes: ops.PhaseSucceeded,
	}, deleteGaps)
	checkDeleted(t, ctx, w, c)
	// The network phase stops at the cluster's route table, which kumo
	// cannot delete: the network is then left whole, nothing more or less.
	left := readNetwork(t, ctx, p).owned(c.ID)
	switch ph := deleted.Phase(phaseNetwork); {
	case ph.Status == ops.PhaseSucceeded && len(left) > 0:
		t.Errorf("the network phase succeeded, and the cluster's %v are still in kumo", left)
	case ph.Status != ops.PhaseSucceeded && !slices.Equal(left, network):
		t.Errorf("after the network phase failed (%s), the cluster has %v in kumo; want all it had, %v", ph.Message, left, network)
	case len(left) > 0:
		t.Logf("left in kumo of the cluster's network, as kumo cannot delete route tables: %v", left)
	}
	checkForeignNetworkIntact(t, ctx, p, foreign)
}

// checkRunAgainMakesNothing runs the create's phases again, as a process
// that stopped between an Apply and storing its result would resume them:
// each phase must see in kumo that its goal holds and apply nothing, and
// kumo must hold no second VPC, gateway, subnet, security group, route
// table, EKS cluster or OIDC provider.
func checkRunAgainMakesNothing(t *testing.T, ctx context.Context, w *kumoWorld, e *engine, first *ops.Operation, in cluster.CreateInput,
	covered map[string]ops.PhaseStatus, network []string) {
	t.Helper()
	op, err := e.runner.Submit(ops.Request{Kind: cluster.KindCreate, Target: first.Target, RequestedBy: caller, Input: in})
	if err != nil {
		t.Fatal(err)
	}
	again := e.drive(t, op.ID)
	for name := range covered {
		if ph := again.Phase(name); ph.Status != ops.PhaseSucceeded || ph.Attempt != 0 {
			t.Errorf("run again, phase %s is %s after %d applies (%s); want it to find its goal met in kumo and apply nothing", name, ph.Status, ph.Attempt, ph.Message)
		}
	}
	if got := readNetwork(t, ctx, w.p).owned(first.Target.ID); !slices.Equal(got, network) {
		t.Errorf("run again, the cluster's network in kumo is %v; want it as made, %v", got, network)
	}
	clusters, err := w.p.EKS.ListClusters(ctx, &eks.ListClustersInput{})
	if err != nil || !slices.Equal(clusters.Clusters, []string{in.Name}) {
		t.Errorf("run again, EKS clusters %v (%v); want only %s", clusters, err, in.Name)
	}
	oidc, err := w.p.IAM.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{})
	if err != nil || len(oidc.OpenIDConnectProviderList) != 1 {
		t.Errorf("run again, OIDC providers %+v (%v); want the one", oidc, err)
	}
}

// logTagFilters says whether kumo still ignores tag filters, which is what
// makes the foreign network a test of the engine's own tag checks.
func logTagFilters(t *testing.T, ctx context.Context, p *cloud.Provider, f foreignNetwork) {
	t.Helper()
	out, err := p.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{{Name: aws.String("tag:" + tagClusterID), Values: []string{"01NOSUCHCLUSTER00000000000"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(out.Vpcs, func(v ec2types.Vpc) bool { return aws.ToString(v.VpcId) == f.vpc }) {
		t.Logf("kumo ignores tag filters: DescribeVpcs for another cluster's tag returns the foreign VPC %s", f.vpc)
	} else {
		t.Logf("kumo honours tag filters now: the foreign network no longer tests the engine's own tag checks")
	}
}

// checkCreated reads kumo back: the roles with their policies, the VPC
// with the cluster's tag (not the foreign one), its subnets, route table,
// internet gateway and security group, the EKS cluster on them, and the
// OIDC provider of its issuer.
func checkCreated(t *testing.T, ctx context.Context, w *kumoWorld, c *hyperpod.Cluster, foreign foreignNetwork) {
	t.Helper()
	p := w.p
	roles := map[string][]string{
		"InstantStart-" + c.Name + "-EKS":  {"arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"},
		"InstantStart-" + c.Name + "-Exec": {"arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy", "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"},
	}
	for name, want := range roles {
		role, err := p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
		if err != nil {
			t.Errorf("role %s: %v", name, err)
			continue
		}
		if arn := aws.ToString(role.Role.Arn); arn != c.Roles.EKSClusterRoleArn && arn != c.Roles.ExecutionRoleArn {
			t.Errorf("role %s is %s; the cluster record has %q and %q", name, arn, c.Roles.EKSClusterRoleArn, c.Roles.ExecutionRoleArn)
		}
		attached, err := p.IAM.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String(name)})
		if err != nil {
			t.Errorf("policies of role %s: %v", name, err)
			continue
		}
		var got []string
		for _, a := range attached.AttachedPolicies {
			got = append(got, aws.ToString(a.PolicyArn))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("role %s has policies %v; want %v", name, got, want)
		}
	}
	inline, err := p.IAM.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String("InstantStart-" + c.Name + "-Exec")})
	if err != nil || !slices.Contains(inline.PolicyNames, "instantstart") {
		t.Errorf("the execution role's inline policy: %v %+v", err, inline)
	}

	n := readNetwork(t, ctx, p)
	vpcID := c.Network.VpcID
	v, ok := n.vpcs[vpcID]
	switch {
	case vpcID == "" || !ok:
		t.Fatalf("the cluster's VPC %q is not in kumo (VPCs %v)", vpcID, keys(n.vpcs))
	case vpcID == foreign.vpc:
		t.Fatalf("the cluster took the foreign VPC %s", vpcID)
	case tag(v.Tags, tagClusterID) != c.ID:
		t.Errorf("VPC %s carries cluster tag %q; want %s", vpcID, tag(v.Tags, tagClusterID), c.ID)
	}
	if aws.ToString(v.CidrBlock) != c.Network.CIDR || c.Network.CIDR == "10.0.0.0/16" {
		t.Errorf("VPC %s range %s, record %s: it must be the record's and not overlap the foreign 10.0.0.0/16", vpcID, aws.ToString(v.CidrBlock), c.Network.CIDR)
	}
	igw := c.Network.InternetGateway
	if g, ok := n.igws[igw]; !ok || igw == foreign.igw || tag(g.Tags, tagClusterID) != c.ID ||
		!slices.ContainsFunc(g.Attachments, func(a ec2types.InternetGatewayAttachment) bool { return aws.ToString(a.VpcId) == vpcID }) {
		t.Errorf("internet gateway %q: want the cluster's own, attached to %s: %+v", igw, vpcID, g)
	}
	sg := c.Network.SecurityGroupID
	if g, ok := n.sgs[sg]; !ok || sg == foreign.sg || aws.ToString(g.VpcId) != vpcID || tag(g.Tags, tagClusterID) != c.ID {
		t.Errorf("security group %q: want the cluster's own in %s: %+v", sg, vpcID, g)
	}
	var public, private []string
	for id, s := range n.subnets {
		if aws.ToString(s.VpcId) != vpcID {
			continue
		}
		if tag(s.Tags, tagClusterID) != c.ID {
			t.Errorf("subnet %s in the cluster's VPC carries cluster tag %q", id, tag(s.Tags, tagClusterID))
		}
		switch tag(s.Tags, tagRole) {
		case "public":
			public = append(public, id)
		case "private":
			private = append(private, id)
		}
	}
	if len(public) != len(c.Zones) || len(private) != len(c.Zones) {
		t.Errorf("the cluster's VPC has public subnets %v and private ones %v; want one of each per zone %v", public, private, c.Zones)
	}
	var rts []ec2types.RouteTable
	for _, rt := range n.routeTables {
		if tag(rt.Tags, tagClusterID) == c.ID {
			rts = append(rts, rt)
		}
	}
	if len(rts) != 1 || aws.ToString(rts[0].VpcId) != vpcID || tag(rts[0].Tags, tagRole) != "public" {
		t.Fatalf("the cluster's route tables: %+v; want its public one in %s (the private one comes with the NAT gateway)", rts, vpcID)
	}
	rt := rts[0]
	if !slices.ContainsFunc(rt.Routes, func(r ec2types.Route) bool {
		return aws.ToString(r.DestinationCidrBlock) == "0.0.0.0/0" && aws.ToString(r.GatewayId) == igw
	}) {
		t.Errorf("public route table %s has no default route to %s: %+v", aws.ToString(rt.RouteTableId), igw, rt.Routes)
	}
	for _, s := range public {
		if !associatedWith(rt, s) {
			t.Errorf("public subnet %s is not associated with route table %s", s, aws.ToString(rt.RouteTableId))
		}
	}

	out, err := p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(c.EKS.Name)})
	if err != nil {
		t.Fatalf("EKS cluster %s: %v", c.EKS.Name, err)
	}
	cl := out.Cluster
	if cl.Status != ekstypes.ClusterStatusActive || aws.ToString(cl.RoleArn) != c.Roles.EKSClusterRoleArn || aws.ToString(cl.Version) != c.KubernetesVersion {
		t.Errorf("EKS cluster %s: status %s, role %s, version %s", c.EKS.Name, cl.Status, aws.ToString(cl.RoleArn), aws.ToString(cl.Version))
	}
	if cl.AccessConfig == nil || cl.AccessConfig.AuthenticationMode != ekstypes.AuthenticationModeApi {
		t.Errorf("EKS cluster %s access config %+v; want API authentication", c.EKS.Name, cl.AccessConfig)
	}
	if cl.Tags[tagClusterID] != c.ID {
		t.Errorf("EKS cluster %s tags %v; want %s=%s", c.EKS.Name, cl.Tags, tagClusterID, c.ID)
	}
	if vc := cl.ResourcesVpcConfig; vc == nil || !sameSet(vc.SubnetIds, append(slices.Clone(public), private...)) || !slices.Equal(vc.SecurityGroupIds, []string{sg}) {
		t.Errorf("EKS cluster %s VPC config %+v; want the subnets %v %v and security group %s", c.EKS.Name, vc, public, private, sg)
	} else if aws.ToString(vc.VpcId) != vpcID {
		t.Logf("kumo reports EKS cluster %s in VPC %s, not in its subnets' VPC %s (it makes the id up)", c.EKS.Name, aws.ToString(vc.VpcId), vpcID)
	}
	if cl.Identity == nil || cl.Identity.Oidc == nil || aws.ToString(cl.Identity.Oidc.Issuer) != c.EKS.OIDCIssuer || c.EKS.OIDCIssuer == "" {
		t.Fatalf("EKS cluster %s identity %+v; the record has issuer %q", c.EKS.Name, cl.Identity, c.EKS.OIDCIssuer)
	}
	oidc, err := p.IAM.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(c.EKS.OIDCProviderArn)})
	if err != nil {
		t.Fatalf("OIDC provider %q: %v", c.EKS.OIDCProviderArn, err)
	}
	if !strings.HasSuffix(c.EKS.OIDCProviderArn, ":oidc-provider/"+strings.TrimPrefix(c.EKS.OIDCIssuer, "https://")) || !slices.Contains(oidc.ClientIDList, "sts.amazonaws.com") {
		t.Errorf("OIDC provider %s (client ids %v) is not the one of issuer %s for sts.amazonaws.com", c.EKS.OIDCProviderArn, oidc.ClientIDList, c.EKS.OIDCIssuer)
	}
}

// checkDeleted reads kumo back after deleteCluster: the roles, the OIDC
// provider and the EKS cluster are gone.
func checkDeleted(t *testing.T, ctx context.Context, w *kumoWorld, c *hyperpod.Cluster) {
	t.Helper()
	p := w.p
	for _, name := range []string{"InstantStart-" + c.Name + "-EKS", "InstantStart-" + c.Name + "-Exec"} {
		if _, err := p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)}); !errs.IsNotFound(err) {
			t.Errorf("role %s after delete: %v; want it gone", name, err)
		}
	}
	if _, err := p.IAM.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(c.EKS.OIDCProviderArn)}); !errs.IsNotFound(err) {
		t.Errorf("OIDC provider %s after delete: %v; want it gone", c.EKS.OIDCProviderArn, err)
	}
	list, err := p.IAM.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{})
	if err != nil || len(list.OpenIDConnectProviderList) != 0 {
		t.Errorf("OIDC providers after delete: %v %+v; want none", err, list)
	}
	if _, err := p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(c.EKS.Name)}); !errs.IsNotFound(err) {
		t.Errorf("EKS cluster %s after delete: %v; want it gone", c.EKS.Name, err)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
