package simwire

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/sim"
)

// TestAPSQueryRangeOnTheWire sends range queries, signed for aps, to the
// wire endpoint: a query the charts send answers a matrix (empty: no
// cluster writes to the workspace), any other Prometheus's bad_data.
func TestAPSQueryRangeOnTheWire(t *testing.T) {
	w, err := sim.New(sim.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&Handler{Providers: w.Provider, DefaultRegion: w.DefaultRegion()})
	t.Cleanup(srv.Close)
	post := func(query string) (int, map[string]any) {
		form := url.Values{"query": {query}, "start": {"1767225600"}, "end": {"1767227400"}, "step": {"15"}}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/workspaces/ws-1111/api/v1/query_range", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/"+w.DefaultRegion()+"/aps/aws4_request, SignedHeaders=host, Signature=x")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return resp.StatusCode, out
	}
	code, out := post(`sum(rate(vllm:request_success_total{namespace="default",deployment="vllm-chat"}[1m]))`)
	data, _ := out["data"].(map[string]any)
	if code != 200 || out["status"] != "success" || data["resultType"] != "matrix" {
		t.Fatalf("a chart's query: %d %v", code, out)
	}
	code, out = post(`up`)
	if code != 400 || out["status"] != "error" || out["errorType"] != "bad_data" || !strings.Contains(out["error"].(string), "query") {
		t.Fatalf("another query: %d %v", code, out)
	}
}
