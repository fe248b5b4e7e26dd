package server

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"

	"github.com/instantstart/instantstart/engine/sim"
)

// simRoutes serves the simulator's controls: its call counters and its
// injected faults.
//
//	GET    /sim/calls         counters, {"sagemaker": {"CreateCluster": 1}}
//	GET    /sim/inventory     every resource the world holds, one line each, sorted
//	GET    /sim/resources     what the world holds that clients made, with states
//	                          and tags (sim.World.Resources)
//	DELETE /sim/calls         reset the counters
//	GET    /sim/faults        the active faults
//	POST   /sim/faults        inject a fault: a JSON fault, or ?spec=kind:key=value,...
//	DELETE /sim/faults        clear every fault
//	DELETE /sim/faults/{id}   clear one fault
//	PUT    /sim/objects/{bucket}/{key...}  put an object in the simulated S3, as
//	                          aws s3 cp would (its size is kept, not its bytes)
func simRoutes(mux *http.ServeMux, world *sim.World, log *slog.Logger) {
	h := simHandlers{world: world, log: log}
	mux.Handle("GET /sim/calls", http.HandlerFunc(h.calls))
	mux.Handle("DELETE /sim/calls", http.HandlerFunc(h.resetCalls))
	mux.Handle("GET /sim/inventory", http.HandlerFunc(h.inventory))
	mux.Handle("GET /sim/resources", http.HandlerFunc(h.resources))
	mux.Handle("GET /sim/faults", http.HandlerFunc(h.faults))
	mux.Handle("POST /sim/faults", limitBody(http.HandlerFunc(h.injectFault)))
	mux.Handle("DELETE /sim/faults", http.HandlerFunc(h.clearFaults))
	mux.Handle("DELETE /sim/faults/{id}", http.HandlerFunc(h.clearFault))
	mux.Handle("PUT /sim/objects/{bucket}/{key...}", limitBody(http.HandlerFunc(h.putObject)))
}

// putObject writes an object to a bucket of the simulated S3, so that a
// test or a demonstration can put a dataset where jobs read it.
func (h simHandlers) putObject(w http.ResponseWriter, r *http.Request) {
	bucket, key := r.PathValue("bucket"), r.PathValue("key")
	if key == "" || len(key) > 1024 {
		writeError(w, http.StatusBadRequest, "name the object: PUT /sim/objects/<bucket>/<key>, a key of 1 to 1024 bytes")
		return
	}
	n, err := io.Copy(io.Discard, r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "the object is larger than 1 MiB; the simulator's uploads are for small files")
			return
		}
		writeError(w, http.StatusBadRequest, "read the object: "+err.Error())
		return
	}
	if err := h.world.PutObjectMeta(bucket, key, n); err != nil {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	h.log.Info("simulator object put", "bucket", bucket, "key", key, "size", n)
	w.WriteHeader(http.StatusNoContent)
}

type simHandlers struct {
	world *sim.World
	log   *slog.Logger
}

// faultJSON is a sim.Fault as the /sim/faults endpoints read and write it.
type faultJSON struct {
	ID           string  `json:"id,omitempty"`
	Kind         string  `json:"kind"`
	Service      string  `json:"service,omitempty"`
	Operation    string  `json:"operation,omitempty"`
	Region       string  `json:"region,omitempty"`
	Zone         string  `json:"zone,omitempty"`
	InstanceType string  `json:"instanceType,omitempty"`
	Cluster      string  `json:"cluster,omitempty"`
	Group        string  `json:"group,omitempty"`
	Instance     string  `json:"instance,omitempty"`
	Recovery     string  `json:"recovery,omitempty"`
	Job          string  `json:"job,omitempty"`
	Pod          string  `json:"pod,omitempty"`
	Namespace    string  `json:"namespace,omitempty"`
	Deployment   string  `json:"deployment,omitempty"`
	Image        string  `json:"image,omitempty"`
	RPS          float64 `json:"rps,omitempty"`
	Code         string  `json:"code,omitempty"`
	Message      string  `json:"message,omitempty"`
	Count        int     `json:"count,omitempty"`
	Value        float64 `json:"value,omitempty"`
	Probability  float64 `json:"probability,omitempty"`
}

func faultToJSON(f sim.Fault) faultJSON { return faultJSON(f) }

func (f faultJSON) fault() sim.Fault { return sim.Fault(f) }

func (h simHandlers) calls(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.world.Calls())
}

func (h simHandlers) inventory(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.world.Inventory())
}

func (h simHandlers) resources(w http.ResponseWriter, r *http.Request) {
	out := h.world.Resources()
	if out == nil {
		out = []sim.Resource{}
	}
	writeJSON(w, http.StatusOK, out)
}

func (h simHandlers) resetCalls(w http.ResponseWriter, r *http.Request) {
	h.world.ResetCalls()
	w.WriteHeader(http.StatusNoContent)
}

func (h simHandlers) faults(w http.ResponseWriter, r *http.Request) {
	out := []faultJSON{}
	for _, f := range h.world.Faults() {
		out = append(out, faultToJSON(f))
	}
	writeJSON(w, http.StatusOK, out)
}

func (h simHandlers) injectFault(w http.ResponseWriter, r *http.Request) {
	var f sim.Fault
	if spec := r.URL.Query().Get("spec"); spec != "" {
		parsed, err := sim.ParseFault(spec)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		f = parsed
	} else {
		var in faultJSON
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeError(w, http.StatusRequestEntityTooLarge, "the fault is larger than 1 MiB")
				return
			}
			writeError(w, http.StatusBadRequest, "send a fault as JSON, e.g. {\"kind\": \"capacity\", \"zone\": \"us-east-1a\"}, or ?spec=capacity:zone=us-east-1a: "+err.Error())
			return
		}
		f = in.fault()
	}
	stored, err := h.world.InjectFault(f)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	h.log.Info("simulator fault injected", "fault", stored.ID, "kind", stored.Kind)
	writeJSON(w, http.StatusCreated, faultToJSON(stored))
}

func (h simHandlers) clearFaults(w http.ResponseWriter, r *http.Request) {
	h.world.ClearFaults()
	h.log.Info("simulator faults cleared")
	w.WriteHeader(http.StatusNoContent)
}

func (h simHandlers) clearFault(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !slices.ContainsFunc(h.world.Faults(), func(f sim.Fault) bool { return f.ID == id }) {
		writeError(w, http.StatusNotFound, "no active fault has id "+id+"; GET /sim/faults lists them")
		return
	}
	if err := h.world.ClearFault(id); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	h.log.Info("simulator fault cleared", "fault", id)
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
