package server_test

import (
	"testing"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

// TestClusterAccessOverGraphQL: an ADMIN grants a principal VIEW in a
// namespace and the cluster's accessEntries list it beside InstantStart's
// own entry; an OPERATOR may not grant; revoking InstantStart's own
// principal is PRECONDITION; a revoke removes the entry from the list.
func TestClusterAccessOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	id := createClusterOverGraphQL(t, srv, "access-e2e")
	const alice = "arn:aws:iam::123456789012:user/alice"
	grant := `mutation($id: ID!, $p: String!) { grantClusterAccess(clusterId: $id, principalArn: $p, access: VIEW, namespaces: ["team-a"]) { id kind statusQuery } }`

	_, operator := newToken(t, srv, "operator", "OPERATOR", nil)
	res := queryAs(t, srv, operator, grant, map[string]any{"id": id, "p": alice})
	if len(res.Errors) != 1 || res.Errors[0].Code() != "FORBIDDEN" {
		t.Fatalf("an OPERATOR granted access: %s %+v", res.Data, res.Errors)
	}

	res = query(t, srv, grant, map[string]any{"id": id, "p": alice})
	var g struct {
		GrantClusterAccess struct{ ID, Kind, StatusQuery string }
	}
	mustDecode(t, res, &g)
	if g.GrantClusterAccess.Kind != "GrantClusterAccess" || g.GrantClusterAccess.StatusQuery != "cluster" {
		t.Fatalf("grant %+v", g.GrantClusterAccess)
	}
	if s := waitOperation(t, srv, g.GrantClusterAccess.ID); s != "SUCCEEDED" {
		t.Fatalf("grant ended %s", s)
	}

	type entry struct {
		PrincipalArn, Type, Origin string
		Access, GrantedBy          *string
		Namespaces, PolicyArns     []string
	}
	list := func() map[string]entry {
		res := query(t, srv, `query($id: ID!) { cluster(id: $id) { accessEntries { principalArn type access namespaces policyArns origin grantedBy createdAt grantedAt } } }`, map[string]any{"id": id})
		var got struct {
			Cluster struct{ AccessEntries []entry }
		}
		mustDecode(t, res, &got)
		out := map[string]entry{}
		for _, e := range got.Cluster.AccessEntries {
			out[e.PrincipalArn] = e
		}
		return out
	}
	entries := list()
	a, engine := entries[alice], entries["arn:aws:iam::123456789012:role/InstantStartManagement"]
	if a.Access == nil || *a.Access != "VIEW" || len(a.Namespaces) != 1 || a.Namespaces[0] != "team-a" || a.Origin != "INSTANTSTART" || a.GrantedBy == nil || a.Type != "STANDARD" {
		t.Fatalf("alice's entry %+v", a)
	}
	if engine.Origin != "ENGINE" || engine.Access == nil || *engine.Access != "ADMIN" {
		t.Fatalf("InstantStart's own entry %+v", engine)
	}

	res = query(t, srv, `mutation($id: ID!) { revokeClusterAccess(clusterId: $id, principalArn: "arn:aws:iam::123456789012:role/InstantStartManagement") { id } }`, map[string]any{"id": id})
	if len(res.Errors) != 1 || res.Errors[0].Code() != "PRECONDITION" {
		t.Fatalf("revoking InstantStart's own access: %s %+v", res.Data, res.Errors)
	}
	res = query(t, srv, `mutation($id: ID!) { grantClusterAccess(clusterId: $id, principalArn: "arn:aws:iam::123456789012:user/bob", access: ADMIN, namespaces: ["x"]) { id } }`, map[string]any{"id": id})
	if len(res.Errors) != 1 || res.Errors[0].Code() != "VALIDATION" {
		t.Fatalf("ADMIN in a namespace: %s %+v", res.Data, res.Errors)
	}

	res = query(t, srv, `mutation($id: ID!, $p: String!) { revokeClusterAccess(clusterId: $id, principalArn: $p) { id } }`, map[string]any{"id": id, "p": alice})
	var r struct{ RevokeClusterAccess struct{ ID string } }
	mustDecode(t, res, &r)
	if s := waitOperation(t, srv, r.RevokeClusterAccess.ID); s != "SUCCEEDED" {
		t.Fatalf("revoke ended %s", s)
	}
	if e, ok := list()[alice]; ok {
		t.Fatalf("revoked, still listed: %+v", e)
	}
}
