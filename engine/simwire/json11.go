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
	// camel says the service's members are lowerCamelCase on the wire
	// (ECR's "authorizationData"), where the SDK's Go fields are
	// UpperCamelCase. Every object key is recased, so such a service
	// must not have a map of its callers' keys in the calls served.
	camel bool
}

var jsonServices = map[string]jsonService{
	"sagemaker":     {targetPrefix: "SageMaker", port: func(p *cloud.Provider) any { return p.SageMaker }},
	"fsx":           {targetPrefix: "AWSSimbaAPIService_v20180301", port: func(p *cloud.Provider) any { return p.FSx }},
	"servicequotas": {targetPrefix: "ServiceQuotasV20190624", port: func(p *cloud.Provider) any { return p.ServiceQuotas }},
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
		if svc.camel {
			doc = recase(doc, upperFirst, 0)
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
	answer := encodeJSON(outs[0])
	if svc.camel {
		answer = recase(answer, lowerFirst, 0)
	}
	out, err := json.Marshal(answer)
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

// recase renames every object key of doc with f, at most maxDepth deep
// (decodeJSON refuses deeper documents anyway).
func recase(doc any, f func(string) string, depth int) any {
	if depth > maxDepth {
		return doc
	}
	switch d := doc.(type) {
	case map[string]any:
		m := make(map[string]any, len(d))
		for k, v := range d {
			m[f(k)] = recase(v, f, depth+1)
		}
		return m
	case []any:
		for i, v := range d {
			d[i] = recase(v, f, depth+1)
		}
		return d
	}
	return doc
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]-'A'+'a') + s[1:]
}
