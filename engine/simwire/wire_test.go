package simwire

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/sim"
)

// twin is two worlds built alike on one clock: one answers through the
// wire and the real SDK clients, the other directly on its ports.
type twin struct {
	now          time.Time
	wire, direct *cloud.Provider
	// state keeps the ids each side's earlier steps made.
	wireState, directState map[string]string
}

func newTwin(t *testing.T, faults ...string) *twin {
	t.Helper()
	tw := &twin{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), wireState: map[string]string{}, directState: map[string]string{}}
	mk := func() *sim.World {
		w, err := sim.New(sim.Options{Seed: 1, Clock: func() time.Time { return tw.now }})
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range faults {
			f, err := sim.ParseFault(spec)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.InjectFault(f); err != nil {
				t.Fatal(err)
			}
		}
		return w
	}
	wireWorld, directWorld := mk(), mk()
	cfg := startWire(t, wireWorld)
	var err error
	if tw.direct, err = directWorld.Provider(directWorld.DefaultRegion()); err != nil {
		t.Fatal(err)
	}
	tw.wire = &cloud.Provider{
		EC2: ec2.NewFromConfig(cfg), EKS: eks.NewFromConfig(cfg),
		IAM: iam.NewFromConfig(cfg), STS: sts.NewFromConfig(cfg),
	}
	return tw
}

// step is one call, made alike on each side; st holds that side's ids.
type step struct {
	name string
	// advance moves the shared clock on before the step.
	advance time.Duration
	call    func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error)
}

// run makes each step on both sides and wants the whole outputs equal,
// or the same API error.
func (tw *twin) run(t *testing.T, steps []step) {
	t.Helper()
	ctx := context.Background()
	for _, s := range steps {
		tw.now = tw.now.Add(s.advance)
		got, gotErr := s.call(ctx, tw.wire, tw.wireState)
		want, wantErr := s.call(ctx, tw.direct, tw.directState)
		if wantErr != nil {
			var g, w smithy.APIError
			if !errors.As(wantErr, &w) {
				t.Fatalf("%s: direct error %v is no API error", s.name, wantErr)
			}
			if !errors.As(gotErr, &g) {
				t.Fatalf("%s: wire error %v, direct %v", s.name, gotErr, wantErr)
			}
			if g.ErrorCode() != w.ErrorCode() || g.ErrorMessage() != w.ErrorMessage() {
				t.Errorf("%s: wire %s %q, direct %s %q", s.name, g.ErrorCode(), g.ErrorMessage(), w.ErrorCode(), w.ErrorMessage())
			}
			if _, generic := w.(*smithy.GenericAPIError); !generic && reflect.TypeOf(g) != reflect.TypeOf(w) {
				t.Errorf("%s: wire error type %T, direct %T", s.name, g, w)
			}
			if !generic(w) && !reflect.DeepEqual(g, w) {
				t.Errorf("%s: wire error %#v, direct %#v", s.name, g, w)
			}
			continue
		}
		if gotErr != nil {
			t.Fatalf("%s: wire error %v, direct none", s.name, gotErr)
		}
		if !reflect.DeepEqual(withoutMetadata(got), withoutMetadata(want)) {
			t.Fatalf("%s: wire answer differs from the direct one:\n wire   %s\n direct %s", s.name, dump(got), dump(want))
		}
	}
}

func generic(err error) bool {
	_, ok := err.(*smithy.GenericAPIError)
	return ok
}

func dump(v any) string {
	b, _ := jsonDump(v)
	return string(b)
}

func tag(k, v string) ec2types.Tag { return ec2types.Tag{Key: aws.String(k), Value: aws.String(v)} }

func tagSpec(rt ec2types.ResourceType, tags ...ec2types.Tag) []ec2types.TagSpecification {
	return []ec2types.TagSpecification{{ResourceType: rt, Tags: tags}}
}

func clusterFilter() []ec2types.Filter {
	return []ec2types.Filter{{Name: aws.String("tag:instantstart/cluster"), Values: []string{"wire"}}}
}

// ec2Steps build a network: a tagged VPC, subnets, a security group, an
// internet and a NAT gateway, routes; then read and tear it down.
func ec2Steps() []step {
	vpc := func(st map[string]string) *string { return aws.String(st["vpc"]) }
	return []step{
		{"DescribeRegions", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EC2.DescribeRegions(ctx, &ec2.DescribeRegionsInput{})
		}},
		{"DescribeAvailabilityZones", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EC2.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
		}},
		{"DescribeInstanceTypes", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EC2.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"p5.48xlarge", "ml.p5.48xlarge", "m5.xlarge"}})
		}},
		{"DescribeInstanceTypeOfferings", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EC2.DescribeInstanceTypeOfferings(ctx, &ec2.DescribeInstanceTypeOfferingsInput{
				LocationType: ec2types.LocationTypeAvailabilityZone,
				Filters:      []ec2types.Filter{{Name: aws.String("instance-type"), Values: []string{"p5.48xlarge", "g6.12xlarge"}}},
			})
		}},
		{"CreateVpc", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.EC2.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.1.0.0/16"),
				TagSpecifications: tagSpec(ec2types.ResourceTypeVpc, tag("instantstart/cluster", "wire"), tag("Name", "wire vpc"))})
			if err == nil {
				st["vpc"] = *out.Vpc.VpcId
			}
			return out, err
		}},
		{"CreateVpc untagged", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EC2.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.2.0.0/16")})
		}},
		{"ModifyVpcAttribute", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.ModifyVpcAttribute(ctx, &ec2.ModifyVpcAttributeInput{VpcId: vpc(st), EnableDnsHostnames: &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}})
		}},
		{"DescribeVpcs by tag", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{Filters: clusterFilter()})
		}},
		{"DescribeVpcs all", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
		}},
		{"CreateSubnet a", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.EC2.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: vpc(st), CidrBlock: aws.String("10.1.0.0/20"), AvailabilityZone: aws.String("us-east-1a"),
				TagSpecifications: tagSpec(ec2types.ResourceTypeSubnet, tag("instantstart/cluster", "wire"))})
			if err == nil {
				st["subnetA"] = *out.Subnet.SubnetId
			}
			return out, err
		}},
		{"CreateSubnet b", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.EC2.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: vpc(st), CidrBlock: aws.String("10.1.16.0/20"), AvailabilityZone: aws.String("us-east-1c"),
				TagSpecifications: tagSpec(ec2types.ResourceTypeSubnet, tag("instantstart/cluster", "wire"))})
			if err == nil {
				st["subnetB"] = *out.Subnet.SubnetId
			}
			return out, err
		}},
		{"DescribeSubnets", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{st["vpc"]}}}})
		}},
		{"CreateSecurityGroup", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.EC2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{VpcId: vpc(st), GroupName: aws.String("wire-sg"), Description: aws.String("wire test"),
				TagSpecifications: tagSpec(ec2types.ResourceTypeSecurityGroup, tag("instantstart/cluster", "wire"))})
			if err == nil {
				st["sg"] = *out.GroupId
			}
			return out, err
		}},
		{"AuthorizeSecurityGroupIngress", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(st["sg"]), IpPermissions: []ec2types.IpPermission{{
				IpProtocol: aws.String("-1"), UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String(st["sg"])}},
			}, {
				IpProtocol: aws.String("tcp"), FromPort: aws.Int32(988), ToPort: aws.Int32(988), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.1.0.0/16")}},
			}}})
		}},
		{"DescribeSecurityGroups", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{st["sg"]}})
		}},
		{"CreateInternetGateway", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.EC2.CreateInternetGateway(ctx, &ec2.CreateInternetGatewayInput{TagSpecifications: tagSpec(ec2types.ResourceTypeInternetGateway, tag("instantstart/cluster", "wire"))})
			if err == nil {
				st["igw"] = *out.InternetGateway.InternetGatewayId
			}
			return out, err
		}},
		{"AttachInternetGateway", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.AttachInternetGateway(ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: aws.String(st["igw"]), VpcId: vpc(st)})
		}},
		{"DescribeInternetGateways", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EC2.DescribeInternetGateways(ctx, &ec2.DescribeInternetGatewaysInput{Filters: clusterFilter()})
		}},
		{"AllocateAddress", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.EC2.AllocateAddress(ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc, TagSpecifications: tagSpec(ec2types.ResourceTypeElasticIp, tag("instantstart/cluster", "wire"))})
			if err == nil {
				st["eip"] = *out.AllocationId
			}
			return out, err
		}},
		{"DescribeAddresses", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EC2.DescribeAddresses(ctx, &ec2.DescribeAddressesInput{Filters: clusterFilter()})
		}},
		{"CreateNatGateway", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.EC2.CreateNatGateway(ctx, &ec2.CreateNatGatewayInput{SubnetId: aws.String(st["subnetA"]), AllocationId: aws.String(st["eip"]), ClientToken: aws.String("nat-token"),
				TagSpecifications: tagSpec(ec2types.ResourceTypeNatgateway, tag("instantstart/cluster", "wire"))})
			if err == nil {
				st["nat"] = *out.NatGateway.NatGatewayId
			}
			return out, err
		}},
		{"DescribeNatGateways", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DescribeNatGateways(ctx, &ec2.DescribeNatGatewaysInput{NatGatewayIds: []string{st["nat"]}})
		}},
		{"CreateRouteTable", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.EC2.CreateRouteTable(ctx, &ec2.CreateRouteTableInput{VpcId: vpc(st), ClientToken: aws.String("rt-token"),
				TagSpecifications: tagSpec(ec2types.ResourceTypeRouteTable, tag("instantstart/cluster", "wire"))})
			if err == nil {
				st["rt"] = *out.RouteTable.RouteTableId
			}
			return out, err
		}},
		{"CreateRoute", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.CreateRoute(ctx, &ec2.CreateRouteInput{RouteTableId: aws.String(st["rt"]), DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String(st["igw"])})
		}},
		{"AssociateRouteTable", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.EC2.AssociateRouteTable(ctx, &ec2.AssociateRouteTableInput{RouteTableId: aws.String(st["rt"]), SubnetId: aws.String(st["subnetB"])})
			if err == nil {
				st["assoc"] = *out.AssociationId
			}
			return out, err
		}},
		{"DescribeRouteTables", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{st["vpc"]}}}})
		}},
		{"CreateTags", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{st["vpc"], st["subnetA"]}, Tags: []ec2types.Tag{tag("team", "ml")}})
		}},
		{"DescribeVpcs after CreateTags", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{st["vpc"]}})
		}},
		{"DescribeVpcs missing", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{"vpc-0000000000000dead"}})
		}},
		{"DisassociateRouteTable", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DisassociateRouteTable(ctx, &ec2.DisassociateRouteTableInput{AssociationId: aws.String(st["assoc"])})
		}},
		{"DeleteRouteTable", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DeleteRouteTable(ctx, &ec2.DeleteRouteTableInput{RouteTableId: aws.String(st["rt"])})
		}},
		{"DeleteNatGateway", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DeleteNatGateway(ctx, &ec2.DeleteNatGatewayInput{NatGatewayId: aws.String(st["nat"])})
		}},
		{"ReleaseAddress", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.ReleaseAddress(ctx, &ec2.ReleaseAddressInput{AllocationId: aws.String(st["eip"])})
		}},
		{"DetachInternetGateway", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DetachInternetGateway(ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: aws.String(st["igw"]), VpcId: vpc(st)})
		}},
		{"DeleteInternetGateway", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DeleteInternetGateway(ctx, &ec2.DeleteInternetGatewayInput{InternetGatewayId: aws.String(st["igw"])})
		}},
		{"DeleteSecurityGroup", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(st["sg"])})
		}},
		{"DeleteSubnet", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DeleteSubnet(ctx, &ec2.DeleteSubnetInput{SubnetId: aws.String(st["subnetB"])})
		}},
		{"DeleteVpc with a subnet left", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EC2.DeleteVpc(ctx, &ec2.DeleteVpcInput{VpcId: vpc(st)})
		}},
	}
}

func TestEC2MatchesDirectCalls(t *testing.T) {
	tw := newTwin(t)
	tw.run(t, ec2Steps())
	_, err := tw.wire.EC2.DescribeVpcs(context.Background(), &ec2.DescribeVpcsInput{VpcIds: []string{"vpc-0000000000000dead"}})
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "InvalidVpcID.NotFound" {
		t.Fatalf("DescribeVpcs of a missing VPC: %v, want InvalidVpcID.NotFound", err)
	}
}

const trust = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"eks.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

func iamSteps() []step {
	return []step{
		{"GetCallerIdentity", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.STS.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		}},
		{"CreateRole", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.IAM.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("wire-eks"), AssumeRolePolicyDocument: aws.String(trust),
				Description: aws.String("wire test"), Tags: []iamtypes.Tag{{Key: aws.String("instantstart/cluster"), Value: aws.String("wire")}}})
			if err == nil {
				st["role"] = *out.Role.Arn
			}
			return out, err
		}},
		{"CreateRole again", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("wire-eks"), AssumeRolePolicyDocument: aws.String(trust)})
		}},
		{"GetRole", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("wire-eks")})
		}},
		{"GetRole missing", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("nope")})
		}},
		{"AttachRolePolicy", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("wire-eks"), PolicyArn: aws.String("arn:aws:iam::aws:policy/AmazonEKSClusterPolicy")})
		}},
		{"ListAttachedRolePolicies", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String("wire-eks")})
		}},
		{"PutRolePolicy", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("wire-eks"), PolicyName: aws.String("inline"),
				PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`)})
		}},
		{"ListRolePolicies", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String("wire-eks")})
		}},
		{"CreatePolicy", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.IAM.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("wire-policy"), Description: aws.String("wire"),
				PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`)})
			if err == nil {
				st["policy"] = *out.Policy.Arn
			}
			return out, err
		}},
		{"GetPolicy", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.IAM.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(st["policy"])})
		}},
		{"CreatePolicyVersion", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.IAM.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: aws.String(st["policy"]), SetAsDefault: true,
				PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`)})
		}},
		{"ListPolicyVersions", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.IAM.ListPolicyVersions(ctx, &iam.ListPolicyVersionsInput{PolicyArn: aws.String(st["policy"])})
		}},
		{"GetPolicyVersion", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.IAM.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(st["policy"]), VersionId: aws.String("v2")})
		}},
		{"DeletePolicyVersion", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.IAM.DeletePolicyVersion(ctx, &iam.DeletePolicyVersionInput{PolicyArn: aws.String(st["policy"]), VersionId: aws.String("v1")})
		}},
		{"DeletePolicy", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.IAM.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: aws.String(st["policy"])})
		}},
		{"CreateOpenIDConnectProvider", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.IAM.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String("https://oidc.eks.us-east-1.amazonaws.com/id/WIRE"),
				ClientIDList: []string{"sts.amazonaws.com"}, ThumbprintList: []string{"9e99a48a9960b14926bb7f3b02e22da2b0ab7280"}})
			if err == nil {
				st["oidc"] = *out.OpenIDConnectProviderArn
			}
			return out, err
		}},
		{"GetOpenIDConnectProvider", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.IAM.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(st["oidc"])})
		}},
		{"ListOpenIDConnectProviders", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{})
		}},
		{"DeleteOpenIDConnectProvider", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.IAM.DeleteOpenIDConnectProvider(ctx, &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(st["oidc"])})
		}},
	}
}

func iamTeardown() []step {
	return []step{
		{"DeleteRole with policies", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("wire-eks")})
		}},
		{"DeleteRolePolicy", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String("wire-eks"), PolicyName: aws.String("inline")})
		}},
		{"DetachRolePolicy", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String("wire-eks"), PolicyArn: aws.String("arn:aws:iam::aws:policy/AmazonEKSClusterPolicy")})
		}},
		{"DeleteRole", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.IAM.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("wire-eks")})
		}},
	}
}

func TestIAMAndSTSMatchDirectCalls(t *testing.T) {
	tw := newTwin(t)
	tw.run(t, iamSteps())
	tw.run(t, iamTeardown())
	_, err := tw.wire.IAM.GetRole(context.Background(), &iam.GetRoleInput{RoleName: aws.String("wire-eks")})
	var nse *iamtypes.NoSuchEntityException
	if !errors.As(err, &nse) {
		t.Fatalf("GetRole of a deleted role: %T %v, want *types.NoSuchEntityException", err, err)
	}
}

func eksSteps() []step {
	cluster := aws.String("wire")
	return []step{
		{"CreateCluster", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EKS.CreateCluster(ctx, &eks.CreateClusterInput{Name: cluster, RoleArn: aws.String(st["role"]), Version: aws.String("1.31"),
				ClientRequestToken: aws.String("create-wire"),
				ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{st["subnetA"], st["subnetB"]}, EndpointPublicAccess: aws.Bool(true)},
				AccessConfig:       &ekstypes.CreateAccessConfigRequest{AuthenticationMode: ekstypes.AuthenticationModeApiAndConfigMap},
				Tags:               map[string]string{"instantstart/cluster": "wire"}})
		}},
		{"CreateCluster again", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EKS.CreateCluster(ctx, &eks.CreateClusterInput{Name: cluster, RoleArn: aws.String(st["role"]), ClientRequestToken: aws.String("other"),
				ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{st["subnetA"], st["subnetB"]}}})
		}},
		{"DescribeCluster", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: cluster})
		}},
		{"DescribeCluster missing", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("nope")})
		}},
		{"DeleteCluster while CREATING", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.DeleteCluster(ctx, &eks.DeleteClusterInput{Name: cluster})
		}},
		{"ListClusters", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.ListClusters(ctx, &eks.ListClustersInput{})
		}},
		{"the control plane comes up", 30 * time.Minute, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: cluster})
		}},
		{"CreateAddon", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.CreateAddon(ctx, &eks.CreateAddonInput{ClusterName: cluster, AddonName: aws.String("vpc-cni"), ClientRequestToken: aws.String("addon"),
				ResolveConflicts: ekstypes.ResolveConflictsOverwrite, Tags: map[string]string{"a": "b"}})
		}},
		{"CreateAddon pod identity", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.CreateAddon(ctx, &eks.CreateAddonInput{ClusterName: cluster, AddonName: aws.String("eks-pod-identity-agent"), ClientRequestToken: aws.String("addon2")})
		}},
		{"CreateAddon unknown", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.CreateAddon(ctx, &eks.CreateAddonInput{ClusterName: cluster, AddonName: aws.String("no-such-addon"), ClientRequestToken: aws.String("addon3")})
		}},
		{"DescribeAddon", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.DescribeAddon(ctx, &eks.DescribeAddonInput{ClusterName: cluster, AddonName: aws.String("vpc-cni")})
		}},
		{"UpdateAddon", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.UpdateAddon(ctx, &eks.UpdateAddonInput{ClusterName: cluster, AddonName: aws.String("vpc-cni"), ClientRequestToken: aws.String("upd"),
				ConfigurationValues: aws.String(`{"env":{"ENABLE_PREFIX_DELEGATION":"true"}}`)})
		}},
		{"ListAddons page 1", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.EKS.ListAddons(ctx, &eks.ListAddonsInput{ClusterName: cluster, MaxResults: aws.Int32(1)})
			if err == nil {
				st["addonToken"] = aws.ToString(out.NextToken)
			}
			return out, err
		}},
		{"ListAddons page 2", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			if st["addonToken"] == "" {
				return nil, errors.New("one add-on a page gave a single page")
			}
			return p.EKS.ListAddons(ctx, &eks.ListAddonsInput{ClusterName: cluster, MaxResults: aws.Int32(1), NextToken: aws.String(st["addonToken"])})
		}},
		{"CreateAccessEntry", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EKS.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: cluster, PrincipalArn: aws.String(st["role"]), ClientRequestToken: aws.String("ae"),
				KubernetesGroups: []string{"wire-group"}, Type: aws.String("STANDARD")})
		}},
		{"DescribeAccessEntry", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EKS.DescribeAccessEntry(ctx, &eks.DescribeAccessEntryInput{ClusterName: cluster, PrincipalArn: aws.String(st["role"])})
		}},
		{"AssociateAccessPolicy", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EKS.AssociateAccessPolicy(ctx, &eks.AssociateAccessPolicyInput{ClusterName: cluster, PrincipalArn: aws.String(st["role"]),
				PolicyArn:   aws.String("arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"),
				AccessScope: &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeNamespace, Namespaces: []string{"default", "kube-system"}}})
		}},
		{"ListAssociatedAccessPolicies", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EKS.ListAssociatedAccessPolicies(ctx, &eks.ListAssociatedAccessPoliciesInput{ClusterName: cluster, PrincipalArn: aws.String(st["role"])})
		}},
		{"CreatePodIdentityAssociation", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.EKS.CreatePodIdentityAssociation(ctx, &eks.CreatePodIdentityAssociationInput{ClusterName: cluster, Namespace: aws.String("kube-system"),
				ServiceAccount: aws.String("wire"), RoleArn: aws.String(st["role"]), ClientRequestToken: aws.String("pia")})
			if err == nil {
				st["pia"] = *out.Association.AssociationId
			}
			return out, err
		}},
		{"ListPodIdentityAssociations", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.ListPodIdentityAssociations(ctx, &eks.ListPodIdentityAssociationsInput{ClusterName: cluster, Namespace: aws.String("kube-system")})
		}},
		{"DeletePodIdentityAssociation", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EKS.DeletePodIdentityAssociation(ctx, &eks.DeletePodIdentityAssociationInput{ClusterName: cluster, AssociationId: aws.String(st["pia"])})
		}},
		{"CreateRole for nodes", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			out, err := p.IAM.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("wire-node"),
				AssumeRolePolicyDocument: aws.String(strings.Replace(trust, "eks.amazonaws.com", "ec2.amazonaws.com", 1))})
			if err == nil {
				st["nodeRole"] = *out.Role.Arn
			}
			return out, err
		}},
		{"CreateNodegroup with a role EC2 cannot assume", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EKS.CreateNodegroup(ctx, &eks.CreateNodegroupInput{ClusterName: cluster, NodegroupName: aws.String("bad"), NodeRole: aws.String(st["role"]),
				Subnets: []string{st["subnetA"]}})
		}},
		{"CreateNodegroup", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EKS.CreateNodegroup(ctx, &eks.CreateNodegroupInput{ClusterName: cluster, NodegroupName: aws.String("system"), NodeRole: aws.String(st["nodeRole"]),
				Subnets: []string{st["subnetA"], st["subnetB"]}, InstanceTypes: []string{"m5.large"}, AmiType: ekstypes.AMITypesAl2023X8664Standard,
				ScalingConfig:      &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(2), MaxSize: aws.Int32(2), DesiredSize: aws.Int32(2)},
				Labels:             map[string]string{"instantstart.io/role": "system"},
				Taints:             []ekstypes.Taint{{Key: aws.String("CriticalAddonsOnly"), Effect: ekstypes.TaintEffectNoSchedule}},
				ClientRequestToken: aws.String("ng"), Tags: map[string]string{"instantstart/cluster": "wire"}})
		}},
		{"CreateNodegroup again", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EKS.CreateNodegroup(ctx, &eks.CreateNodegroupInput{ClusterName: cluster, NodegroupName: aws.String("system"), NodeRole: aws.String(st["nodeRole"]),
				Subnets: []string{st["subnetA"]}, ClientRequestToken: aws.String("other")})
		}},
		{"ListNodegroups", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.ListNodegroups(ctx, &eks.ListNodegroupsInput{ClusterName: cluster})
		}},
		{"the node group comes up", 30 * time.Minute, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: cluster, NodegroupName: aws.String("system")})
		}},
		{"UpdateNodegroupConfig", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.UpdateNodegroupConfig(ctx, &eks.UpdateNodegroupConfigInput{ClusterName: cluster, NodegroupName: aws.String("system"),
				ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(3), DesiredSize: aws.Int32(3)},
				Labels:        &ekstypes.UpdateLabelsPayload{AddOrUpdateLabels: map[string]string{"tier": "system"}}})
		}},
		{"UpdateNodegroupConfig while UPDATING", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.UpdateNodegroupConfig(ctx, &eks.UpdateNodegroupConfigInput{ClusterName: cluster, NodegroupName: aws.String("system"),
				ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(1)}})
		}},
		{"DeleteCluster with a node group", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.DeleteCluster(ctx, &eks.DeleteClusterInput{Name: cluster})
		}},
		{"DeleteNodegroup", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.DeleteNodegroup(ctx, &eks.DeleteNodegroupInput{ClusterName: cluster, NodegroupName: aws.String("system")})
		}},
		{"the node group goes", 30 * time.Minute, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: cluster, NodegroupName: aws.String("system")})
		}},
		{"DeleteAccessEntry", 0, func(ctx context.Context, p *cloud.Provider, st map[string]string) (any, error) {
			return p.EKS.DeleteAccessEntry(ctx, &eks.DeleteAccessEntryInput{ClusterName: cluster, PrincipalArn: aws.String(st["role"])})
		}},
		{"DeleteAddon", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.DeleteAddon(ctx, &eks.DeleteAddonInput{ClusterName: cluster, AddonName: aws.String("vpc-cni"), Preserve: true})
		}},
		{"DeleteCluster", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EKS.DeleteCluster(ctx, &eks.DeleteClusterInput{Name: cluster})
		}},
	}
}

func TestEKSMatchesDirectCalls(t *testing.T) {
	tw := newTwin(t)
	steps := append(ec2Steps()[:11], iamSteps()[:2]...) // a VPC, subnets, a role
	tw.run(t, steps)
	tw.run(t, eksSteps())
	_, err := tw.wire.EKS.DescribeCluster(context.Background(), &eks.DescribeClusterInput{Name: aws.String("nope")})
	var nf *ekstypes.ResourceNotFoundException
	if !errors.As(err, &nf) || aws.ToString(nf.ClusterName) != "nope" {
		t.Fatalf("DescribeCluster of a missing cluster: %T %v, want *types.ResourceNotFoundException naming it", err, err)
	}
}

// TestEveryPortMethodIsServed wants each method of the EC2, EKS, IAM and
// STS ports reachable on the wire, and every schema member mapped.
func TestEveryPortMethodIsServed(t *testing.T) {
	for _, port := range []reflect.Type{reflect.TypeFor[cloud.EC2](), reflect.TypeFor[cloud.IAM](), reflect.TypeFor[cloud.STS](), reflect.TypeFor[cloud.EKS]()} {
		for i := range port.NumMethod() {
			m := port.Method(i)
			for _, ty := range []reflect.Type{m.Type.In(1).Elem(), m.Type.Out(0).Elem()} {
				if shapeOf(ty) == nil {
					t.Errorf("%s.%s: %s has no wire names", port.Name(), m.Name, ty)
				}
			}
			if port == reflect.TypeFor[cloud.EKS]() {
				if _, ok := eksOperations[m.Name]; !ok {
					t.Errorf("EKS.%s has no route", m.Name)
				}
			}
		}
	}
	if len(unmappedMembers) > 0 {
		t.Errorf("schema members without a Go field: %v", unmappedMembers)
	}
}

func jsonDump(v any) ([]byte, error) { return json.MarshalIndent(v, "", " ") }

// pages calls one page after another until the token runs out, and
// returns every page; it fails when there is only one.
func pages[O any](ctx context.Context, page func(token *string) (O, *string, error)) (any, error) {
	var all []O
	var token *string
	for i := 0; i < 100; i++ {
		out, next, err := page(token)
		if err != nil {
			return nil, err
		}
		all = append(all, out)
		if next == nil || *next == "" {
			if len(all) < 2 {
				return nil, errors.New("a single page: the test pages nothing")
			}
			for i := range all {
				withoutMetadata(any(all[i]))
			}
			return all, nil
		}
		token = next
	}
	return nil, errors.New("pagination does not end")
}

// TestPagesMatchDirectCalls pages EC2, IAM and EKS lists one item at a
// time (the smallpages fault) through the wire and directly: the next
// tokens (EC2's NextToken, IAM's Marker) make the round trip.
func TestPagesMatchDirectCalls(t *testing.T) {
	tw := newTwin(t, "smallpages")
	setup := append(ec2Steps()[:13], iamSteps()[1], iamSteps()[5], iamSteps()[7])
	tw.run(t, setup)
	tw.run(t, []step{
		{"DescribeSecurityGroups pages", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return pages(ctx, func(tok *string) (*ec2.DescribeSecurityGroupsOutput, *string, error) {
				out, err := p.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{NextToken: tok})
				if err != nil {
					return nil, nil, err
				}
				return out, out.NextToken, nil
			})
		}},
		{"DescribeInstanceTypeOfferings pages", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return pages(ctx, func(tok *string) (*ec2.DescribeInstanceTypeOfferingsOutput, *string, error) {
				out, err := p.EC2.DescribeInstanceTypeOfferings(ctx, &ec2.DescribeInstanceTypeOfferingsInput{NextToken: tok, LocationType: ec2types.LocationTypeAvailabilityZone,
					Filters: []ec2types.Filter{{Name: aws.String("instance-type"), Values: []string{"p5.48xlarge"}}}})
				if err != nil {
					return nil, nil, err
				}
				return out, out.NextToken, nil
			})
		}},
		{"DescribeAvailabilityZones", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			return p.EC2.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
		}},
		{"ListRolePolicies and ListAttachedRolePolicies", 0, func(ctx context.Context, p *cloud.Provider, _ map[string]string) (any, error) {
			if _, err := p.IAM.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("wire-eks"), PolicyName: aws.String("second"),
				PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:ListBucket","Resource":"*"}]}`)}); err != nil {
				return nil, err
			}
			return pages(ctx, func(tok *string) (*iam.ListRolePoliciesOutput, *string, error) {
				out, err := p.IAM.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String("wire-eks"), Marker: tok})
				if err != nil {
					return nil, nil, err
				}
				if !out.IsTruncated {
					return out, nil, nil
				}
				return out, out.Marker, nil
			})
		}},
	})
}
