package sim

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ecr"
	ecrtypes "github.com/aws/aws-sdk-go-v2/service/ecr/types"
)

// svcECR counts and faults the simulated ECR API. The control plane
// never calls it: `instantstart image push` does, with the caller's own
// credentials, before the stack exists.
const svcECR = "ecr"

// ECRUser is the user name of every ECR registry password, as docker
// login is given it.
const ECRUser = "AWS"

// ecrTokenLifetime is how long a registry password is good for (12 hours
// in ECR), scaled by the world's speed like every other duration.
const ecrTokenLifetime = 12 * time.Hour

// maxECRTokens bounds the registry passwords the world keeps: a new one
// past it drops the one that expires first.
const maxECRTokens = 64

// ECRAPI is the simulated ECR API of one region: the registry
// authorization a push needs. The registry itself is not simulated; a test
// puts go-containerregistry's in-memory registry behind ECRAPI.Authorized.
type ECRAPI struct {
	w      *World
	region string
}

// ECR returns the simulated ECR API of region.
func (w *World) ECR(region string) (*ECRAPI, error) {
	if _, ok := w.catalog.region(region); !ok {
		return nil, w.unknownRegion(region)
	}
	return &ECRAPI{w: w, region: region}, nil
}

// RegistryHost is the host of the account's registry in the region,
// ACCOUNT.dkr.ecr.REGION.amazonaws.com.
func (a *ECRAPI) RegistryHost() string {
	return fmt.Sprintf("%s.dkr.ecr.%s.amazonaws.com", a.w.account, a.region)
}

// GetAuthorizationToken answers as ECR does: one authorization data whose
// token is base64("AWS:" + password), its expiry and the registry's
// endpoint. The deprecated registryIds are refused when they name another
// account's registry.
func (a *ECRAPI) GetAuthorizationToken(ctx context.Context, in *ecr.GetAuthorizationTokenInput, _ ...func(*ecr.Options)) (*ecr.GetAuthorizationTokenOutput, error) {
	in = orZero(in)
	return call(ctx, a.w, svcECR, a.region, "GetAuthorizationToken", func(t *txn) (*ecr.GetAuthorizationTokenOutput, error) {
		for _, id := range in.RegistryIds {
			if id != t.account() {
				return nil, &ecrtypes.InvalidParameterException{Message: aws.String(fmt.Sprintf("registry %s is not the caller's account's (%s)", id, t.account()))}
			}
		}
		password := t.randString(upperAlnum+lowerAlnum, 48)
		expires := t.after(ecrTokenLifetime)
		if t.st.ECRTokens == nil {
			t.st.ECRTokens = map[string]time.Time{}
		}
		for len(t.st.ECRTokens) >= maxECRTokens {
			var first string
			for p, at := range t.st.ECRTokens {
				if first == "" || at.Before(t.st.ECRTokens[first]) || (at.Equal(t.st.ECRTokens[first]) && p < first) {
					first = p
				}
			}
			delete(t.st.ECRTokens, first)
		}
		t.st.ECRTokens[password] = expires
		return &ecr.GetAuthorizationTokenOutput{AuthorizationData: []ecrtypes.AuthorizationData{{
			AuthorizationToken: aws.String(base64.StdEncoding.EncodeToString([]byte(ECRUser + ":" + password))),
			ExpiresAt:          aws.Time(expires),
			ProxyEndpoint:      aws.String("https://" + a.RegistryHost()),
		}}}, nil
	})
}

// Authorized tells whether user and password are a registry login that
// GetAuthorizationToken handed out and that has not expired: what the
// registry checks of a push's basic authentication.
func (a *ECRAPI) Authorized(user, password string) bool {
	if user != ECRUser || password == "" {
		return false
	}
	a.w.mu.Lock()
	defer a.w.mu.Unlock()
	expires, ok := a.w.st.ECRTokens[password]
	return ok && a.w.clock().Before(expires)
}
