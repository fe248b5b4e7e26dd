package cluster

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// legacyCreate is a CreateCluster operation as an older version stored it:
// string outputs, subnet lists packed as JSON, add-ons and subnet ids
// joined by commas.
func legacyCreate() *ops.Operation {
	phase := func(name string, out map[string]string) *ops.Phase {
		return &ops.Phase{Name: name, Status: ops.PhaseSucceeded, Outputs: out}
	}
	return &ops.Operation{ID: "op-1", Kind: KindCreate, Phases: []*ops.Phase{
		phase(phaseIAMRoles, map[string]string{"eksClusterRoleArn": "arn:eks-role", "executionRoleArn": "arn:exec-role"}),
		phase(phaseVPC, map[string]string{"vpcId": "vpc-1", "cidr": "10.0.0.0/16", "internetGatewayId": "igw-1"}),
		phase(phaseSubnets, map[string]string{"subnets": `[{"id":"subnet-a","zone":"us-west-2a","cidr":"10.0.0.0/24","role":"PUBLIC"}]`, "securityGroupId": "sg-1"}),
		phase(phaseNAT, map[string]string{"natGatewayId": "nat-1"}),
		phase(phaseEKS, map[string]string{"arn": "arn:eks", "status": "ACTIVE", "subnetIds": "subnet-a,subnet-b", "authenticationMode": "API"}),
		phase(phaseAddons, map[string]string{"addons": "vpc-cni,coredns"}),
		phase(phaseComputeSubnet, map[string]string{"subnets": `[{"id":"subnet-c","zone":"us-west-2a","cidr":"10.0.16.0/20","role":"COMPUTE"}]`}),
		phase(phaseHyperPod, map[string]string{"arn": "arn:hp", "status": "InService"}),
	}}
}

func TestOutputsStoredByAnOlderVersionAreRead(t *testing.T) {
	op := legacyCreate()
	var c hyperpod.Cluster
	applyOutputs(&c, op)
	want := hyperpod.Network{VpcID: "vpc-1", CIDR: "10.0.0.0/16", InternetGateway: "igw-1", SecurityGroupID: "sg-1", NatGatewayID: "nat-1", Subnets: []hyperpod.Subnet{
		{ID: "subnet-a", Zone: "us-west-2a", CIDR: "10.0.0.0/24", Role: hyperpod.SubnetPublic}, {ID: "subnet-c", Zone: "us-west-2a", CIDR: "10.0.16.0/20", Role: hyperpod.SubnetCompute}}}
	if !reflect.DeepEqual(c.Network, want) {
		t.Fatalf("network %+v, want %+v", c.Network, want)
	}
	if c.Roles.ExecutionRoleArn != "arn:exec-role" || c.EKS.Arn != "arn:eks" || c.EKS.AuthMode != "API" || !reflect.DeepEqual(c.EKS.Addons, []string{"vpc-cni", "coredns"}) || c.HyperPod.Arn != "arn:hp" {
		t.Fatalf("cluster %+v", c)
	}
	cl, err := ops.OutputOf[eksOutput](op, phaseEKS)
	if err != nil || !reflect.DeepEqual([]string(cl.SubnetIDs), []string{"subnet-a", "subnet-b"}) {
		t.Fatalf("EKS output %+v, %v", cl, err)
	}
}

func TestTypedOutputsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		phase string
		out   any
		read  func(op *ops.Operation) (any, error)
	}{
		{phaseSubnets, subnetsOutput{Subnets: []hyperpod.Subnet{{ID: "subnet-a", Zone: "us-west-2a", CIDR: "10.0.0.0/24", Role: hyperpod.SubnetPrivate}}, SecurityGroupID: "sg-1"},
			func(op *ops.Operation) (any, error) { return ops.OutputOf[subnetsOutput](op, phaseSubnets) }},
		{phaseEKS, eksOutput{Arn: "arn:eks", SubnetIDs: ops.Names{"subnet-a", "subnet-b"}, OIDCIssuer: "https://oidc"},
			func(op *ops.Operation) (any, error) { return ops.OutputOf[eksOutput](op, phaseEKS) }},
		{phaseNetwork, importedNetworkOutput{Zones: ops.Names{"us-west-2a"}, Addons: ops.Names{"vpc-cni"}, CIDR: "10.1.0.0/16"},
			func(op *ops.Operation) (any, error) { return ops.OutputOf[importedNetworkOutput](op, phaseNetwork) }},
	} {
		t.Run(tc.phase, func(t *testing.T) {
			raw, err := json.Marshal(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			op := &ops.Operation{Phases: []*ops.Phase{{Name: tc.phase, Output: raw}}}
			got, err := tc.read(op)
			if err != nil || !reflect.DeepEqual(got, tc.out) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.out)
			}
		})
	}
}

func TestCorruptOutputIsInternalAndLeavesTheRecord(t *testing.T) {
	op := legacyCreate()
	op.Phase(phaseSubnets).Outputs["subnets"] = `[{"id":`
	if _, err := ops.OutputOf[subnetsOutput](op, phaseSubnets); errs.CodeOf(err) != errs.Internal {
		t.Fatalf("corrupt subnets: %v, want INTERNAL", err)
	}
	c := hyperpod.Cluster{Network: hyperpod.Network{SecurityGroupID: "sg-before", Subnets: []hyperpod.Subnet{{ID: "subnet-before"}}}}
	applyOutputs(&c, op)
	if c.Network.SecurityGroupID != "sg-before" || len(c.Network.Subnets) != 1 || c.Network.Subnets[0].ID != "subnet-before" || c.Network.VpcID != "vpc-1" {
		t.Fatalf("network after a corrupt output: %+v", c.Network)
	}
}

func TestRecordsWithASingleInstanceTypeAreRead(t *testing.T) {
	const stored = `{"id":"c1","name":"train-1","instanceGroups":[{"name":"gpu","instanceType":"ml.p5.48xlarge","count":2,"zone":"us-west-2a","capacityType":"ON_DEMAND","threadsPerCore":2,"volumeSizeGb":500}]}`
	var c hyperpod.Cluster
	if err := json.Unmarshal([]byte(stored), &c); err != nil {
		t.Fatal(err)
	}
	var in CreateInput
	if err := json.Unmarshal([]byte(stored), &in); err != nil {
		t.Fatal(err)
	}
	for _, groups := range [][]hyperpod.GroupSpec{c.InstanceGroups, in.InstanceGroups} {
		if len(groups) != 1 || !slices.Equal(groups[0].InstanceTypes, []string{"ml.p5.48xlarge"}) || groups[0].Count != 2 {
			t.Fatalf("groups = %+v; want gpu with ml.p5.48xlarge and count 2", groups)
		}
	}
	if c.ID != "c1" || c.Name != "train-1" {
		t.Fatalf("cluster = %+v; want the other fields read too", c)
	}
}
