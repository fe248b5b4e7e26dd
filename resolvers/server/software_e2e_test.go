package server_test

import (
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/resolvers/server"
)

type softwareRow struct {
	ImageVersion, TargetImageVersion *string
	ImageVersionStatus               string
	UpdateStatus                     *string
}

// groupSoftware reads the software of an instance group over GraphQL, and
// its nodes' images.
func groupSoftware(t *testing.T, srv *server.Server, groupID string) (softwareRow, []struct {
	ImageVersion       *string
	ImageVersionStatus string
}) {
	t.Helper()
	res := query(t, srv, `query($id: ID!) { instanceGroup(id: $id) {
	  software { imageVersion targetImageVersion imageVersionStatus updateStatus }
	  nodes { imageVersion imageVersionStatus } } }`, map[string]any{"id": groupID})
	var got struct {
		InstanceGroup struct {
			Software softwareRow
			Nodes    []struct {
				ImageVersion       *string
				ImageVersionStatus string
			}
		}
	}
	mustDecode(t, res, &got)
	return got.InstanceGroup.Software, got.InstanceGroup.Nodes
}

// TestUpdateClusterSoftwareOverGraphQL patches a cluster through the API:
// the group shows its image and that a newer one is available, a bad
// rolling update is refused at its field, and the update ends with the
// group and its nodes on the new image.
func TestUpdateClusterSoftwareOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	clusterID := createClusterOverGraphQL(t, srv, "software-e2e")
	res := query(t, srv, `mutation($in: AddInstanceGroupInput!) { addInstanceGroup(input: $in) { id target { id } } }`,
		map[string]any{"in": map[string]any{"clusterId": clusterID, "name": "workers", "instanceType": "ml.g5.12xlarge", "count": 2, "zone": "us-west-2a"}})
	var added struct {
		AddInstanceGroup struct {
			ID     string
			Target struct{ ID string }
		}
	}
	mustDecode(t, res, &added)
	if s := waitOperation(t, srv, added.AddInstanceGroup.ID); s != "SUCCEEDED" {
		t.Fatalf("addInstanceGroup ended %s", s)
	}
	waitNodes(t, srv, clusterID, func(ns []nodeRow) bool {
		return len(ns) == 2 && ns[0].Status == "RUNNING" && ns[1].Status == "RUNNING"
	})
	groupID := added.AddInstanceGroup.Target.ID
	// The group's software and the nodes' images come with the refresh
	// that follows the nodes, which may be one pass after their status.
	var sw softwareRow
	var nodes []struct {
		ImageVersion       *string
		ImageVersionStatus string
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		sw, nodes = groupSoftware(t, srv, groupID)
		if sw.ImageVersion != nil && len(nodes) == 2 && nodes[0].ImageVersion != nil && nodes[1].ImageVersion != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling the API under test, with a deadline
	}
	if sw.ImageVersion == nil || *sw.ImageVersion != sim.ImageVersionCurrent || sw.ImageVersionStatus != "UPDATE_AVAILABLE" || sw.UpdateStatus != nil {
		t.Fatalf("a new group's software: %+v", sw)
	}
	for _, n := range nodes {
		if n.ImageVersion == nil || *n.ImageVersion != sim.ImageVersionCurrent || n.ImageVersionStatus != "UPDATE_AVAILABLE" {
			t.Fatalf("a new node's image: %+v", n)
		}
	}

	const update = `mutation($c: ID!, $g: [String!], $r: RollingUpdateInput!) {
	  updateClusterSoftware(clusterId: $c, instanceGroups: $g, rollingUpdate: $r) { id statusQuery } }`
	res = query(t, srv, update, map[string]any{"c": clusterID, "g": []string{"workers", "nope"}, "r": map[string]any{"maxUnavailablePercent": 0}})
	fields := map[string]bool{}
	for _, e := range res.Errors {
		if e.Code() != "VALIDATION" {
			t.Fatalf("a bad update: %s (%s)", e.Message, e.Code())
		}
		f, _ := e.Extensions["field"].(string)
		fields[f] = true
	}
	if !fields["rollingUpdate.maxUnavailablePercent"] {
		t.Fatalf("a bad update: %+v", res.Errors)
	}

	res = query(t, srv, update, map[string]any{"c": clusterID, "g": []string{"workers"}, "r": map[string]any{"maxUnavailablePercent": 50, "autoRollback": true}})
	var started struct {
		UpdateClusterSoftware struct{ ID, StatusQuery string }
	}
	mustDecode(t, res, &started)
	if started.UpdateClusterSoftware.StatusQuery != "nodes" {
		t.Fatalf("status query %q", started.UpdateClusterSoftware.StatusQuery)
	}
	if s := waitOperation(t, srv, started.UpdateClusterSoftware.ID); s != "SUCCEEDED" {
		t.Fatalf("updateClusterSoftware ended %s", s)
	}

	// The records follow HyperPod through the refresher.
	deadline := time.Now().Add(30 * time.Second)
	for {
		sw, nodes = groupSoftware(t, srv, groupID)
		done := sw.ImageVersion != nil && *sw.ImageVersion == sim.ImageVersionAvailable && sw.ImageVersionStatus == "UP_TO_DATE" &&
			sw.UpdateStatus != nil && *sw.UpdateStatus == "SUCCEEDED" && len(nodes) == 2
		for _, n := range nodes {
			done = done && n.ImageVersion != nil && *n.ImageVersion == sim.ImageVersionAvailable && n.ImageVersionStatus == "UP_TO_DATE"
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the update the group's software is %+v and its nodes %+v", sw, nodes)
		}
		time.Sleep(20 * time.Millisecond) // polling the API under test, with a deadline
	}
}
