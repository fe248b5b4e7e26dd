package simwire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/cloud"
)

// jsonService is one AWS JSON 1.1 service: its X-Amz-Target prefix and
// the port that answers it.
type jsonService struct {
	targetPrefix string
	port         func(*cloud.Provider) any
}

var jsonServices = map[string]jsonService{
	"sagemaker":     {"SageMaker", func(p *cloud.Provider) any { return p.SageMaker }},
	"fsx":           {"AWSSimbaAPIService_v20180301", func(p *cloud.Provider) any { return p.FSx }},
	"servicequotas": {"ServiceQuotasV20190624", func(p *cloud.Provider) any { return p.ServiceQuotas }},
}

// serveJSON answers one JSON 1.1 call: X-Amz-Target names the operation,
// which is the port method of the same name.
func serveJSON(w http.ResponseWriter, r *http.Request, svc jsonService, port any, target string) {
	prefix, op, ok := strings.Cut(target, ".")
	if !ok || prefix != svc.targetPrefix {
		writeJSONError(w, http.StatusBadRequest, "UnknownOperationException",
			fmt.Sprintf("X-Amz-Target %q is not %s.<Operation>", target, svc.targetPrefix))
		return
	}
	m := reflect.ValueOf(port).MethodByName(op)
	if !m.IsValid() || m.Type().NumIn() < 2 {
		writeJSONError(w, http.StatusBadRequest, "UnknownOperationException",
			fmt.Sprintf("operation %s is not served by the simulator", op))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "SerializationException", "read body: "+err.Error())
		return
	}
	in := reflect.New(m.Type().In(1).Elem())
	if len(strings.TrimSpace(string(body))) > 0 {
		var doc any
		dec := json.NewDecoder(strings.NewReader(string(body)))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			writeJSONError(w, http.StatusBadRequest, "SerializationException", "body is not JSON: "+err.Error())
			return
		}
		if err := decodeJSON(doc, in.Elem(), 0); err != nil {
			writeJSONError(w, http.StatusBadRequest, "SerializationException", err.Error())
			return
		}
	}
	outs := m.Call([]reflect.Value{reflect.ValueOf(r.Context()), in})
	if err, _ := outs[1].Interface().(error); err != nil {
		writeAPIError(w, err)
		return
	}
	out, err := json.Marshal(encodeJSON(outs[0]))
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, "InternalFailure", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_, _ = w.Write(out)
}

// writeAPIError answers with the code of the typed error inside err, as
// a JSON 1.1 service does.
func writeAPIError(w http.ResponseWriter, err error) {
	var api smithy.APIError
	if !errors.As(err, &api) {
		var params *smithy.InvalidParamsError
		if errors.As(err, &params) {
			// The SDK checks required members before sending; a client that
			// does not gets the service's refusal.
			writeJSONError(w, http.StatusBadRequest, "ValidationException", params.Error())
			return
		}
		writeJSONError(w, http.StatusInternalServerError, "InternalFailure", err.Error())
		return
	}
	status := http.StatusBadRequest
	if api.ErrorFault() == smithy.FaultServer {
		status = http.StatusInternalServerError
	}
	writeJSONError(w, status, api.ErrorCode(), api.ErrorMessage())
}

func writeJSONError(w http.ResponseWriter, status int, code, msg string) {
	body, _ := json.Marshal(map[string]string{"__type": code, "message": msg})
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-Errortype", code)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
