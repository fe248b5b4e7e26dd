package server_test

import (
	"testing"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

const updateFeatures = `mutation($c: ID!, $in: UpdateClusterFeaturesInput!) { updateClusterFeatures(clusterId: $c, input: $in) { id statusQuery } }`

// TestFeaturesOverGraphQL turns tiered checkpointing on through the API,
// reads the feature table, and sees the second identical toggle as a
// no-op and a bad bucket refused on its field.
func TestFeaturesOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
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

// TestAddOnFeaturesOverGraphQL turns the add-on and Helm features on
// through the API in one request and reads their settings back.
func TestAddOnFeaturesOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	clusterID := createClusterOverGraphQL(t, srv, "addons-e2e")
	ws := "arn:aws:aps:us-west-2:123456789012:workspace/ws-e2e"
	in := map[string]any{
		"s3CsiDriver":       map[string]any{"enabled": true, "buckets": []string{"datasets"}},
		"observability":     map[string]any{"enabled": true, "prometheusWorkspaceArn": ws},
		"inferenceOperator": map[string]any{"enabled": true, "tlsCertificateBucket": "tls-e2e"},
		"kubeRay":           true,
		"keda":              true,
	}
	res := query(t, srv, updateFeatures, map[string]any{"c": clusterID, "in": in})
	var out struct {
		UpdateClusterFeatures struct{ ID string }
	}
	mustDecode(t, res, &out)
	if s := waitOperation(t, srv, out.UpdateClusterFeatures.ID); s != "SUCCEEDED" {
		t.Fatalf("updateClusterFeatures ended %s", s)
	}
	res = query(t, srv, `query($c: ID!) { clusterFeatures(clusterId: $c) { name status resources { kind }
		s3CsiDriver { buckets } observability { prometheusWorkspaceArn } inferenceOperator { tlsCertificateBucket } deepHealthChecks { instanceGroups checks } } }`,
		map[string]any{"c": clusterID})
	var table struct {
		ClusterFeatures []struct {
			Name, Status      string
			Resources         []struct{ Kind string }
			S3CsiDriver       *struct{ Buckets []string }
			Observability     *struct{ PrometheusWorkspaceArn string }
			InferenceOperator *struct{ TLSCertificateBucket string }
		}
	}
	mustDecode(t, res, &table)
	seen := map[string]string{}
	for _, f := range table.ClusterFeatures {
		seen[f.Name] = f.Status
		switch {
		case f.Name == "S3_CSI_DRIVER" && (f.S3CsiDriver == nil || len(f.S3CsiDriver.Buckets) != 1 || f.S3CsiDriver.Buckets[0] != "datasets"),
			f.Name == "OBSERVABILITY" && (f.Observability == nil || f.Observability.PrometheusWorkspaceArn != ws),
			f.Name == "INFERENCE_OPERATOR" && (f.InferenceOperator == nil || f.InferenceOperator.TLSCertificateBucket != "tls-e2e"),
			f.Name == "KUBERAY" && (len(f.Resources) != 1 || f.Resources[0].Kind != "HELM_RELEASE"):
			t.Fatalf("row %+v", f)
		}
	}
	for _, name := range []string{"S3_CSI_DRIVER", "OBSERVABILITY", "INFERENCE_OPERATOR", "KUBERAY", "KEDA"} {
		if seen[name] != "ENABLED" {
			t.Fatalf("feature table %v", seen)
		}
	}
	if seen["DEEP_HEALTH_CHECKS"] == "" {
		t.Fatalf("no deep health checks row: %v", seen)
	}

	res = query(t, srv, updateFeatures, map[string]any{"c": clusterID, "in": map[string]any{"observability": map[string]any{"enabled": true, "prometheusWorkspaceArn": "ws-1"}}})
	if c := code(res); c != "VALIDATION" || len(res.Errors) == 0 || res.Errors[0].Extensions["field"] != "input.observability.prometheusWorkspaceArn" {
		t.Fatalf("bad workspace: %+v", res.Errors)
	}
}
