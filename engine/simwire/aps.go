package simwire

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/instantstart/instantstart/engine/cloud"
)

// Amazon Managed Service for Prometheus's query API, as Prometheus's HTTP
// API serves it: GET or POST /workspaces/<id>/api/v1/query_range with
// query, start, end and step (form-encoded or in the URL), answered with
// {"status":"success","data":{"resultType":"matrix","result":[...]}} or
// Prometheus's error shape.

var apsPath = regexp.MustCompile(`^/workspaces/([^/]+)/api/v1/query_range$`)

func serveAPS(w http.ResponseWriter, r *http.Request, port cloud.Prometheus) {
	fail := func(status int, typ, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "error", "errorType": typ, "error": msg})
	}
	m := apsPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		fail(http.StatusNotFound, "not_found", "the simulator serves only /workspaces/<id>/api/v1/query_range of Amazon Managed Service for Prometheus, not "+r.URL.Path)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		fail(http.StatusMethodNotAllowed, "bad_data", "query_range takes GET or POST")
		return
	}
	if err := r.ParseForm(); err != nil {
		fail(http.StatusBadRequest, "bad_data", "the form does not parse: "+err.Error())
		return
	}
	at := func(name string) (time.Time, bool) {
		f, err := strconv.ParseFloat(r.Form.Get(name), 64)
		if err != nil {
			t, err := time.Parse(time.RFC3339Nano, r.Form.Get(name))
			if err != nil {
				fail(http.StatusBadRequest, "bad_data", "invalid parameter \""+name+"\": cannot parse \""+r.Form.Get(name)+"\" to a valid timestamp")
				return time.Time{}, false
			}
			return t, true
		}
		return time.UnixMilli(int64(f * 1000)).UTC(), true
	}
	start, ok := at("start")
	if !ok {
		return
	}
	end, ok := at("end")
	if !ok {
		return
	}
	step, err := strconv.ParseFloat(r.Form.Get("step"), 64)
	if err != nil {
		d, derr := time.ParseDuration(r.Form.Get("step"))
		if derr != nil {
			fail(http.StatusBadRequest, "bad_data", "invalid parameter \"step\": cannot parse \""+r.Form.Get("step")+"\" to a valid duration")
			return
		}
		step = d.Seconds()
	}
	series, err := port.QueryRange(r.Context(), m[1], cloud.PromRangeQuery{Query: r.Form.Get("query"), Start: start, End: end, Step: time.Duration(step * float64(time.Second))})
	if err != nil {
		var pe *cloud.PromError
		if errors.As(err, &pe) {
			fail(pe.Status, pe.Type, pe.Message)
			return
		}
		fail(http.StatusInternalServerError, "internal", err.Error())
		return
	}
	type result struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	}
	out := make([]result, 0, len(series))
	for _, s := range series {
		res := result{Metric: s.Labels, Values: make([][2]any, 0, len(s.Points))}
		if res.Metric == nil {
			res.Metric = map[string]string{}
		}
		for _, p := range s.Points {
			res.Values = append(res.Values, [2]any{float64(p.Time.UnixMilli()) / 1000, strconv.FormatFloat(p.Value, 'f', -1, 64)})
		}
		out = append(out, res)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix", "result": out}})
}
