package server_test

import (
	"slices"
	"testing"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

func TestClusterDependenciesOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	id := createClusterOverGraphQL(t, srv, "deps-e2e")
	res := query(t, srv, `query($id: ID!) { cluster(id: $id) { dependencies { name version status kind message } } }`, map[string]any{"id": id})
	type dep struct {
		Name, Status, Kind string
		Version, Message   *string
	}
	var got struct{ Cluster struct{ Dependencies []dep } }
	mustDecode(t, res, &got)
	var rows []string
	for _, d := range got.Cluster.Dependencies {
		if d.Version == nil || d.Message != nil {
			t.Fatalf("dependency %+v", d)
		}
		rows = append(rows, d.Name+" "+*d.Version+" "+d.Status+" "+d.Kind)
	}
	want := []string{
		"health-monitoring-agent 1.0.742 INSTALLED HELM",
		"nvidia-device-plugin 0.17.1 INSTALLED HELM",
		"efa-device-plugin v0.5.6 INSTALLED HELM",
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("dependencies %q, want %q", rows, want)
	}

	// With every dependency installed, a repair has nothing to do.
	res = query(t, srv, `mutation($id: ID!) { repairClusterDependencies(clusterId: $id) { id kind statusQuery target { id } } }`, map[string]any{"id": id})
	var repair struct {
		RepairClusterDependencies struct {
			ID, Kind, StatusQuery string
			Target                struct{ ID string }
		}
	}
	mustDecode(t, res, &repair)
	r := repair.RepairClusterDependencies
	if r.Kind != "RepairClusterDependencies" || r.StatusQuery != "cluster" || r.Target.ID != id {
		t.Fatalf("repair %+v", r)
	}
	if s := waitOperation(t, srv, r.ID); s != "SUCCEEDED" {
		t.Fatalf("repair ended %s", s)
	}
	res = query(t, srv, `query($id: ID!) { operation(id: $id) { noop } }`, map[string]any{"id": r.ID})
	var done struct{ Operation struct{ Noop bool } }
	mustDecode(t, res, &done)
	if !done.Operation.Noop {
		t.Fatal("a repair of installed dependencies changed something")
	}
	res = query(t, srv, `mutation { repairClusterDependencies(clusterId: "nope") { id } }`, nil)
	if len(res.Errors) != 1 || res.Errors[0].Code() != "NOT_FOUND" {
		t.Fatalf("a repair of no cluster: %+v", res.Errors)
	}
}
