package auth

import (
	"context"
	"testing"
)

func TestIdentityTravelsInTheContext(t *testing.T) {
	bare := context.Background()
	if IdentityOf(bare) != nil || Caller(bare) != "" {
		t.Fatalf("a context without a caller gave %+v, %q", IdentityOf(bare), Caller(bare))
	}
	id := &Identity{TokenID: "tok-1", Name: "deployer", Role: Operator}
	ctx := WithIdentity(bare, id)
	if IdentityOf(ctx) != id {
		t.Errorf("IdentityOf = %+v, want the identity that was set", IdentityOf(ctx))
	}
	if Caller(ctx) != "deployer" {
		t.Errorf("Caller = %q, want the token's name", Caller(ctx))
	}
}
