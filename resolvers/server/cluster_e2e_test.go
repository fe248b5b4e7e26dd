package server_test

import (
	"slices"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/resolvers/server"
	"github.com/instantstart/instantstart/resolvers/server/gqltest"
)

const opEventsQuery = `subscription($since: String, $ids: [ID!]) {
  events(since: $since, filter: {ids: $ids}) { cursor action operation { id status phases { name status attempt } } }
}`

type opEvent struct {
	Events struct {
		Cursor    string
		Action    string
		Operation *struct {
			ID     string
			Status string
			Phases []struct {
				Name    string
				Status  string
				Attempt int
			}
		}
	}
}

// TestClusterLifecycleEndToEnd creates a cluster over a graphql-transport-ws
// WebSocket, receives every stored change of its operation through the
// events subscription until SUCCEEDED, reads the cluster, and deletes it.
func TestClusterLifecycleEndToEnd(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	ctx := testContext(t)
	c := dial(t, srv)

	res, err := c.Query(ctx, `mutation($in: CreateClusterInput!) { createCluster(input: $in, idempotencyKey: "e2e-1") { id status statusQuery target { id kind name } } }`,
		map[string]any{"in": map[string]any{"name": "e2e", "zones": []string{"us-west-2a", "us-west-2b"},
			"instanceGroups": []any{map[string]any{"name": "gpu", "instanceType": "ml.p5.48xlarge", "count": 2}}}})
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		CreateCluster struct {
			ID, Status, StatusQuery string
			Target                  struct{ ID, Kind, Name string }
		}
	}
	if err := res.Decode(&created); err != nil {
		t.Fatal(err)
	}
	op := created.CreateCluster
	if op.StatusQuery != "cluster" || op.Target.Kind != "CLUSTER" || op.Target.Name != "e2e" {
		t.Fatalf("created %+v", op)
	}

	// Every change of the operation, from its first event on.
	ch, err := c.Subscribe(ctx, opEventsQuery, map[string]any{"since": "0", "ids": []string{op.ID}})
	if err != nil {
		t.Fatal(err)
	}
	var cursors []uint64
	seen := map[string][]string{} // phase -> statuses in the order received
	for done := false; !done; {
		ev := nextOpEvent(t, ch)
		cursors = append(cursors, cursor(t, ev.Events.Cursor))
		o := ev.Events.Operation
		for _, p := range o.Phases {
			if s := seen[p.Name]; len(s) == 0 || s[len(s)-1] != p.Status {
				seen[p.Name] = append(seen[p.Name], p.Status)
			}
		}
		switch o.Status {
		case "SUCCEEDED":
			done = true
		case "FAILED", "CANCELLED":
			t.Fatalf("operation ended %s", o.Status)
		}
	}
	// No gap, no duplicate: exactly the stored events of the operation.
	var stored []uint64
	if err := srv.Store().History(0, cursors[len(cursors)-1], store.Filter{IDs: []string{op.ID}}, func(ev *store.Event) (bool, error) {
		stored = append(stored, ev.Seq)
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(stored, cursors) {
		t.Fatalf("received events %v, stored %v", cursors, stored)
	}
	for _, name := range []string{"iam-roles", "vpc", "subnets", "nat-gateway", "eks-cluster", "oidc-provider", "cluster-access", "system-nodes", "base-addons", "compute-subnet", "hyperpod-cluster"} {
		got := seen[name]
		if len(got) < 3 || got[0] != "PENDING" || got[1] != "RUNNING" || got[len(got)-1] != "SUCCEEDED" {
			t.Fatalf("phase %s went through %v, want PENDING, RUNNING ... SUCCEEDED", name, got)
		}
		// EKS gives the cluster's creator admin access itself, so that phase's
		// goal already holds when it is Observed and nothing is applied.
		if applied := slices.Contains(got, "WAITING"); applied != (name != "cluster-access") {
			t.Fatalf("phase %s went through %v", name, got)
		}
	}

	var cl struct {
		Cluster struct {
			Status, Region, KubernetesVersion string
			Network                           struct {
				VpcID   string
				Subnets []struct{ Zone, Cidr, Role string }
			}
			Eks           struct{ Status, AuthenticationMode string }
			HyperPod      struct{ Status, NodeRecovery, NodeProvisioningMode string }
			LastOperation struct{ ID string }
			Operations    struct{ TotalCount int }
		}
	}
	res = query(t, srv, `query($id: ID!) { cluster(id: $id) { status region kubernetesVersion network { vpcId subnets { zone cidr role } }
		eks { status authenticationMode } hyperPod { status nodeRecovery nodeProvisioningMode } lastOperation { id } operations { totalCount } } }`,
		map[string]any{"id": op.Target.ID})
	if err := res.Decode(&cl); err != nil {
		t.Fatal(err)
	}
	got := cl.Cluster
	if got.Status != "ACTIVE" || got.Region != "us-west-2" || got.Eks.Status != "ACTIVE" || got.Eks.AuthenticationMode != "API" ||
		got.HyperPod.Status != "InService" || got.HyperPod.NodeRecovery != "Automatic" || got.HyperPod.NodeProvisioningMode != "Continuous" ||
		len(got.Network.Subnets) != 5 || got.LastOperation.ID != op.ID || got.Operations.TotalCount != 1 {
		t.Fatalf("cluster = %+v", got)
	}

	// The same idempotency key returns the same operation.
	res = query(t, srv, `mutation { createCluster(input: {name: "e2e", zones: ["us-west-2a", "us-west-2b"], instanceGroups: [{name: "gpu", instanceType: "ml.p5.48xlarge", count: 2}]}, idempotencyKey: "e2e-1") { id } }`, nil)
	var again struct{ CreateCluster struct{ ID string } }
	if err := res.Decode(&again); err != nil || again.CreateCluster.ID != op.ID {
		t.Fatalf("retried create: %+v %v, want operation %s", again, err, op.ID)
	}

	res = query(t, srv, `mutation($id: ID!) { deleteCluster(id: $id) { id } }`, map[string]any{"id": op.Target.ID})
	var del struct{ DeleteCluster struct{ ID string } }
	if err := res.Decode(&del); err != nil {
		t.Fatal(err)
	}
	if status := waitOperation(t, srv, del.DeleteCluster.ID); status != "SUCCEEDED" {
		t.Fatalf("delete ended %s", status)
	}
	res = query(t, srv, `query($id: ID!) { cluster(id: $id) { status } clusters { totalCount } }`, map[string]any{"id": op.Target.ID})
	var after struct {
		Cluster  struct{ Status string }
		Clusters struct{ TotalCount int }
	}
	if err := res.Decode(&after); err != nil || after.Cluster.Status != "DELETED" || after.Clusters.TotalCount != 0 {
		t.Fatalf("after delete: %+v %v", after, err)
	}
}

func nextOpEvent(t *testing.T, ch <-chan gqltest.Response) opEvent {
	t.Helper()
	res := next(t, ch)
	var ev opEvent
	if err := res.Decode(&ev); err != nil {
		t.Fatal(err)
	}
	if ev.Events.Operation == nil {
		t.Fatalf("event without an operation: %s", res.Data)
	}
	return ev
}

// waitOperation follows an operation with the waitOperation query until it ends.
func waitOperation(t *testing.T, srv *server.Server, id string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		res := query(t, srv, `query($id: ID!) { waitOperation(id: $id, timeoutSeconds: 5) { status } }`, map[string]any{"id": id})
		var w struct{ WaitOperation struct{ Status string } }
		if err := res.Decode(&w); err != nil {
			t.Fatal(err)
		}
		switch w.WaitOperation.Status {
		case "SUCCEEDED", "FAILED", "CANCELLED":
			return w.WaitOperation.Status
		}
	}
	t.Fatalf("operation %s did not end", id)
	return ""
}
