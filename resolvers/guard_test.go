package resolvers

import (
	"context"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/errs"
)

// A connection keeps the identity it authenticated with; the guard refuses
// that identity from the moment its credential ends, before the connection
// is closed.
func TestGuardRefusesAnIdentityWhoseCredentialEnded(t *testing.T) {
	r := newTestResolver(t)
	svc := auth.New(r.Store, auth.Options{})
	secret, tok, err := svc.Create(auth.Identity{Name: "test"}, "deployer", auth.Operator, nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := svc.Authenticate(secret)
	if err != nil {
		t.Fatal(err)
	}
	guard := Guard(svc, nil)
	mutation := func() (called bool, err error) {
		ctx := auth.WithIdentity(context.Background(), id)
		ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Object: "Mutation",
			Field: graphql.CollectedField{Field: &ast.Field{Name: "createCluster", Definition: &ast.FieldDefinition{Name: "createCluster"}}}})
		_, err = guard(ctx, func(context.Context) (any, error) { called = true; return nil, nil })
		return called, err
	}
	if called, err := mutation(); !called || err != nil {
		t.Fatalf("before revocation: called %v, err %v", called, err)
	}
	if _, err := svc.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	called, err := mutation()
	if called || errs.CodeOf(err) != errs.Unauthenticated {
		t.Fatalf("after revocation: called %v, err %v; want UNAUTHENTICATED and no call", called, err)
	}
}
