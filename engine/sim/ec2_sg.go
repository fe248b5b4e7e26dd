package sim

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// sgRec is a security group of a VPC. Rules are kept one per peer, as
// SecurityGroupRule lists them.
type sgRec struct {
	ID          string
	VpcID       string
	Name        string
	Description string
	Ingress     []ruleRec
	Egress      []ruleRec
	EKSCluster  string `json:",omitempty"` // the EKS cluster whose cluster security group this is
}

type ruleRec struct {
	ID            string
	Protocol      string
	FromPort      int32
	ToPort        int32
	CIDR          string `json:",omitempty"`
	SourceGroupID string `json:",omitempty"`
	Description   string `json:",omitempty"`
}

func (r ruleRec) samePermission(o ruleRec) bool {
	return r.Protocol == o.Protocol && r.FromPort == o.FromPort && r.ToPort == o.ToPort &&
		r.CIDR == o.CIDR && r.SourceGroupID == o.SourceGroupID
}

// newSecurityGroup creates a group that allows all egress. The default
// group of a VPC, and the cluster security group of an EKS cluster, also
// allow all traffic between their members.
func (t *txn) newSecurityGroup(vpcID, name, description string) *sgRec {
	g := &sgRec{ID: t.newID("sg"), VpcID: vpcID, Name: name, Description: description}
	g.Egress = []ruleRec{{ID: t.newID("sgr"), Protocol: "-1", FromPort: -1, ToPort: -1, CIDR: "0.0.0.0/0"}}
	if name == "default" || strings.HasPrefix(name, "eks-cluster-sg-") {
		g.Ingress = []ruleRec{{ID: t.newID("sgr"), Protocol: "-1", FromPort: -1, ToPort: -1, SourceGroupID: g.ID}}
	}
	t.rs.SecurityGroups[g.ID] = g
	return g
}

func (t *txn) securityGroup(id *string) (*sgRec, error) {
	g := t.rs.SecurityGroups[aws.ToString(id)]
	if g == nil {
		return nil, ec2Error("InvalidGroup.NotFound", "The security group '%s' does not exist", aws.ToString(id))
	}
	return g, nil
}

func (t *txn) sgArn(id string) string {
	return fmt.Sprintf("arn:aws:ec2:%s:%s:security-group/%s", t.region, t.account(), id)
}

// CreateSecurityGroup creates a security group in a VPC; names are unique
// within a VPC.
func (a *ec2API) CreateSecurityGroup(ctx context.Context, in *ec2.CreateSecurityGroupInput, _ ...func(*ec2.Options)) (*ec2.CreateSecurityGroupOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "CreateSecurityGroup", func(t *txn) (*ec2.CreateSecurityGroupOutput, error) {
		in := orZero(in)
		if err := need("CreateSecurityGroupInput", param{"Description", in.Description != nil}, param{"GroupName", in.GroupName != nil}); err != nil {
			return nil, err
		}
		if in.VpcId == nil {
			return nil, ec2Error("VPCIdNotSpecified", "No default VPC for this user: specify VpcId.")
		}
		v, err := t.vpc(in.VpcId)
		if err != nil {
			return nil, err
		}
		name := *in.GroupName
		switch {
		case name == "" || len(name) > 255:
			return nil, ec2Error("InvalidParameterValue", "Invalid value '%s' for groupName: it must be 1 to 255 characters.", name)
		case strings.EqualFold(name, "default"):
			return nil, ec2Error("InvalidParameterValue", "Cannot use reserved security group name: %s", name)
		case strings.HasPrefix(name, "sg-"):
			return nil, ec2Error("InvalidParameterValue", "Group names may not be in the format sg-*.")
		}
		for _, g := range t.rs.SecurityGroups {
			if g.VpcID == v.ID && g.Name == name {
				return nil, ec2Error("InvalidGroup.Duplicate", "The security group '%s' already exists for VPC '%s'", name, v.ID)
			}
		}
		tags, err := tagsFromSpecs(ec2types.ResourceTypeSecurityGroup, in.TagSpecifications)
		if err != nil {
			return nil, err
		}
		g := t.newSecurityGroup(v.ID, name, *in.Description)
		t.setTags(g.ID, tags)
		return &ec2.CreateSecurityGroupOutput{GroupId: aws.String(g.ID), SecurityGroupArn: aws.String(t.sgArn(g.ID)), Tags: t.ec2Tags(g.ID)}, nil
	})
}

// AuthorizeSecurityGroupIngress adds ingress rules to a group, from
// IpPermissions or from the flat CidrIp/IpProtocol/FromPort/ToPort form.
func (a *ec2API) AuthorizeSecurityGroupIngress(ctx context.Context, in *ec2.AuthorizeSecurityGroupIngressInput, _ ...func(*ec2.Options)) (*ec2.AuthorizeSecurityGroupIngressOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "AuthorizeSecurityGroupIngress", func(t *txn) (*ec2.AuthorizeSecurityGroupIngressOutput, error) {
		in := orZero(in)
		if in.GroupId == nil {
			return nil, ec2Error("MissingParameter", "The request must contain the parameter groupId (there is no default VPC)")
		}
		g, err := t.securityGroup(in.GroupId)
		if err != nil {
			return nil, err
		}
		perms := in.IpPermissions
		if in.IpProtocol != nil {
			perm := ec2types.IpPermission{IpProtocol: in.IpProtocol, FromPort: in.FromPort, ToPort: in.ToPort}
			if in.CidrIp != nil {
				perm.IpRanges = []ec2types.IpRange{{CidrIp: in.CidrIp}}
			}
			perms = append(perms, perm)
		}
		if len(perms) == 0 {
			return nil, ec2Error("MissingParameter", "No permissions given: set IpPermissions.")
		}
		var added []ruleRec
		for _, p := range perms {
			rules, err := t.rulesOf(p)
			if err != nil {
				return nil, err
			}
			for _, r := range rules {
				for _, old := range append(g.Ingress, added...) {
					if old.samePermission(r) {
						return nil, ec2Error("InvalidPermission.Duplicate", "the specified rule \"peer: %s%s, %s, from port: %d, to port: %d, ALLOW\" already exists",
							r.CIDR, r.SourceGroupID, strings.ToUpper(r.Protocol), r.FromPort, r.ToPort)
					}
				}
				added = append(added, r)
			}
		}
		out := &ec2.AuthorizeSecurityGroupIngressOutput{Return: aws.Bool(true)}
		for i := range added {
			added[i].ID = t.newID("sgr")
			out.SecurityGroupRules = append(out.SecurityGroupRules, t.ruleOut(g, added[i], false))
		}
		g.Ingress = append(g.Ingress, added...)
		return out, nil
	})
}

// rulesOf splits one IpPermission into one rule per peer, validating it.
func (t *txn) rulesOf(p ec2types.IpPermission) ([]ruleRec, error) {
	proto := strings.ToLower(aws.ToString(p.IpProtocol))
	switch proto {
	case "-1", "all":
		proto = "-1"
	case "tcp", "udp", "icmp", "6", "17", "1":
	default:
		return nil, ec2Error("InvalidParameterValue", "Invalid value '%s' for IP protocol. Unknown protocol.", proto)
	}
	from, to := int32(-1), int32(-1)
	if proto != "-1" {
		if p.FromPort == nil || p.ToPort == nil {
			return nil, ec2Error("InvalidParameterValue", "Invalid value for portRange. Must specify both from and to ports with TCP/UDP.")
		}
		from, to = *p.FromPort, *p.ToPort
		if proto != "icmp" && proto != "1" && (from < 0 || to > 65535 || from > to) {
			return nil, ec2Error("InvalidParameterValue", "Invalid value for portRange: %d-%d.", from, to)
		}
	}
	var rules []ruleRec
	for _, r := range p.IpRanges {
		c, err := netip.ParsePrefix(aws.ToString(r.CidrIp))
		if err != nil || !c.Addr().Is4() {
			return nil, ec2Error("InvalidParameterValue", "CIDR block %s is malformed", aws.ToString(r.CidrIp))
		}
		rules = append(rules, ruleRec{Protocol: proto, FromPort: from, ToPort: to, CIDR: c.Masked().String(), Description: aws.ToString(r.Description)})
	}
	for _, pair := range p.UserIdGroupPairs {
		src, err := t.securityGroup(pair.GroupId)
		if err != nil {
			return nil, err
		}
		rules = append(rules, ruleRec{Protocol: proto, FromPort: from, ToPort: to, SourceGroupID: src.ID, Description: aws.ToString(pair.Description)})
	}
	if len(rules) == 0 {
		return nil, ec2Error("MissingParameter", "A permission needs at least one IpRanges or UserIdGroupPairs peer.")
	}
	return rules, nil
}

func (t *txn) ruleOut(g *sgRec, r ruleRec, egress bool) ec2types.SecurityGroupRule {
	out := ec2types.SecurityGroupRule{
		SecurityGroupRuleId:  aws.String(r.ID),
		SecurityGroupRuleArn: aws.String(fmt.Sprintf("arn:aws:ec2:%s:%s:security-group-rule/%s", t.region, t.account(), r.ID)),
		GroupId:              aws.String(g.ID),
		GroupOwnerId:         aws.String(t.account()),
		IsEgress:             aws.Bool(egress),
		IpProtocol:           aws.String(r.Protocol),
		FromPort:             aws.Int32(r.FromPort),
		ToPort:               aws.Int32(r.ToPort),
	}
	if r.CIDR != "" {
		out.CidrIpv4 = aws.String(r.CIDR)
	}
	if r.SourceGroupID != "" {
		out.ReferencedGroupInfo = &ec2types.ReferencedSecurityGroup{GroupId: aws.String(r.SourceGroupID), UserId: aws.String(t.account())}
	}
	if r.Description != "" {
		out.Description = aws.String(r.Description)
	}
	return out
}

// ipPermissions folds rules back into IpPermissions, one per protocol and
// port range, in the order the rules were added.
func (t *txn) ipPermissions(rules []ruleRec) []ec2types.IpPermission {
	var out []ec2types.IpPermission
	index := map[string]int{}
	for _, r := range rules {
		key := fmt.Sprintf("%s/%d/%d", r.Protocol, r.FromPort, r.ToPort)
		i, ok := index[key]
		if !ok {
			perm := ec2types.IpPermission{IpProtocol: aws.String(r.Protocol)}
			if r.Protocol != "-1" {
				perm.FromPort, perm.ToPort = aws.Int32(r.FromPort), aws.Int32(r.ToPort)
			}
			i = len(out)
			index[key] = i
			out = append(out, perm)
		}
		var desc *string
		if r.Description != "" {
			desc = aws.String(r.Description)
		}
		if r.CIDR != "" {
			out[i].IpRanges = append(out[i].IpRanges, ec2types.IpRange{CidrIp: aws.String(r.CIDR), Description: desc})
		}
		if r.SourceGroupID != "" {
			out[i].UserIdGroupPairs = append(out[i].UserIdGroupPairs, ec2types.UserIdGroupPair{
				GroupId: aws.String(r.SourceGroupID), UserId: aws.String(t.account()), Description: desc,
			})
		}
	}
	return out
}

// DescribeSecurityGroups lists groups by id, name and filters (vpc-id,
// group-name, group-id, description, tag:<key>, tag-key).
func (a *ec2API) DescribeSecurityGroups(ctx context.Context, in *ec2.DescribeSecurityGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DescribeSecurityGroups", func(t *txn) (*ec2.DescribeSecurityGroupsOutput, error) {
		in := orZero(in)
		fs, err := t.ec2Filters("DescribeSecurityGroups", in.Filters, "vpc-id", "group-name", "group-id", "description", "owner-id")
		if err != nil {
			return nil, err
		}
		ids, names := newIDSet(in.GroupIds), newIDSet(in.GroupNames)
		if id, ok := ids.missing(func(id string) bool { return t.rs.SecurityGroups[id] != nil }); ok {
			return nil, ec2Error("InvalidGroup.NotFound", "The security group '%s' does not exist", id)
		}
		var all []ec2types.SecurityGroup
		for _, id := range sortedKeys(t.rs.SecurityGroups) {
			g := t.rs.SecurityGroups[id]
			fields := map[string][]string{
				"vpc-id": {g.VpcID}, "group-name": {g.Name}, "group-id": {g.ID}, "description": {g.Description}, "owner-id": {t.account()},
			}
			if !ids.has(id) || !names.has(g.Name) || !fs.match(t.rs.Tags[id], fields) {
				continue
			}
			all = append(all, ec2types.SecurityGroup{
				GroupId:             aws.String(g.ID),
				GroupName:           aws.String(g.Name),
				Description:         aws.String(g.Description),
				VpcId:               aws.String(g.VpcID),
				OwnerId:             aws.String(t.account()),
				SecurityGroupArn:    aws.String(t.sgArn(g.ID)),
				IpPermissions:       t.ipPermissions(g.Ingress),
				IpPermissionsEgress: t.ipPermissions(g.Egress),
				Tags:                t.ec2Tags(g.ID),
			})
		}
		items, next, err := page(all, in.NextToken, t.pageSize(svcEC2, "DescribeSecurityGroups", in.MaxResults), 1000)
		if err != nil {
			return nil, ec2Error("InvalidNextToken", "The token '%s' is invalid.", aws.ToString(in.NextToken))
		}
		return &ec2.DescribeSecurityGroupsOutput{SecurityGroups: items, NextToken: next}, nil
	})
}

// DeleteSecurityGroup deletes a group that is not a VPC's default, not used
// by a cluster, and not referenced by another group's rules.
func (a *ec2API) DeleteSecurityGroup(ctx context.Context, in *ec2.DeleteSecurityGroupInput, _ ...func(*ec2.Options)) (*ec2.DeleteSecurityGroupOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DeleteSecurityGroup", func(t *txn) (*ec2.DeleteSecurityGroupOutput, error) {
		in := orZero(in)
		if in.GroupId == nil {
			return nil, ec2Error("MissingParameter", "The request must contain the parameter groupId (there is no default VPC)")
		}
		g, err := t.securityGroup(in.GroupId)
		if err != nil {
			return nil, err
		}
		if g.Name == "default" {
			return nil, ec2Error("CannotDelete", "the specified group: \"%s\" name: \"default\" cannot be deleted by a user", g.ID)
		}
		if dep := t.groupDependency(g.ID); dep != "" {
			return nil, ec2Error("DependencyViolation", "resource %s has a dependent object (%s)", g.ID, dep)
		}
		delete(t.rs.Tags, g.ID)
		delete(t.rs.SecurityGroups, g.ID)
		return &ec2.DeleteSecurityGroupOutput{GroupId: aws.String(g.ID), Return: aws.Bool(true)}, nil
	})
}

// groupDependency names what still uses security group id, or "".
func (t *txn) groupDependency(id string) string {
	for _, name := range sortedKeys(t.rs.EKS) {
		c := t.rs.EKS[name]
		if c.ClusterSGID == id {
			return "EKS cluster " + name
		}
		for _, sg := range c.SecurityGroupIDs {
			if sg == id {
				return "EKS cluster " + name
			}
		}
	}
	for _, name := range sortedKeys(t.rs.HyperPod) {
		if t.rs.HyperPod[name].usesSecurityGroup(id) {
			return "HyperPod cluster " + name
		}
	}
	for _, oid := range sortedKeys(t.rs.SecurityGroups) {
		if oid == id {
			continue
		}
		o := t.rs.SecurityGroups[oid]
		for _, r := range append(append([]ruleRec(nil), o.Ingress...), o.Egress...) {
			if r.SourceGroupID == id {
				return "a rule of security group " + oid
			}
		}
	}
	return ""
}
