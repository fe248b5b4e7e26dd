package server_test

import (
	"testing"

	"github.com/instantstart/instantstart/resolvers/server"
)

const updateFeatures = `mutation($c: ID!, $in: UpdateClusterFeaturesInput!) { updateClusterFeatures(clusterId: $c, input: $in) { id statusQuery } }`

// TestFeaturesOverGraphQL turns tiered checkpointing on through the API,
// reads the feature table, and sees the second identical toggle as a
// no-op and a bad bucket refused on its field.
func TestFeaturesOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Region: "us-west-2"})
	clusterID := createClusterOverGraphQL(t, srv, "features-e2e")
	enable := map[string]any{"tieredCheckpointing": map[string]any{"enabled": true, "bucket": "ckpt-e2e", "memoryPercentage": 30}}

	toggle := func() (id string, noop bool) {
		t.Helper()
		res := query(t, srv, updateFeatures, map[string]any{"c": clusterID, "in": enable})
		var out struct {
			UpdateClusterFeatures struct{ ID, StatusQuery string }
		}
		mustDecode(t, res, &out)
		if out.UpdateClusterFeatures.StatusQuery != "clusterFeatures" {
			t.Fatalf("status query %q", out.UpdateClusterFeatures.StatusQuery)
		}
		if s := waitOperation(t, srv, out.UpdateClusterFeatures.ID); s != "SUCCEEDED" {
			t.Fatalf("updateClusterFeatures ended %s", s)
		}
		res = query(t, srv, `query($id: ID!) { operation(id: $id) { noop } }`, map[string]any{"id": out.UpdateClusterFeatures.ID})
		var op struct{ Operation struct{ Noop bool } }
		mustDecode(t, res, &op)
		return out.UpdateClusterFeatures.ID, op.Operation.Noop
	}
	first, noop := toggle()
	if noop {
		t.Fatal("the first toggle was a no-op")
	}

	res := query(t, srv, `query($c: ID!) { clusterFeatures(clusterId: $c) { name status resources { kind ref } tieredCheckpointing { bucket memoryPercentage serviceAccount } lastOperation { id } } }`,
		map[string]any{"c": clusterID})
	var table struct {
		ClusterFeatures []struct {
			Name, Status        string
			Resources           []struct{ Kind, Ref string }
			TieredCheckpointing *struct {
				Bucket           string
				MemoryPercentage int
				ServiceAccount   string
			}
			LastOperation *struct{ ID string }
		}
	}
	mustDecode(t, res, &table)
	seen := map[string]string{}
	for _, f := range table.ClusterFeatures {
		seen[f.Name] = f.Status
		if f.Name != "TIERED_CHECKPOINTING" {
			continue
		}
		if len(f.Resources) != 4 || f.TieredCheckpointing == nil || f.TieredCheckpointing.Bucket != "ckpt-e2e" || f.TieredCheckpointing.MemoryPercentage != 30 ||
			f.TieredCheckpointing.ServiceAccount != "tiered-checkpointing" || f.LastOperation == nil || f.LastOperation.ID != first {
			t.Fatalf("tiered checkpointing row %+v", f)
		}
	}
	if seen["TIERED_CHECKPOINTING"] != "ENABLED" || seen["NODE_AUTO_RECOVERY"] != "ENABLED" || seen["TRAINING_OPERATOR"] != "DISABLED" {
		t.Fatalf("feature table %v", seen)
	}

	if _, noop := toggle(); !noop {
		t.Fatal("enabling again was not a no-op")
	}

	res = query(t, srv, updateFeatures, map[string]any{"c": clusterID, "in": map[string]any{"tieredCheckpointing": map[string]any{"enabled": true, "bucket": "Not A Bucket"}}})
	if c := code(res); c != "VALIDATION" || len(res.Errors) == 0 || res.Errors[0].Extensions["field"] != "input.tieredCheckpointing.bucket" {
		t.Fatalf("bad bucket: %+v", res.Errors)
	}
}
