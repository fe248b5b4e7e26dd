package server_test

import (
	"testing"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

// TestMLflowFeatureOverGraphQL turns MLFLOW on through the API: refused
// until the cluster has its shared bucket, then a MEDIUM server under the
// bucket's mlflow/ prefix, read back from the feature table, a bad name
// refused on its field, and off again.
func TestMLflowFeatureOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	clusterID := createClusterOverGraphQL(t, srv, "mlflow-e2e")
	on := map[string]any{"mlflow": map[string]any{"enabled": true, "trackingServerSize": "MEDIUM"}}

	res := query(t, srv, updateFeatures, map[string]any{"c": clusterID, "in": on})
	if c := code(res); c != "PRECONDITION" {
		t.Fatalf("MLFLOW without a shared bucket: %+v", res.Errors)
	}
	res = query(t, srv, `mutation($in: AddStorageInput!) { addStorage(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"clusterId": clusterID, "kind": "S3", "s3": map[string]any{"bucket": "mlflow-e2e-data", "create": true}}})
	var added struct{ AddStorage struct{ ID string } }
	mustDecode(t, res, &added)
	if s := waitOperation(t, srv, added.AddStorage.ID); s != "SUCCEEDED" {
		t.Fatalf("addStorage ended %s", s)
	}

	res = query(t, srv, updateFeatures, map[string]any{"c": clusterID, "in": map[string]any{"mlflow": map[string]any{"enabled": true, "trackingServerName": "bad_name"}}})
	if c := code(res); c != "VALIDATION" || len(res.Errors) == 0 || res.Errors[0].Extensions["field"] != "input.mlflow.trackingServerName" {
		t.Fatalf("a bad name: %+v", res.Errors)
	}

	toggle := func(in map[string]any) {
		t.Helper()
		res := query(t, srv, updateFeatures, map[string]any{"c": clusterID, "in": in})
		var out struct{ UpdateClusterFeatures struct{ ID string } }
		mustDecode(t, res, &out)
		if s := waitOperation(t, srv, out.UpdateClusterFeatures.ID); s != "SUCCEEDED" {
			t.Fatalf("updateClusterFeatures ended %s", s)
		}
	}
	type row struct {
		Name, Status string
		Resources    []struct {
			Kind   string
			Shared bool
		}
		Mlflow *struct {
			TrackingServerArn, TrackingServerName, TrackingServerSize, ArtifactStoreUri, Namespace, ServiceAccount string
			Existing                                                                                               bool
		}
	}
	mlflowRow := func() row {
		t.Helper()
		res := query(t, srv, `query($c: ID!) { clusterFeatures(clusterId: $c) { name status resources { kind shared }
			mlflow { trackingServerArn existing trackingServerName trackingServerSize artifactStoreUri namespace serviceAccount } } }`, map[string]any{"c": clusterID})
		var table struct{ ClusterFeatures []row }
		mustDecode(t, res, &table)
		for _, f := range table.ClusterFeatures {
			if f.Name == "MLFLOW" {
				return f
			}
		}
		t.Fatal("no MLFLOW row")
		return row{}
	}

	toggle(on)
	got := mlflowRow()
	m := got.Mlflow
	if got.Status != "ENABLED" || m == nil || m.TrackingServerArn != "arn:aws:sagemaker:us-west-2:123456789012:mlflow-tracking-server/mlflow-e2e-mlflow" ||
		m.Existing || m.TrackingServerSize != "MEDIUM" || m.ArtifactStoreUri != "s3://mlflow-e2e-data/mlflow/" || m.Namespace != "default" || m.ServiceAccount != "instantstart-mlflow" {
		t.Fatalf("MLFLOW row %+v (settings %+v)", got, m)
	}
	toggle(map[string]any{"mlflow": map[string]any{"enabled": false}})
	if got := mlflowRow(); got.Status != "DISABLED" || got.Mlflow != nil {
		t.Fatalf("after turning it off: %+v", got)
	}
}
