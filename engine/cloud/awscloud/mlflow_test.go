package awscloud

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go"
)

const testTrackingServerArn = "arn:aws:sagemaker:us-west-2:123456789012:mlflow-tracking-server/team-a"

// fakeMLflow is one loopback server that is both SageMaker (for
// DescribeMlflowTrackingServer, whose TrackingServerUrl points back at it)
// and the tracking server's MLflow REST API. It checks that every MLflow
// request carries a valid SigV4 signature for sagemaker-mlflow.
type fakeMLflow struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	status    string // the tracking server's TrackingServerStatus
	describes int
	requests  []string // MLflow method path?query, in order
	bodies    []string
	// answer answers an MLflow request (after the signature check).
	answer func(r *http.Request, body []byte) (int, string)
}

func newFakeMLflow(t *testing.T) *fakeMLflow {
	t.Helper()
	f := &fakeMLflow{t: t, status: "Created"}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeMLflow) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		if target != "SageMaker.DescribeMlflowTrackingServer" || !strings.Contains(string(body), `"TrackingServerName":"team-a"`) {
			f.t.Errorf("SageMaker call %s %s", target, body)
		}
		f.describes++
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		fmt.Fprintf(w, `{"TrackingServerArn":%q,"TrackingServerName":"team-a","TrackingServerStatus":%q,"TrackingServerUrl":%q}`,
			testTrackingServerArn, f.status, f.srv.URL+"/")
		return
	}
	if got := r.Header.Get("X-Mlflow-Sm-Tracking-Server-Arn"); got != testTrackingServerArn {
		f.t.Errorf("%s names tracking server %q", r.URL.Path, got)
	}
	f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
	f.bodies = append(f.bodies, string(body))
	if err := checkMLflowSignature(r, body); err != nil {
		f.t.Errorf("%s %s: %v", r.Method, r.URL.Path, err)
		w.WriteHeader(http.StatusForbidden)
		return
	}
	code, out := f.answer(r, body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	io.WriteString(w, out)
}

// checkMLflowSignature signs the request again, as received, with the
// test credentials and the time it names, and compares the signatures.
func checkMLflowSignature(r *http.Request, body []byte) error {
	auth := r.Header.Get("Authorization")
	prefix := "AWS4-HMAC-SHA256 Credential=AKIDTESTTESTTEST/"
	if !strings.HasPrefix(auth, prefix) || !strings.Contains(auth, "/us-west-2/sagemaker-mlflow/aws4_request") {
		return fmt.Errorf("authorization %q is not a SigV4 signature for sagemaker-mlflow in us-west-2", auth)
	}
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return fmt.Errorf("X-Amz-Date %q: %v", r.Header.Get("X-Amz-Date"), err)
	}
	_, signed, _ := strings.Cut(auth, "SignedHeaders=")
	signed, _, _ = strings.Cut(signed, ",")
	again, err := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	if len(body) == 0 {
		again.Body, again.ContentLength = nil, 0
	}
	for _, h := range strings.Split(signed, ";") {
		if h != "host" && h != "content-length" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: "AKIDTESTTESTTEST", SecretAccessKey: "test-secret"}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "sagemaker-mlflow", "us-west-2", at); err != nil {
		return err
	}
	if got := again.Header.Get("Authorization"); got != auth {
		return fmt.Errorf("signature does not verify:\n got  %s\n want %s", auth, got)
	}
	return nil
}

// tracking returns the real provider's MLflow port, pointed at f.
func (f *fakeMLflow) tracking(t *testing.T) *mlflowTracking {
	t.Helper()
	p, err := newTestRegions(t, f.srv.URL).Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	m, ok := p.MLflow.(*mlflowTracking)
	if !ok {
		t.Fatalf("the provider's MLflow port is %T", p.MLflow)
	}
	return m
}

func (f *fakeMLflow) seen() ([]string, []string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...), append([]string(nil), f.bodies...), f.describes
}

func TestMLflowTrackingReadsRunsOverSignedREST(t *testing.T) {
	isolateAWSEnv(t)
	f := newFakeMLflow(t)
	f.answer = func(r *http.Request, body []byte) (int, string) {
		q := r.URL.Query()
		switch r.URL.Path {
		case "/api/2.0/mlflow/experiments/get-by-name":
			if q.Get("experiment_name") != "train-1" {
				return http.StatusNotFound, `{"error_code":"RESOURCE_DOES_NOT_EXIST","message":"Could not find experiment"}`
			}
			return http.StatusOK, `{"experiment":{"experiment_id":"7","name":"train-1"}}`
		case "/api/2.0/mlflow/runs/search":
			return http.StatusOK, `{"runs":[{"info":{"run_id":"abc123","run_name":"job-1","experiment_id":"7","status":"RUNNING","start_time":"1767268800000"},
				"data":{"metrics":[{"key":"loss","value":1.5,"step":"7"},{"key":"learning_rate","value":0.0001,"step":7}]}}]}`
		case "/api/2.0/mlflow/metrics/get-history":
			// Three points a page: steps 1-3, 4-6, then 7 (NaN).
			page := map[string]string{"": `[1,2,3]`, "p2": `[4,5,6]`, "p3": `[7]`}[q.Get("page_token")]
			next := map[string]string{"": "p2", "p2": "p3"}[q.Get("page_token")]
			var steps []int
			json.Unmarshal([]byte(page), &steps)
			var pts []string
			for _, s := range steps {
				v := fmt.Sprint(3 - float64(s)/10)
				if s == 7 {
					v = `"NaN"`
				}
				pts = append(pts, fmt.Sprintf(`{"key":"loss","value":%s,"timestamp":%d,"step":%d}`, v, 1767268800000+int64(s)*1000, s))
			}
			return http.StatusOK, fmt.Sprintf(`{"metrics":[%s],"next_page_token":%q}`, strings.Join(pts, ","), next)
		}
		return http.StatusNotFound, `{"error_code":"ENDPOINT_NOT_FOUND"}`
	}
	m := f.tracking(t)
	m.pageSize = 3
	ctx := context.Background()

	run, err := m.FindRun(ctx, testTrackingServerArn, "train-1", "job-1")
	if err != nil {
		t.Fatal(err)
	}
	if run == nil || run.ID != "abc123" || run.Status != "RUNNING" || run.ExperimentID != "7" || strings.Join(run.MetricKeys, ",") != "learning_rate,loss" ||
		!run.Start.Equal(time.UnixMilli(1767268800000)) || !run.End.IsZero() {
		t.Fatalf("FindRun = %+v", run)
	}
	pts, err := m.MetricHistory(ctx, testTrackingServerArn, "abc123", "loss", 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 4 || pts[0].Step != 4 || pts[2].Value != 2.4 || pts[3].Step != 7 || pts[3].Value == pts[3].Value /* NaN */ ||
		!pts[0].Timestamp.Equal(time.UnixMilli(1767268804000)) {
		t.Fatalf("the newest 4 points in step order: %+v", pts)
	}
	if miss, err := m.FindRun(ctx, testTrackingServerArn, "other", "job-1"); miss != nil || err != nil {
		t.Fatalf("a missing experiment: %+v, %v", miss, err)
	}

	requests, bodies, describes := f.seen()
	want := []string{
		"GET /api/2.0/mlflow/experiments/get-by-name?experiment_name=train-1",
		"POST /api/2.0/mlflow/runs/search",
		"GET /api/2.0/mlflow/metrics/get-history?max_results=3&metric_key=loss&run_id=abc123",
		"GET /api/2.0/mlflow/metrics/get-history?max_results=3&metric_key=loss&page_token=p2&run_id=abc123",
		"GET /api/2.0/mlflow/metrics/get-history?max_results=3&metric_key=loss&page_token=p3&run_id=abc123",
		"GET /api/2.0/mlflow/experiments/get-by-name?experiment_name=other",
	}
	if strings.Join(requests, "\n") != strings.Join(want, "\n") {
		t.Fatalf("MLflow requests:\n%s\nwant:\n%s", strings.Join(requests, "\n"), strings.Join(want, "\n"))
	}
	var search map[string]any
	if err := json.Unmarshal([]byte(bodies[1]), &search); err != nil {
		t.Fatal(err)
	}
	if search["filter"] != "tags.mlflow.runName = 'job-1'" || fmt.Sprint(search["experiment_ids"]) != "[7]" || search["max_results"] != 1.0 {
		t.Fatalf("search body %s", bodies[1])
	}
	if describes != 1 {
		t.Fatalf("the tracking server was described %d times; its URL should be kept", describes)
	}
}

func TestMLflowTrackingRefusals(t *testing.T) {
	isolateAWSEnv(t)
	ctx := context.Background()
	code := func(err error) string {
		var ae smithy.APIError
		if !errors.As(err, &ae) {
			return fmt.Sprintf("%v (not an API error)", err)
		}
		return ae.ErrorCode()
	}

	t.Run("not Created", func(t *testing.T) {
		f := newFakeMLflow(t)
		f.status = "Creating"
		_, err := f.tracking(t).FindRun(ctx, testTrackingServerArn, "train-1", "job-1")
		if requests, _, _ := f.seen(); code(err) != "TEMPORARILY_UNAVAILABLE" || len(requests) != 0 {
			t.Fatalf("a Creating server: %v, MLflow requests %v", err, requests)
		}
	})
	t.Run("another region", func(t *testing.T) {
		f := newFakeMLflow(t)
		_, err := f.tracking(t).FindRun(ctx, strings.Replace(testTrackingServerArn, "us-west-2", "us-east-1", 1), "train-1", "job-1")
		if _, _, describes := f.seen(); code(err) != "ValidationException" || describes != 0 {
			t.Fatalf("a server of another region: %v, %d describes", err, describes)
		}
	})
	t.Run("a body past the bound", func(t *testing.T) {
		f := newFakeMLflow(t)
		f.answer = func(*http.Request, []byte) (int, string) {
			return http.StatusOK, `{"experiment":{"experiment_id":"` + strings.Repeat("7", 2000) + `"}}`
		}
		m := f.tracking(t)
		m.maxBody = 1024
		if _, err := m.FindRun(ctx, testTrackingServerArn, "train-1", "job-1"); code(err) != "ResponseTooLarge" {
			t.Fatalf("a large body: %v", err)
		}
	})
	t.Run("pages past the bound", func(t *testing.T) {
		f := newFakeMLflow(t)
		f.answer = func(*http.Request, []byte) (int, string) {
			return http.StatusOK, `{"metrics":[{"key":"loss","value":1,"step":1}],"next_page_token":"more"}`
		}
		m := f.tracking(t)
		m.maxPages = 3
		_, err := m.MetricHistory(ctx, testTrackingServerArn, "abc123", "loss", 10)
		if requests, _, _ := f.seen(); code(err) != "ResponseTooLarge" || len(requests) != 3 {
			t.Fatalf("endless pages: %v after %d requests", err, len(requests))
		}
	})
	t.Run("a refusal that is not MLflow's", func(t *testing.T) {
		f := newFakeMLflow(t)
		f.answer = func(*http.Request, []byte) (int, string) { return http.StatusForbidden, `<html>denied</html>` }
		_, err := f.tracking(t).MetricHistory(ctx, testTrackingServerArn, "abc123", "loss", 10)
		if code(err) != "Forbidden" || !strings.Contains(err.Error(), "denied") {
			t.Fatalf("a 403: %v", err)
		}
	})
	t.Run("a run that does not exist", func(t *testing.T) {
		f := newFakeMLflow(t)
		f.answer = func(*http.Request, []byte) (int, string) {
			return http.StatusNotFound, `{"error_code":"RESOURCE_DOES_NOT_EXIST","message":"Run 'abc123' not found"}`
		}
		if _, err := f.tracking(t).MetricHistory(ctx, testTrackingServerArn, "abc123", "loss", 10); code(err) != "RESOURCE_DOES_NOT_EXIST" {
			t.Fatalf("a missing run: %v", err)
		}
	})
}
