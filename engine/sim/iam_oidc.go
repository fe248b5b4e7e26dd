package sim

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// oidcRec is an IAM OpenID Connect identity provider.
type oidcRec struct {
	Arn         string
	URL         string // without the scheme, as IAM returns it
	ClientIDs   []string
	Thumbprints []string
	CreatedAt   time.Time
	Tags        map[string]string `json:",omitempty"`
}

// CreateOpenIDConnectProvider registers an OIDC issuer (an EKS cluster's,
// for IRSA). Its ARN is made from the issuer's host and path.
func (a *iamAPI) CreateOpenIDConnectProvider(ctx context.Context, in *iam.CreateOpenIDConnectProviderInput, _ ...func(*iam.Options)) (*iam.CreateOpenIDConnectProviderOutput, error) {
	return call(ctx, a.w, svcIAM, "", "CreateOpenIDConnectProvider", func(t *txn) (*iam.CreateOpenIDConnectProviderOutput, error) {
		in := orZero(in)
		if err := need("CreateOpenIDConnectProviderInput", param{"Url", in.Url != nil}); err != nil {
			return nil, err
		}
		u, err := url.Parse(*in.Url)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, &iamtypes.InvalidInputException{Message: aws.String(fmt.Sprintf("Invalid URL %q: an OIDC provider URL must start with https:// and have no query or fragment.", *in.Url))}
		}
		if len(in.ClientIDList) > 100 {
			return nil, &iamtypes.LimitExceededException{Message: aws.String("Cannot exceed quota for ClientIdsPerOpenIdConnectProvider: 100")}
		}
		for _, tp := range in.ThumbprintList {
			if len(tp) != 40 {
				return nil, &iamtypes.InvalidInputException{Message: aws.String(fmt.Sprintf("Thumbprint %q must be 40 hex characters.", tp))}
			}
		}
		host := strings.TrimSuffix(u.Host+u.Path, "/")
		arn := fmt.Sprintf("arn:aws:iam::%s:oidc-provider/%s", t.account(), host)
		if t.st.OIDC[arn] != nil {
			return nil, &iamtypes.EntityAlreadyExistsException{Message: aws.String(fmt.Sprintf("Provider with url %s already exists.", *in.Url))}
		}
		p := &oidcRec{
			Arn: arn, URL: host, ClientIDs: append([]string(nil), in.ClientIDList...),
			Thumbprints: append([]string(nil), in.ThumbprintList...), CreatedAt: t.now, Tags: iamTagMap(in.Tags),
		}
		t.st.OIDC[arn] = p
		return &iam.CreateOpenIDConnectProviderOutput{OpenIDConnectProviderArn: aws.String(arn), Tags: iamTags(p.Tags)}, nil
	})
}

func (t *txn) oidcProvider(arn *string) (*oidcRec, error) {
	p := t.st.OIDC[aws.ToString(arn)]
	if p == nil {
		return nil, &iamtypes.NoSuchEntityException{Message: aws.String(fmt.Sprintf("OpenIDConnect Provider not found for arn %s", aws.ToString(arn)))}
	}
	return p, nil
}

// GetOpenIDConnectProvider describes an OIDC provider.
func (a *iamAPI) GetOpenIDConnectProvider(ctx context.Context, in *iam.GetOpenIDConnectProviderInput, _ ...func(*iam.Options)) (*iam.GetOpenIDConnectProviderOutput, error) {
	return call(ctx, a.w, svcIAM, "", "GetOpenIDConnectProvider", func(t *txn) (*iam.GetOpenIDConnectProviderOutput, error) {
		in := orZero(in)
		if err := need("GetOpenIDConnectProviderInput", param{"OpenIDConnectProviderArn", in.OpenIDConnectProviderArn != nil}); err != nil {
			return nil, err
		}
		p, err := t.oidcProvider(in.OpenIDConnectProviderArn)
		if err != nil {
			return nil, err
		}
		return &iam.GetOpenIDConnectProviderOutput{
			Url: aws.String(p.URL), ClientIDList: slices.Clone(p.ClientIDs), ThumbprintList: slices.Clone(p.Thumbprints),
			CreateDate: aws.Time(p.CreatedAt), Tags: iamTags(p.Tags),
		}, nil
	})
}

// ListOpenIDConnectProviders lists the ARNs of every OIDC provider.
func (a *iamAPI) ListOpenIDConnectProviders(ctx context.Context, in *iam.ListOpenIDConnectProvidersInput, _ ...func(*iam.Options)) (*iam.ListOpenIDConnectProvidersOutput, error) {
	return call(ctx, a.w, svcIAM, "", "ListOpenIDConnectProviders", func(t *txn) (*iam.ListOpenIDConnectProvidersOutput, error) {
		out := &iam.ListOpenIDConnectProvidersOutput{}
		for _, arn := range sortedKeys(t.st.OIDC) {
			out.OpenIDConnectProviderList = append(out.OpenIDConnectProviderList, iamtypes.OpenIDConnectProviderListEntry{Arn: aws.String(arn)})
		}
		return out, nil
	})
}

// DeleteOpenIDConnectProvider deletes an OIDC provider.
func (a *iamAPI) DeleteOpenIDConnectProvider(ctx context.Context, in *iam.DeleteOpenIDConnectProviderInput, _ ...func(*iam.Options)) (*iam.DeleteOpenIDConnectProviderOutput, error) {
	return call(ctx, a.w, svcIAM, "", "DeleteOpenIDConnectProvider", func(t *txn) (*iam.DeleteOpenIDConnectProviderOutput, error) {
		in := orZero(in)
		if err := need("DeleteOpenIDConnectProviderInput", param{"OpenIDConnectProviderArn", in.OpenIDConnectProviderArn != nil}); err != nil {
			return nil, err
		}
		p, err := t.oidcProvider(in.OpenIDConnectProviderArn)
		if err != nil {
			return nil, err
		}
		delete(t.st.OIDC, p.Arn)
		return &iam.DeleteOpenIDConnectProviderOutput{}, nil
	})
}
