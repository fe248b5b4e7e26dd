package sim

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

func TestOpenIDConnectProviders(t *testing.T) {
	f := newFixture(t)
	im := f.p.IAM
	issuer := "https://oidc.eks.us-west-2.amazonaws.com/id/0123456789ABCDEF0123456789ABCDEF"
	arn := ok(im.CreateOpenIDConnectProvider(f.ctx, &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(issuer), ClientIDList: []string{"sts.amazonaws.com"},
	})).must(t).OpenIDConnectProviderArn
	if *arn != "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/0123456789ABCDEF0123456789ABCDEF" {
		t.Errorf("arn = %s", *arn)
	}
	var exists *iamtypes.EntityAlreadyExistsException
	if _, err := im.CreateOpenIDConnectProvider(f.ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String(issuer)}); !errors.As(err, &exists) {
		t.Errorf("duplicate provider: %v", err)
	}
	var invalid *iamtypes.InvalidInputException
	if _, err := im.CreateOpenIDConnectProvider(f.ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String("http://x")}); !errors.As(err, &invalid) {
		t.Errorf("http URL: %v", err)
	}
	got := ok(im.GetOpenIDConnectProvider(f.ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn})).must(t)
	if *got.Url != issuer[len("https://"):] || got.ClientIDList[0] != "sts.amazonaws.com" {
		t.Errorf("provider = %s %v", *got.Url, got.ClientIDList)
	}
	if list := ok(im.ListOpenIDConnectProviders(f.ctx, nil)).must(t).OpenIDConnectProviderList; len(list) != 1 {
		t.Errorf("list = %v", list)
	}
	ok(im.DeleteOpenIDConnectProvider(f.ctx, &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn})).must(t)
	var missing *iamtypes.NoSuchEntityException
	if _, err := im.GetOpenIDConnectProvider(f.ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn}); !errors.As(err, &missing) {
		t.Errorf("get after delete: %v", err)
	}
}
