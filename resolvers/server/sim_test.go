package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/resolvers/server"
)

type fault struct {
	ID, Kind, Service, Zone, Region, InstanceType string
	Count                                         int
}

func listFaults(t *testing.T, srv *server.Server) []fault {
	t.Helper()
	code, body := get(t, srv.URL()+"/sim/faults")
	if code != http.StatusOK {
		t.Fatalf("GET /sim/faults = %d %s", code, body)
	}
	var out []fault
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("GET /sim/faults: %v in %s", err, body)
	}
	return out
}

func TestSimFaults(t *testing.T) {
	srv := startServer(t, server.Config{})
	if got := listFaults(t, srv); len(got) != 0 {
		t.Fatalf("faults at start = %+v", got)
	}

	code, body := do(t, http.MethodPost, srv.URL()+"/sim/faults", `{"kind": "capacity", "zone": "us-east-1a", "instanceType": "ml.p5.48xlarge"}`)
	var capacity fault
	if code != http.StatusCreated || json.Unmarshal([]byte(body), &capacity) != nil || capacity.ID == "" || capacity.Region != "us-east-1" {
		t.Fatalf("POST JSON fault = %d %s", code, body)
	}
	code, body = do(t, http.MethodPost, srv.URL()+"/sim/faults?spec="+url.QueryEscape("throttle:service=eks,operation=DescribeCluster,count=2"), "")
	if code != http.StatusCreated || !strings.Contains(body, `"service":"eks"`) {
		t.Fatalf("POST spec fault = %d %s", code, body)
	}
	for _, bad := range []struct{ query, body string }{
		{"?spec=" + url.QueryEscape("flood:zone=x"), ""},
		{"", `{"kind": "capacity"}`},
		{"", `{"kind": "capacity", "zone": "us-east-1a", "colour": "red"}`},
		{"", `not json`},
	} {
		if code, body := do(t, http.MethodPost, srv.URL()+"/sim/faults"+bad.query, bad.body); code != http.StatusBadRequest || !strings.Contains(body, `"error"`) {
			t.Errorf("POST %s %s = %d %s, want 400 with an error", bad.query, bad.body, code, body)
		}
	}
	if got := listFaults(t, srv); len(got) != 2 || got[0].ID != capacity.ID || got[1].Count != 2 {
		t.Fatalf("faults = %+v, want the two injected", got)
	}

	if code, _ := do(t, http.MethodDelete, srv.URL()+"/sim/faults/"+capacity.ID, ""); code != http.StatusNoContent {
		t.Errorf("DELETE one fault = %d", code)
	}
	if code, _ := do(t, http.MethodDelete, srv.URL()+"/sim/faults/"+capacity.ID, ""); code != http.StatusNotFound {
		t.Errorf("DELETE a cleared fault = %d, want 404", code)
	}
	if got := listFaults(t, srv); len(got) != 1 || got[0].Kind != "throttle" {
		t.Fatalf("faults after clearing one = %+v", got)
	}
	if code, _ := do(t, http.MethodDelete, srv.URL()+"/sim/faults", ""); code != http.StatusNoContent {
		t.Errorf("DELETE all faults = %d", code)
	}
	if got := listFaults(t, srv); len(got) != 0 {
		t.Fatalf("faults after clearing all = %+v", got)
	}
}

func TestSimFaultsFromConfigSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	parsed := server.Config{Engine: app.Config{DataDir: dir, AdminToken: adminSecret}}
	f, err := sim.ParseFault("capacity:id=no-p5,zone=us-east-1b")
	if err != nil {
		t.Fatal(err)
	}
	parsed.Engine.SimFaults = append(parsed.Engine.SimFaults, f)
	func() {
		ctx, cancel := context.WithCancel(context.Background())
		cfg := parsed
		cfg.Listen = "127.0.0.1:0"
		srv, err := server.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := srv.Run(ctx); err != nil {
			t.Fatalf("Run: %v", err)
		}
	}()
	srv := startServer(t, parsed) // the same fault again: already active, not an error
	if got := listFaults(t, srv); len(got) != 1 || got[0].ID != "no-p5" {
		t.Fatalf("faults after restart = %+v, want no-p5 once", got)
	}
}

func TestSimCalls(t *testing.T) {
	srv := startServer(t, server.Config{})
	p, err := srv.Sim().Provider("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := p.STS.GetCallerIdentity(testContext(t), &sts.GetCallerIdentityInput{}); err != nil {
			t.Fatal(err)
		}
	}
	code, body := get(t, srv.URL()+"/sim/calls")
	var calls map[string]map[string]int
	if code != http.StatusOK || json.Unmarshal([]byte(body), &calls) != nil || calls["sts"]["GetCallerIdentity"] != 2 {
		t.Fatalf("GET /sim/calls = %d %s, want sts.GetCallerIdentity = 2", code, body)
	}
	if code, _ := do(t, http.MethodDelete, srv.URL()+"/sim/calls", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE /sim/calls = %d", code)
	}
	if code, body := get(t, srv.URL()+"/sim/calls"); code != http.StatusOK || strings.TrimSpace(body) != "{}" {
		t.Fatalf("GET /sim/calls after reset = %d %s, want {}", code, body)
	}
	if code, _ := do(t, http.MethodPut, srv.URL()+"/sim/calls", ""); code != http.StatusMethodNotAllowed {
		t.Errorf("PUT /sim/calls = %d, want 405", code)
	}
}

// TestAWSProvider runs the server on the real AWS provider against a fake
// STS on loopback: readiness asks STS once per 30 s, and /sim/ is absent.
func TestAWSProvider(t *testing.T) {
	var stsCalls atomic.Int32
	fakeSTS := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stsCalls.Add(1)
		w.Header().Set("Content-Type", "text/xml")
		w.Write([]byte(`<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>` +
			`<Arn>arn:aws:iam::123456789012:user/test</Arn><UserId>AIDATEST</UserId><Account>123456789012</Account>` +
			`</GetCallerIdentityResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></GetCallerIdentityResponse>`))
	}))
	defer fakeSTS.Close()
	isolateAWSEnv(t, fakeSTS.URL)

	srv := startServer(t, server.Config{Engine: app.Config{Provider: app.ProviderAWS, Region: "us-west-2"}})
	for range 2 {
		if code, body := get(t, srv.URL()+"/readyz"); code != http.StatusOK {
			t.Fatalf("/readyz = %d %s", code, body)
		}
	}
	if n := stsCalls.Load(); n != 1 {
		t.Errorf("STS called %d times for two readiness checks, want 1 (cached)", n)
	}
	if srv.Sim() != nil {
		t.Error("Sim() is not nil on AWS")
	}
	for _, path := range []string{"/sim/calls", "/sim/faults"} {
		if code, _ := get(t, srv.URL()+path); code != http.StatusNotFound {
			t.Errorf("GET %s on AWS = %d, want 404", path, code)
		}
	}
}

func TestAWSProviderUnreachableIsNotReady(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`<ErrorResponse><Error><Type>Sender</Type><Code>InvalidClientTokenId</Code><Message>The security token included in the request is invalid.</Message></Error><RequestId>r-2</RequestId></ErrorResponse>`))
	}))
	defer down.Close()
	isolateAWSEnv(t, down.URL)
	srv := startServer(t, server.Config{Engine: app.Config{Provider: app.ProviderAWS, Region: "us-west-2"}})
	code, body := get(t, srv.URL()+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "InvalidClientTokenId") {
		t.Fatalf("/readyz = %d %q, want 503 naming the STS error", code, body)
	}
}

// isolateAWSEnv keeps the AWS SDK off the machine's AWS setup and sends
// every client to endpoint with static credentials.
func isolateAWSEnv(t *testing.T, endpoint string) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_ACCESS_KEY_ID":           "AKIDTESTTESTTEST",
		"AWS_SECRET_ACCESS_KEY":       "test-secret",
		"AWS_ENDPOINT_URL":            endpoint,
		"AWS_MAX_ATTEMPTS":            "1",
	} {
		t.Setenv(k, v)
	}
	for _, k := range []string{"AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
		"AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_ENDPOINT_URL_STS", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "AWS_CA_BUNDLE"} {
		t.Setenv(k, "")
	}
}

// TestSimTrainingFaultsAndObjects: a hang fault names its job (and is
// refused without one), and PUT /sim/objects puts an object in a bucket
// that exists.
func TestSimTrainingFaultsAndObjects(t *testing.T) {
	srv := startServer(t, server.Config{})
	code, body := do(t, http.MethodPost, srv.URL()+"/sim/faults", `{"Kind": "hang", "Job": "sft-1"}`)
	if code != http.StatusCreated || !strings.Contains(body, `"job":"sft-1"`) || !strings.Contains(body, `"count":1`) {
		t.Fatalf("POST hang fault = %d %s", code, body)
	}
	if code, body := do(t, http.MethodPost, srv.URL()+"/sim/faults", `{"kind": "crash"}`); code != http.StatusBadRequest || !strings.Contains(body, "job") {
		t.Fatalf("a crash fault with no job = %d %s, want 400 naming the job", code, body)
	}
	if code, body := do(t, http.MethodPost, srv.URL()+"/sim/faults", `{"kind": "capacity", "zone": "us-east-1a", "job": "x"}`); code != http.StatusBadRequest {
		t.Fatalf("a capacity fault with a job = %d %s, want 400", code, body)
	}
	if code, body := do(t, http.MethodPut, srv.URL()+"/sim/objects/no-such-bucket/datasets/a.json", `[]`); code != http.StatusNotFound || !strings.Contains(body, "NoSuchBucket") {
		t.Fatalf("PUT into a missing bucket = %d %s, want 404", code, body)
	}
	srv.Sim().PutForeignBucket("sim-data", "us-east-1")
	if code, body := do(t, http.MethodPut, srv.URL()+"/sim/objects/sim-data/datasets/alpaca/train.json", `[{"a": 1}]`); code != http.StatusNoContent {
		t.Fatalf("PUT an object = %d %s", code, body)
	}
}
