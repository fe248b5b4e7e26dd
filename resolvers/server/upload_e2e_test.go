package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

// TestUploadOverGraphQL signs an upload through the API, refuses a key
// outside datasets/ and code/ at its index, sends the file to the signed
// URL (the simulator's wire endpoint) and browses it with s3Objects.
func TestUploadOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2", SimAWSListen: "127.0.0.1:0"}})
	clusterID := createClusterOverGraphQL(t, srv, "upload-e2e")
	const sign = `mutation($c: ID!, $keys: [String!]!) { createUploadUrls(clusterId: $c, keys: $keys) { key url expiresAt } }`

	res := query(t, srv, sign, map[string]any{"c": clusterID, "keys": []string{"datasets/a.txt"}})
	if len(res.Errors) != 1 || res.Errors[0].Code() != "PRECONDITION" || !strings.Contains(res.Errors[0].Message, "addStorage") {
		t.Fatalf("an upload before the bucket: %+v", res.Errors)
	}
	res = query(t, srv, `mutation($in: AddStorageInput!) { addStorage(input: $in) { id } }`, map[string]any{"in": map[string]any{"clusterId": clusterID, "kind": "S3", "s3": map[string]any{"bucket": "upload-e2e-data", "create": true}}})
	var added struct{ AddStorage struct{ ID string } }
	mustDecode(t, res, &added)
	if s := waitOperation(t, srv, added.AddStorage.ID); s != "SUCCEEDED" {
		t.Fatalf("addStorage ended %s", s)
	}

	res = query(t, srv, sign, map[string]any{"c": clusterID, "keys": []string{"datasets/ok.txt", "datasets/../models/x"}})
	if len(res.Errors) != 1 || res.Errors[0].Code() != "VALIDATION" || res.Errors[0].Extensions["field"] != "keys[1]" {
		t.Fatalf("a traversal: %+v", res.Errors)
	}
	res = query(t, srv, sign, map[string]any{"c": clusterID, "keys": []string{"datasets/first/train.jsonl"}})
	var signed struct {
		CreateUploadUrls []struct{ Key, URL, ExpiresAt string }
	}
	mustDecode(t, res, &signed)
	if len(signed.CreateUploadUrls) != 1 || !strings.Contains(signed.CreateUploadUrls[0].URL, "/upload-e2e-data/datasets/first/train.jsonl?") {
		t.Fatalf("createUploadUrls %+v", signed.CreateUploadUrls)
	}
	req, _ := http.NewRequest(http.MethodPut, signed.CreateUploadUrls[0].URL, strings.NewReader(`{"text":"hi"}`))
	put, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	put.Body.Close()
	if put.StatusCode != http.StatusOK {
		t.Fatalf("PUT to the signed URL: %s", put.Status)
	}
	res = query(t, srv, `query($c: ID!) { s3Objects(clusterId: $c, prefix: "datasets/first/") { edges { node { key size } } } }`, map[string]any{"c": clusterID})
	var browse struct {
		S3Objects struct {
			Edges []struct {
				Node struct {
					Key  string
					Size float64
				}
			}
		}
	}
	mustDecode(t, res, &browse)
	if e := browse.S3Objects.Edges; len(e) != 1 || e[0].Node.Key != "datasets/first/train.jsonl" || e[0].Node.Size != 13 {
		t.Fatalf("s3Objects after the upload: %+v", e)
	}

	// The app's page may connect to where the URLs point: the simulator's
	// S3 here, S3 itself on AWS; the playground to its own origin only.
	u, _ := url.Parse(signed.CreateUploadUrls[0].URL)
	csp := getPage(t, srv.URL()+"/").header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "connect-src 'self' ws: wss: https://*.amazonaws.com http://"+u.Host+";") {
		t.Errorf("the app's Content-Security-Policy %q does not let it reach %s", csp, u.Host)
	}
	if csp := getPage(t, srv.URL()+"/playground").header.Get("Content-Security-Policy"); strings.Contains(csp, u.Host) {
		t.Errorf("the playground's Content-Security-Policy %q reaches the simulator's S3", csp)
	}
}
