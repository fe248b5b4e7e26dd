package sim

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// CreateTags adds or overwrites tags on EC2 resources of any kind.
func (a *ec2API) CreateTags(ctx context.Context, in *ec2.CreateTagsInput, _ ...func(*ec2.Options)) (*ec2.CreateTagsOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "CreateTags", func(t *txn) (*ec2.CreateTagsOutput, error) {
		in := orZero(in)
		if err := need("CreateTagsInput", param{"Resources", in.Resources != nil}, param{"Tags", in.Tags != nil}); err != nil {
			return nil, err
		}
		tags, err := tagMap(in.Tags)
		if err != nil {
			return nil, err
		}
		for _, id := range in.Resources {
			if !t.ec2Exists(id) {
				return nil, ec2Error(notFoundCode(id), "The ID '%s' does not exist", id)
			}
		}
		for _, id := range in.Resources {
			t.setTags(id, tags)
		}
		return &ec2.CreateTagsOutput{}, nil
	})
}

// tagsFromSpecs returns the tags the TagSpecifications of a create call give
// a resource of type rt.
func tagsFromSpecs(rt ec2types.ResourceType, specs []ec2types.TagSpecification) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range specs {
		if s.ResourceType != rt {
			return nil, ec2Error("InvalidParameterValue", "'%s' is not a valid taggable resource type for this operation.", s.ResourceType)
		}
		m, err := tagMap(s.Tags)
		if err != nil {
			return nil, err
		}
		for k, v := range m {
			out[k] = v
		}
	}
	return out, nil
}

func tagMap(tags []ec2types.Tag) (map[string]string, error) {
	out := map[string]string{}
	for _, tag := range tags {
		k := aws.ToString(tag.Key)
		if k == "" || len(k) > 128 || strings.HasPrefix(strings.ToLower(k), "aws:") {
			return nil, ec2Error("InvalidParameterValue", "Tag key %q is invalid: it must be 1 to 128 characters and must not start with aws:", k)
		}
		out[k] = aws.ToString(tag.Value)
	}
	return out, nil
}

// setTags merges tags into the tags of resource id.
func (t *txn) setTags(id string, tags map[string]string) {
	if len(tags) == 0 {
		return
	}
	m, ok := t.rs.Tags[id]
	if !ok {
		m = map[string]string{}
		t.rs.Tags[id] = m
	}
	for k, v := range tags {
		m[k] = v
	}
}

// ec2Tags returns the tags of id as the SDK lists them, sorted by key.
func (t *txn) ec2Tags(id string) []ec2types.Tag {
	m := t.rs.Tags[id]
	if len(m) == 0 {
		return nil
	}
	out := make([]ec2types.Tag, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, ec2types.Tag{Key: aws.String(k), Value: aws.String(m[k])})
	}
	return out
}

// ec2Exists tells whether id names a live EC2 resource of the region.
func (t *txn) ec2Exists(id string) bool {
	rs := t.rs
	switch prefix, _, _ := strings.Cut(id, "-"); prefix {
	case "vpc":
		return rs.VPCs[id] != nil
	case "subnet":
		return rs.Subnets[id] != nil
	case "igw":
		return rs.IGWs[id] != nil
	case "eipalloc":
		return rs.Addresses[id] != nil
	case "nat":
		return rs.NATs[id] != nil
	case "rtb":
		return rs.RouteTables[id] != nil
	case "sg":
		return rs.SecurityGroups[id] != nil
	}
	return false
}

// notFoundCode is EC2's error code for an id of the kind id names.
func notFoundCode(id string) string {
	switch prefix, _, _ := strings.Cut(id, "-"); prefix {
	case "vpc":
		return "InvalidVpcID.NotFound"
	case "subnet":
		return "InvalidSubnetID.NotFound"
	case "igw":
		return "InvalidInternetGatewayID.NotFound"
	case "eipalloc":
		return "InvalidAllocationID.NotFound"
	case "nat":
		return "InvalidNatGatewayID.NotFound"
	case "rtb":
		return "InvalidRouteTableID.NotFound"
	case "sg":
		return "InvalidGroup.NotFound"
	}
	return "InvalidID"
}
