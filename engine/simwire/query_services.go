package simwire

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/cloud"
)

//go:generate go run ./internal/ec2names

// queryService is one service of the query protocols: EC2's dialect, or
// the AWS query protocol of IAM and STS.
type queryService struct {
	name  string
	xmlns string
	port  func(*cloud.Provider) any
	// ec2 selects EC2's dialect: the response holds the members with a
	// requestId beside them, errors are <Response><Errors><Error>.
	ec2 bool
	// badInput is the code of a request the simulator cannot read.
	badInput string
}

// roleSessions is what the simulator's STS serves on the wire beside the
// engine's port: AssumeRole, so that a client (a test, or a person with
// the aws CLI) can act as another IAM principal of the simulated account.
type roleSessions interface {
	AssumeRole(ctx context.Context, in *sts.AssumeRoleInput, opts ...func(*sts.Options)) (*sts.AssumeRoleOutput, error)
}

var queryServices = map[string]queryService{
	"ec2": {"EC2", "http://ec2.amazonaws.com/doc/2016-11-15/", func(p *cloud.Provider) any { return p.EC2 }, true, "InvalidParameterValue"},
	"iam": {"IAM", "https://iam.amazonaws.com/doc/2010-05-08/", func(p *cloud.Provider) any { return p.IAM }, false, "InvalidInput"},
	"sts": {"STS", "https://sts.amazonaws.com/doc/2011-06-15/", func(p *cloud.Provider) any { return p.STS }, false, "InvalidInput"},
}

func init() {
	registerNames(ec2Names)
	registerPort(reflect.TypeFor[cloud.IAM](), protoQuery)
	registerPort(reflect.TypeFor[cloud.STS](), protoQuery)
	registerPort(reflect.TypeFor[roleSessions](), protoQuery)
	registerErrors(iam.TypeRegistry, protoQuery)
	registerErrors(sts.TypeRegistry, protoQuery)
}

// serveQuery answers one query call: Action names the operation, which
// is the port method of the same name.
func serveQuery(w http.ResponseWriter, r *http.Request, svc queryService, port any) {
	vals, root, err := readQuery(r)
	if err != nil {
		writeQueryError(w, svc, http.StatusBadRequest, svc.badInput, err.Error(), nil)
		return
	}
	action := vals.Get("Action")
	if action == "" {
		writeQueryError(w, svc, http.StatusBadRequest, "MissingAction", "the request names no Action", nil)
		return
	}
	m := reflect.ValueOf(port).MethodByName(action)
	if !m.IsValid() || m.Type().NumIn() < 2 {
		writeQueryError(w, svc, http.StatusBadRequest, "UnknownOperationException",
			fmt.Sprintf("operation %s of %s is not served by the simulator", action, svc.name), nil)
		return
	}
	in := reflect.New(m.Type().In(1).Elem())
	if err := decodeQuery(root, in.Elem(), "", 0); err != nil {
		writeQueryError(w, svc, http.StatusBadRequest, svc.badInput, err.Error(), nil)
		return
	}
	outs := m.Call([]reflect.Value{reflect.ValueOf(r.Context()), in})
	if err, _ := outs[1].Interface().(error); err != nil {
		writeQueryAPIError(w, svc, err)
		return
	}
	out := outs[0].Elem()
	var body xmlWriter
	id := requestID()
	body.WriteString(xmlHeader)
	body.WriteString("<" + action + "Response xmlns=\"" + svc.xmlns + "\">")
	if svc.ec2 {
		body.element("requestId", id)
		if err := body.members(out, 0); err != nil {
			writeQueryError(w, svc, http.StatusInternalServerError, "InternalError", err.Error(), nil)
			return
		}
	} else {
		if s := shapeOf(out.Type()); s != nil && len(s.out) > 0 {
			body.start(action + "Result")
			if err := body.members(out, 0); err != nil {
				writeQueryError(w, svc, http.StatusInternalServerError, "InternalFailure", err.Error(), nil)
				return
			}
			body.end(action + "Result")
		}
		body.WriteString("<ResponseMetadata>")
		body.element("RequestId", id)
		body.WriteString("</ResponseMetadata>")
	}
	body.end(action + "Response")
	w.Header().Set("Content-Type", "text/xml")
	_, _ = w.Write(body.Bytes())
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// writeQueryAPIError answers with the code, message and members of the
// API error inside err.
func writeQueryAPIError(w http.ResponseWriter, svc queryService, err error) {
	var api smithy.APIError
	if !errors.As(err, &api) {
		var params *smithy.InvalidParamsError
		if errors.As(err, &params) {
			writeQueryError(w, svc, http.StatusBadRequest, missingParameter(svc), params.Error(), nil)
			return
		}
		writeQueryError(w, svc, http.StatusInternalServerError, "InternalFailure", err.Error(), nil)
		return
	}
	status := http.StatusBadRequest
	if api.ErrorFault() == smithy.FaultServer {
		status = http.StatusInternalServerError
	}
	status = statusOf(api, status)
	writeQueryError(w, svc, status, api.ErrorCode(), api.ErrorMessage(), api)
}

func missingParameter(svc queryService) string {
	if svc.ec2 {
		return "MissingParameter"
	}
	return "ValidationError"
}

// writeQueryError writes an error in the service's dialect; the members
// of a modeled error (other than its message) go inside <Error>.
func writeQueryError(w http.ResponseWriter, svc queryService, status int, code, msg string, modeled error) {
	var body xmlWriter
	id := requestID()
	body.WriteString(xmlHeader)
	if svc.ec2 {
		body.WriteString("<Response><Errors><Error>")
		body.element("Code", code)
		body.element("Message", msg)
		body.WriteString("</Error></Errors>")
		body.element("RequestID", id)
		body.WriteString("</Response>")
	} else {
		body.WriteString("<ErrorResponse xmlns=\"" + svc.xmlns + "\"><Error>")
		kind := "Sender"
		if status >= 500 {
			kind = "Receiver"
		}
		body.element("Type", kind)
		body.element("Code", code)
		body.element("Message", msg)
		if modeled != nil {
			writeErrorMembers(&body, modeled)
		}
		body.WriteString("</Error>")
		body.element("RequestId", id)
		body.WriteString("</ErrorResponse>")
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	_, _ = w.Write(body.Bytes())
}

// writeErrorMembers writes the members of a modeled error besides its
// message.
func writeErrorMembers(body *xmlWriter, err error) {
	v := reflect.ValueOf(err)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	s := shapeOf(v.Type())
	if s == nil {
		return
	}
	for i := range s.out {
		m := &s.out[i]
		if m.field == "Message" {
			continue
		}
		_ = body.member(v.FieldByIndex(m.index), m, 1)
	}
}

// requestID is a fresh request id in the form AWS gives them.
func requestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
