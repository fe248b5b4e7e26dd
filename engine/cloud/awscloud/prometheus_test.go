package awscloud

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/instantstart/instantstart/engine/cloud"
)

// TestPrometheusQueryRangeIsSignedForAPS sends a range query through the
// real provider's port: a form-encoded POST to the workspace's
// query_range, whose SigV4 signature (service aps, the region) verifies,
// and whose matrix answer is read; a refusal comes back in Prometheus's
// error shape.
func TestPrometheusQueryRangeIsSignedForAPS(t *testing.T) {
	isolateAWSEnv(t)
	var got struct {
		path, auth string
		form       url.Values
		verified   error
	}
	answer := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1767225600,"1.5"],[1767225615.5,"2"]]}]}}`
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got.path, got.auth = r.URL.Path, r.Header.Get("Authorization")
		got.form, _ = url.ParseQuery(string(body))
		got.verified = verifyAPS(r, body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	p, err := newTestRegions(t, srv.URL).Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	q := cloud.PromRangeQuery{Query: `sum(rate(vllm:request_success_total{namespace="default",deployment="vllm-chat"}[1m]))`,
		Start: start, End: start.Add(30 * time.Minute), Step: 15 * time.Second}
	series, err := p.Prometheus.QueryRange(context.Background(), "ws-1111", q)
	if err != nil {
		t.Fatal(err)
	}
	if got.path != "/workspaces/ws-1111/api/v1/query_range" || !strings.Contains(got.auth, "/us-west-2/aps/aws4_request") || got.verified != nil {
		t.Fatalf("request %s signed %q: %v", got.path, got.auth, got.verified)
	}
	if got.form.Get("query") != q.Query || got.form.Get("start") != "1767225600" || got.form.Get("end") != "1767227400" || got.form.Get("step") != "15" {
		t.Fatalf("form %v", got.form)
	}
	if len(series) != 1 || len(series[0].Points) != 2 || series[0].Points[0] != (cloud.PromPoint{Time: start, Value: 1.5}) ||
		series[0].Points[1].Value != 2 || !series[0].Points[1].Time.Equal(start.Add(15500*time.Millisecond)) {
		t.Fatalf("series %+v", series)
	}

	status, answer = http.StatusBadRequest, `{"status":"error","errorType":"bad_data","error":"parse error at char 5"}`
	_, err = p.Prometheus.QueryRange(context.Background(), "ws-1111", q)
	var pe *cloud.PromError
	if !errors.As(err, &pe) || pe.Status != 400 || pe.Type != "bad_data" || pe.Message != "parse error at char 5" {
		t.Fatalf("a refusal: %v", err)
	}
	if _, err := p.Prometheus.QueryRange(context.Background(), "../ws", q); !errors.As(err, &pe) || pe.Type != "bad_data" {
		t.Fatalf("a workspace id that is not one: %v", err)
	}
}

// verifyAPS signs r again with the test credentials for aps at its own
// time and compares the signatures.
func verifyAPS(r *http.Request, body []byte) error {
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return err
	}
	auth := r.Header.Get("Authorization")
	_, rest, _ := strings.Cut(auth, "SignedHeaders=")
	signed, _, _ := strings.Cut(rest, ",")
	again, err := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	for _, h := range strings.Split(signed, ";") {
		if h != "host" && h != "content-length" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: "AKIDTESTTESTTEST", SecretAccessKey: "test-secret"}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "aps", "us-west-2", at); err != nil {
		return err
	}
	if want := again.Header.Get("Authorization"); want != auth {
		return errors.New("the signature does not verify: got " + auth + ", want " + want)
	}
	return nil
}
