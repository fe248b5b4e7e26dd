package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestInternetGatewayAttachment(t *testing.T) {
	f := newFixture(t)
	ec := f.p.EC2
	a := f.network("10.0.0.0/16")
	igw := ok(ec.CreateInternetGateway(f.ctx, &ec2.CreateInternetGatewayInput{TagSpecifications: tagSpec(ec2types.ResourceTypeInternetGateway, "Name", "gw")})).must(t).InternetGateway.InternetGatewayId
	other := ok(ec.CreateInternetGateway(f.ctx, nil)).must(t).InternetGateway.InternetGatewayId
	ok(ec.AttachInternetGateway(f.ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: igw, VpcId: &a.vpc})).must(t)
	_, err := ec.AttachInternetGateway(f.ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: other, VpcId: &a.vpc})
	if code := errorCode(t, err); code != "Resource.AlreadyAssociated" {
		t.Errorf("second gateway on a VPC: code %q", code)
	}
	_, err = ec.DetachInternetGateway(f.ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: other, VpcId: &a.vpc})
	if code := errorCode(t, err); code != "Gateway.NotAttached" {
		t.Errorf("detach of a detached gateway: code %q", code)
	}
	tagged := ok(ec.DescribeInternetGateways(f.ctx, &ec2.DescribeInternetGatewaysInput{
		Filters: []ec2types.Filter{{Name: aws.String("tag:Name"), Values: []string{"gw"}}},
	})).must(t).InternetGateways
	if len(tagged) != 1 || *tagged[0].Attachments[0].VpcId != a.vpc {
		t.Errorf("tagged gateways = %+v", tagged)
	}
}
