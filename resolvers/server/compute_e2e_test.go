package server_test

import (
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
	"github.com/instantstart/instantstart/resolvers/server/gqltest"
)

// createClusterOverGraphQL creates an ACTIVE cluster in us-west-2a and
// us-west-2b with no instance group and returns its id.
func createClusterOverGraphQL(t *testing.T, srv *server.Server, name string) string {
	t.Helper()
	res := query(t, srv, `mutation($in: CreateClusterInput!) { createCluster(input: $in) { id target { id } } }`,
		map[string]any{"in": map[string]any{"name": name, "zones": []string{"us-west-2a", "us-west-2b"}}})
	var created struct {
		CreateCluster struct {
			ID     string
			Target struct{ ID string }
		}
	}
	mustDecode(t, res, &created)
	if s := waitOperation(t, srv, created.CreateCluster.ID); s != "SUCCEEDED" {
		t.Fatalf("cluster creation ended %s", s)
	}
	return created.CreateCluster.Target.ID
}

func mustDecode(t *testing.T, res *gqltest.Response, v any) {
	t.Helper()
	if err := res.Decode(v); err != nil {
		t.Fatal(err)
	}
}

type nodeRow struct {
	ID, InstanceGroupName, Status, Health, DeepHealthCheck, Zone, CapacityType string
}

// waitNodes polls the nodes query until ready accepts them.
func waitNodes(t *testing.T, srv *server.Server, clusterID string, ready func([]nodeRow) bool) []nodeRow {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last []nodeRow
	for time.Now().Before(deadline) {
		res := query(t, srv, `query($c: ID!) { nodes(clusterId: $c) { totalCount edges { node { id instanceGroupName status health deepHealthCheck zone capacityType } } } }`,
			map[string]any{"c": clusterID})
		var out struct {
			Nodes struct{ Edges []struct{ Node nodeRow } }
		}
		mustDecode(t, res, &out)
		last = last[:0]
		for _, e := range out.Nodes.Edges {
			last = append(last, e.Node)
		}
		if ready(last) {
			return last
		}
		time.Sleep(20 * time.Millisecond) // polling the API under test, with a deadline
	}
	t.Fatalf("nodes never got ready: %+v", last)
	return nil
}

// TestInstanceGroupsAndNodesOverGraphQL adds a group through the API, sees
// its nodes come up healthy, refuses a change of a fixed field, no-ops a
// scale to the actual count, and reads the preflight capacity queries.
func TestInstanceGroupsAndNodesOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	clusterID := createClusterOverGraphQL(t, srv, "compute-e2e")

	res := query(t, srv, `query { instanceQuota(instanceType: "ml.g5.12xlarge") { quotaName limit inUse available }
	  trainingPlans { arn instanceType zone availableCount } importableClusters { eksClusterName } }`, nil)
	var pre struct {
		InstanceQuota struct {
			QuotaName string
			Limit     *float64
			InUse     int
			Available *int
		}
		TrainingPlans []struct {
			Arn, InstanceType, Zone string
			AvailableCount          int
		}
		ImportableClusters []struct{ EKSClusterName string }
	}
	mustDecode(t, res, &pre)
	if pre.InstanceQuota.QuotaName != "ml.g5.12xlarge for cluster usage" || pre.InstanceQuota.Limit == nil || pre.InstanceQuota.InUse != 0 {
		t.Fatalf("quota %+v", pre.InstanceQuota)
	}
	if len(pre.TrainingPlans) == 0 || pre.TrainingPlans[0].Zone == "" || pre.TrainingPlans[0].AvailableCount == 0 {
		t.Fatalf("training plans %+v", pre.TrainingPlans)
	}
	if len(pre.ImportableClusters) != 0 {
		t.Fatalf("the managed cluster is listed as importable: %+v", pre.ImportableClusters)
	}

	res = query(t, srv, `mutation($in: AddInstanceGroupInput!) { addInstanceGroup(input: $in, idempotencyKey: "add-1") { id statusQuery target { id kind } } }`,
		map[string]any{"in": map[string]any{"clusterId": clusterID, "name": "workers", "instanceType": "ml.g5.12xlarge", "count": 2, "zone": "us-west-2b",
			"deepHealthChecks": []string{"InstanceConnectivity"}, "labels": []any{map[string]any{"key": "team", "value": "vision"}}}})
	var added struct {
		AddInstanceGroup struct {
			ID, StatusQuery string
			Target          struct{ ID, Kind string }
		}
	}
	mustDecode(t, res, &added)
	if added.AddInstanceGroup.StatusQuery != "instanceGroup" || added.AddInstanceGroup.Target.Kind != "INSTANCE_GROUP" {
		t.Fatalf("added %+v", added)
	}
	if s := waitOperation(t, srv, added.AddInstanceGroup.ID); s != "SUCCEEDED" {
		t.Fatalf("addInstanceGroup ended %s", s)
	}
	groupID := added.AddInstanceGroup.Target.ID

	nodes := waitNodes(t, srv, clusterID, func(ns []nodeRow) bool {
		healthy := 0
		for _, n := range ns {
			if n.InstanceGroupName == "workers" && n.Status == "RUNNING" && n.Health == "SCHEDULABLE" && n.DeepHealthCheck == "PASSED" {
				healthy++
			}
		}
		return healthy == 2
	})
	for _, n := range nodes {
		if n.InstanceGroupName == "workers" && (n.Zone != "us-west-2b" || n.CapacityType != "ON_DEMAND") {
			t.Fatalf("node %+v", n)
		}
	}

	// The group record follows HyperPod through the refresher.
	var got struct {
		InstanceGroup struct {
			Name, Status, Zone, SubnetID              string
			TargetCount, CurrentCount, ThreadsPerCore int
			Labels                                    []struct{ Key, Value string }
			Nodes                                     []struct{ ID string }
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		res = query(t, srv, `query($id: ID!) { instanceGroup(id: $id) { name status targetCount currentCount zone subnetId threadsPerCore labels { key value } nodes { id } } }`,
			map[string]any{"id": groupID})
		mustDecode(t, res, &got)
		if g := got.InstanceGroup; (g.Status == "IN_SERVICE" && g.CurrentCount == 2) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling the API under test, with a deadline
	}
	g := got.InstanceGroup
	if g.Status != "IN_SERVICE" || g.TargetCount != 2 || g.CurrentCount != 2 || g.Zone != "us-west-2b" || g.SubnetID == "" || len(g.Nodes) != 2 ||
		len(g.Labels) != 1 || g.Labels[0].Value != "vision" {
		t.Fatalf("instance group %+v", g)
	}

	// A fixed field refused with its code and field; nothing else happens.
	res = query(t, srv, `mutation($id: ID!) { updateInstanceGroup(id: $id, input: {capacityType: SPOT}) { id } }`, map[string]any{"id": groupID})
	if c := code(res); c != "IMMUTABLE_FIELD" {
		t.Fatalf("changing the capacity type: code %q, errors %+v", c, res.Errors)
	}

	// Scaling to the actual count is a no-op.
	res = query(t, srv, `mutation($id: ID!) { scaleInstanceGroup(id: $id, count: 2) { id } }`, map[string]any{"id": groupID})
	var scaled struct{ ScaleInstanceGroup struct{ ID string } }
	mustDecode(t, res, &scaled)
	if s := waitOperation(t, srv, scaled.ScaleInstanceGroup.ID); s != "SUCCEEDED" {
		t.Fatalf("scale ended %s", s)
	}
	res = query(t, srv, `query($id: ID!) { operation(id: $id) { noop } }`, map[string]any{"id": scaled.ScaleInstanceGroup.ID})
	var op struct{ Operation struct{ Noop bool } }
	mustDecode(t, res, &op)
	if !op.Operation.Noop {
		t.Fatal("scaling to the actual count was not a no-op")
	}

	// The diagnosis of a healthy node names no step.
	res = query(t, srv, `query($id: ID!) { nodeDiagnosis(id: $id) { nextStep autoRecovery node { health } } }`, map[string]any{"id": g.Nodes[0].ID})
	var diag struct {
		NodeDiagnosis struct {
			NextStep     string
			AutoRecovery bool
			Node         struct{ Health string }
		}
	}
	mustDecode(t, res, &diag)
	if diag.NodeDiagnosis.NextStep != "NONE" || !diag.NodeDiagnosis.AutoRecovery || diag.NodeDiagnosis.Node.Health != "SCHEDULABLE" {
		t.Fatalf("diagnosis %+v", diag.NodeDiagnosis)
	}
}
