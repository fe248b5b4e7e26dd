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
}
