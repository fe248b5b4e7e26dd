package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

// TestDownloadModelOverGraphQL downloads a gated model with a token
// through the API, refuses a model id that is not org/name at its field,
// lists the model READY with its path, and finds the token in no answer
// and, redacted, in the audit log.
func TestDownloadModelOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	res := query(t, srv, `mutation($in: CreateClusterInput!) { createCluster(input: $in) { id target { id } } }`,
		map[string]any{"in": map[string]any{"name": "models-e2e", "zones": []string{"us-west-2a", "us-west-2b"},
			"instanceGroups": []any{map[string]any{"name": "cpu", "instanceType": "ml.m5.2xlarge", "count": 1}}}})
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
	clusterID := created.CreateCluster.Target.ID
	res = query(t, srv, `mutation($in: AddStorageInput!) { addStorage(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"clusterId": clusterID, "kind": "S3", "s3": map[string]any{"bucket": "models-e2e-data", "create": true}}})
	var added struct{ AddStorage struct{ ID string } }
	mustDecode(t, res, &added)
	if s := waitOperation(t, srv, added.AddStorage.ID); s != "SUCCEEDED" {
		t.Fatalf("addStorage ended %s", s)
	}

	const download = `mutation($in: DownloadModelInput!) { downloadModel(input: $in) { id statusQuery target { id kind name } } }`
	res = query(t, srv, download, map[string]any{"in": map[string]any{"clusterId": clusterID, "modelId": "llama"}})
	if len(res.Errors) != 1 || res.Errors[0].Code() != "VALIDATION" || res.Errors[0].Extensions["field"] != "input.modelId" {
		t.Fatalf("a model id that is not org/name: %+v", res.Errors)
	}
	token := "hf_" + strings.Repeat("Gr4phQL", 5)
	res = query(t, srv, download, map[string]any{"in": map[string]any{"clusterId": clusterID, "modelId": "meta-llama/Llama-3.1-8B-Instruct", "name": "llama-8b", "token": token}})
	var started struct {
		DownloadModel struct {
			ID, StatusQuery string
			Target          struct{ ID, Kind, Name string }
		}
	}
	mustDecode(t, res, &started)
	if started.DownloadModel.StatusQuery != "model" || started.DownloadModel.Target.Kind != "MODEL" || started.DownloadModel.Target.Name != "llama-8b" {
		t.Fatalf("downloadModel %+v", started.DownloadModel)
	}
	if s := waitOperation(t, srv, started.DownloadModel.ID); s != "SUCCEEDED" {
		t.Fatalf("downloadModel ended %s", s)
	}

	// The events of the model carry it, with its progress, as stored.
	sub, err := dial(t, srv).Subscribe(testContext(t), `subscription($ids: [ID!]) { events(since: "0", filter: {ids: $ids}) { model { id status filesDone filesTotal } } }`,
		map[string]any{"ids": []string{started.DownloadModel.Target.ID}})
	if err != nil {
		t.Fatal(err)
	}
	for statuses := []string{}; ; {
		var ev struct {
			Events struct {
				Model *struct {
					ID, Status            string
					FilesDone, FilesTotal int
				}
			}
		}
		if res := next(t, sub); res.Decode(&ev) != nil {
			t.Fatalf("an event that does not decode: %s", res.Data)
		}
		m := ev.Events.Model
		if m == nil || m.ID != started.DownloadModel.Target.ID {
			t.Fatalf("an event of the model without it: %+v", ev.Events)
		}
		statuses = append(statuses, m.Status)
		if m.Status == "READY" {
			if statuses[0] != "DOWNLOADING" || m.FilesDone != m.FilesTotal {
				t.Fatalf("the model's events went %v, ending with %+v", statuses, m)
			}
			break
		}
	}

	res = query(t, srv, `query($c: ID!) { models(clusterId: $c) { edges { cursor node { id name source modelId status filesDone filesTotal bytesDone bytesTotal path } } pageInfo { hasNextPage } } }`, map[string]any{"c": clusterID})
	var list struct {
		Models struct {
			Edges []struct {
				Cursor string
				Node   struct {
					ID, Name, Source, ModelID, Status, Path string
					FilesDone, FilesTotal                   int
					BytesDone, BytesTotal                   float64
				}
			}
		}
	}
	mustDecode(t, res, &list)
	if len(list.Models.Edges) != 1 {
		t.Fatalf("models %+v", list.Models)
	}
	n := list.Models.Edges[0].Node
	if n.ID != started.DownloadModel.Target.ID || n.Status != "READY" || n.Source != "HUGGING_FACE" || n.Path != "/s3/models/llama-8b" ||
		n.FilesDone != n.FilesTotal || n.BytesDone != n.BytesTotal || n.BytesTotal < 15e9 {
		t.Fatalf("model %+v", n)
	}
	res = query(t, srv, `query($c: ID!) { s3Objects(clusterId: $c, prefix: "models/llama-8b/") { edges { node { key size } } } }`, map[string]any{"c": clusterID})
	var browse struct {
		S3Objects struct {
			Edges []struct{ Node struct{ Key string } }
		}
	}
	mustDecode(t, res, &browse)
	if len(browse.S3Objects.Edges) != n.FilesTotal {
		t.Fatalf("the browser shows %d objects of %d", len(browse.S3Objects.Edges), n.FilesTotal)
	}

	res = query(t, srv, `{ auditLog(first: 50) { edges { node { mutation arguments } } } }`, nil)
	raw, _ := json.Marshal(res)
	if strings.Contains(string(raw), "Gr4phQL") {
		t.Fatal("the audit log holds the token in clear")
	}
	if !strings.Contains(string(raw), "downloadModel") || !strings.Contains(string(raw), "[REDACTED]") {
		t.Fatalf("the audit log does not show the download with its token redacted: %s", raw)
	}
	res = query(t, srv, `query($id: ID!) { model(id: $id) { status } }`, map[string]any{"id": "nope"})
	if code(res) != "NOT_FOUND" {
		t.Fatalf("an unknown model: %+v", res.Errors)
	}
}
