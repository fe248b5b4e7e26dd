package server_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

const createClusterDoc = `mutation($in: CreateClusterInput!) { createCluster(input: $in) { id target { id } } }`

// TestCreateClusterGroupDecisionsOverGraphQL refuses malformed group
// decisions of createCluster with VALIDATION naming the group's field, then
// creates a cluster with an EFA-only group and a flexible group with labels
// and taints, and reads both back as HyperPod runs them.
func TestCreateClusterGroupDecisionsOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	zones := []string{"us-west-2a", "us-west-2b"}
	gpu := func(patch map[string]any) map[string]any {
		g := map[string]any{"name": "gpu", "instanceType": "ml.g5.12xlarge", "count": 1}
		for k, v := range patch {
			if v == nil {
				delete(g, k)
			} else {
				g[k] = v
			}
		}
		return g
	}
	for _, tc := range []struct {
		name   string
		query  string
		groups []any
		code   string
		field  string
		says   string
	}{
		{"unknown interface mode in a variable", createClusterDoc, []any{gpu(map[string]any{"networkInterfaceMode": "EFA_PLUS"})},
			"VALIDATION", "$in.instanceGroups[0].networkInterfaceMode", "EFA_PLUS"},
		{"interface mode given as a string literal",
			`mutation { createCluster(input: {name: "literal", zones: ["us-west-2a", "us-west-2b"], instanceGroups: [{name: "gpu", instanceType: "ml.g5.12xlarge", count: 1, networkInterfaceMode: "EFA_ONLY"}]}) { id } }`,
			nil, "VALIDATION", "", "NetworkInterfaceMode"},
		{"no instance type", createClusterDoc, []any{gpu(map[string]any{"instanceType": nil})},
			"VALIDATION", "input.instanceGroups[0].instanceType", "instanceTypes"},
		{"instance type listed twice", createClusterDoc, []any{gpu(map[string]any{"instanceType": nil, "instanceTypes": []string{"ml.g5.12xlarge", "ml.g5.12xlarge"}})},
			"VALIDATION", "input.instanceGroups[0].instanceTypes", "listed twice"},
		{"label key of HyperPod's", createClusterDoc,
			[]any{gpu(nil), gpu(map[string]any{"name": "other", "labels": []any{map[string]any{"key": "sagemaker.amazonaws.com/x", "value": "y"}}})},
			"VALIDATION", "input.instanceGroups[1].labels", "sagemaker.amazonaws.com/x"},
		{"a training plan's capacity", createClusterDoc, []any{gpu(map[string]any{"capacityType": "TRAINING_PLAN"})},
			"VALIDATION", "input.instanceGroups[0].capacityType", "addInstanceGroup"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var vars map[string]any
			if tc.groups != nil {
				vars = map[string]any{"in": map[string]any{"name": "refused", "zones": zones, "instanceGroups": tc.groups}}
			}
			res := query(t, srv, tc.query, vars)
			if len(res.Errors) == 0 {
				t.Fatalf("no error; data %s", res.Data)
			}
			e := res.Errors[0]
			if e.Code() != tc.code || (tc.field != "" && e.Extensions["field"] != tc.field) || !strings.Contains(e.Message, tc.says) {
				t.Fatalf("got %s on %v: %q; want %s on %s saying %q", e.Code(), e.Extensions["field"], e.Message, tc.code, tc.field, tc.says)
			}
		})
	}
	var none struct{ Clusters struct{ TotalCount int } }
	mustDecode(t, query(t, srv, `{ clusters(filter: {includeDeleted: true}) { totalCount } }`, nil), &none)
	if none.Clusters.TotalCount != 0 {
		t.Fatalf("refused requests made %d clusters", none.Clusters.TotalCount)
	}

	res := query(t, srv, createClusterDoc, map[string]any{"in": map[string]any{"name": "efa-e2e", "zones": zones, "instanceGroups": []any{
		map[string]any{"name": "efa", "instanceType": "ml.g5.12xlarge", "count": 1, "zone": "us-west-2a", "networkInterfaceMode": "EFA_ONLY"},
		map[string]any{"name": "flex", "instanceTypes": []string{"ml.p4d.24xlarge", "ml.g5.48xlarge"}, "count": 1, "zone": "us-west-2b",
			"labels": []any{map[string]any{"key": "team", "value": "vision"}},
			"taints": []any{map[string]any{"key": "dedicated", "value": "training", "effect": "NO_SCHEDULE"}}},
	}}})
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

	type groupRow struct {
		Name, NetworkInterfaceMode string
		InstanceTypes              []string
		Flexible                   bool
		Labels                     []struct{ Key, Value string }
		Taints                     []struct{ Key, Value, Effect string }
	}
	var got struct {
		Cluster struct {
			RequestedInstanceGroups []struct {
				Name, NetworkInterfaceMode string
				InstanceTypes              []string
			}
			InstanceGroups []groupRow
		}
	}
	// The groups' records follow HyperPod through the refresher.
	for deadline := time.Now().Add(30 * time.Second); ; {
		res = query(t, srv, `query($id: ID!) { cluster(id: $id) {
		  requestedInstanceGroups { name networkInterfaceMode instanceTypes }
		  instanceGroups { name networkInterfaceMode instanceTypes flexible labels { key value } taints { key value effect } } } }`,
			map[string]any{"id": created.CreateCluster.Target.ID})
		mustDecode(t, res, &got)
		if len(got.Cluster.InstanceGroups) == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling the API under test, with a deadline
	}
	groups := map[string]groupRow{}
	for _, g := range got.Cluster.InstanceGroups {
		groups[g.Name] = g
	}
	if g := groups["efa"]; g.NetworkInterfaceMode != "EFA_ONLY" || g.Flexible {
		t.Errorf("group efa reads %+v, want EFA_ONLY", g)
	}
	g := groups["flex"]
	if g.NetworkInterfaceMode != "STANDARD" || !g.Flexible || !slices.Equal(g.InstanceTypes, []string{"ml.p4d.24xlarge", "ml.g5.48xlarge"}) ||
		len(g.Labels) != 1 || g.Labels[0].Value != "vision" || len(g.Taints) != 1 || g.Taints[0].Effect != "NO_SCHEDULE" {
		t.Errorf("group flex reads %+v", g)
	}
	req := got.Cluster.RequestedInstanceGroups
	if len(req) != 2 || req[0].NetworkInterfaceMode != "EFA_ONLY" || req[1].NetworkInterfaceMode != "STANDARD" || len(req[1].InstanceTypes) != 2 {
		t.Errorf("requested groups %+v", req)
	}
}
