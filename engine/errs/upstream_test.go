package errs_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/errs"
)

// TestUpstreamNamesServiceAndOperation: an AWS error, even one the SDK
// could only read as UnknownError, says which service and operation it
// came from, in the message and the details.
func TestUpstreamNamesServiceAndOperation(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&smithy.OperationError{ServiceID: "EC2", OperationName: "CreateVpc", Err: &smithy.GenericAPIError{Code: "UnknownError", Message: "UnknownError"}},
			"create the VPC (EC2 CreateVpc): UnknownError: UnknownError"},
		{&smithy.OperationError{ServiceID: "EKS", OperationName: "DescribeAddon", Err: errors.New("deserialization failed, unexpected end of JSON input")},
			"create the VPC (EKS DescribeAddon): deserialization failed, unexpected end of JSON input"},
		{&smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate exceeded"}, "create the VPC: ThrottlingException: Rate exceeded"},
	}
	for _, c := range cases {
		e := errs.FromUpstream(c.err, "create the VPC")
		if e.Code != errs.Upstream || e.Message != c.want {
			t.Errorf("%v: got %s %q, want %q", c.err, e.Code, e.Message, c.want)
		}
		var oe *smithy.OperationError
		if errors.As(c.err, &oe) && (e.Details["service"] != oe.ServiceID || e.Details["operation"] != oe.OperationName) {
			t.Errorf("%v: details %v", c.err, e.Details)
		}
	}
	if e := errs.FromUpstream(&smithy.GenericAPIError{Code: "ThrottlingException"}, "x"); !e.Retryable {
		t.Error("throttling is not retryable")
	}
}

// TestUnreadableAnswersRetryOnlyWhenTransient: an error with no AWS code
// is retried when no answer came back or the answer was a server error,
// not when a readable status says the call is not served.
func TestUnreadableAnswersRetryOnlyWhenTransient(t *testing.T) {
	answered := func(status int) error {
		return &smithy.OperationError{ServiceID: "EKS", OperationName: "ListAccessEntries", Err: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
			Err:      &smithy.DeserializationError{Err: errors.New("failed to decode response body")},
		}}
	}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"no answer", &smithy.OperationError{ServiceID: "EKS", OperationName: "ListAccessEntries", Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}, true},
		{"404 not read", answered(http.StatusNotFound), false},
		{"400 not read", answered(http.StatusBadRequest), false},
		{"503 not read", answered(http.StatusServiceUnavailable), true},
		{"429 not read", answered(http.StatusTooManyRequests), true},
	}
	for _, c := range cases {
		if got := errs.FromUpstream(c.err, "list access entries").Retryable; got != c.want {
			t.Errorf("%s: retryable %v, want %v", c.name, got, c.want)
		}
	}
}

// TestKubernetesTransientIsRetryable: a Kubernetes API server's 429 and
// 5xx answers are retryable however they reach the engine (as they are,
// wrapped with %w, or wrapped as an UPSTREAM error); its other refusals
// are not.
func TestKubernetesTransientIsRetryable(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"429", apierrors.NewTooManyRequests("Too many requests, please try again later.", 1), true},
		{"500", apierrors.NewInternalError(errors.New("etcdserver: leader changed")), true},
		{"503", apierrors.NewServiceUnavailable("the server is shutting down"), true},
		{"504", apierrors.NewServerTimeout(pods, "list", 1), true},
		{"404", apierrors.NewNotFound(pods, "p"), false},
		{"409", apierrors.NewConflict(pods, "p", errors.New("changed")), false},
		{"422", apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "p", nil), false},
	}
	for _, c := range cases {
		for how, err := range map[string]error{
			"as is":       c.err,
			"with %w":     fmt.Errorf("list pods: %w", c.err),
			"as UPSTREAM": errs.Wrap(errs.Upstream, c.err, "list pods: %v", c.err),
		} {
			if got := errs.IsRetryable(err); got != c.want {
				t.Errorf("%s %s: IsRetryable %v, want %v", c.name, how, got, c.want)
			}
		}
		if got := errs.Wrap(errs.Upstream, c.err, "list pods").Retryable; got != c.want {
			t.Errorf("%s: Wrap's Retryable %v, want %v", c.name, got, c.want)
		}
	}
	if errs.IsRetryable(errs.New(errs.Upstream, "no cause")) || errs.KubeTransient(nil) {
		t.Error("an error with no Kubernetes status is retryable")
	}
}

// TestWrapKeepsTheCauseRetryable: an AWS or Helm throttle, or a server
// fault, wrapped as UPSTREAM is retryable, as FromUpstream makes it; a
// refusal is not, nor is an error wrapping nothing.
func TestWrapKeepsTheCauseRetryable(t *testing.T) {
	cases := []struct {
		cause error
		want  bool
	}{
		{fmt.Errorf("helm: release %q: %w", "agent", &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate exceeded"}), true},
		{&smithy.OperationError{ServiceID: "EC2", OperationName: "DescribeVpcs", Err: &smithy.GenericAPIError{Code: "ServiceUnavailable"}}, true},
		{errs.Wrap(errs.Upstream, apierrors.NewTooManyRequests("slow down", 1), "list pods"), true},
		{&smithy.GenericAPIError{Code: "ValidationException", Message: "bad name"}, false},
		{errors.New("connection refused"), false},
		{nil, false},
	}
	for _, c := range cases {
		if got := errs.Wrap(errs.Upstream, c.cause, "read: %v", c.cause).Retryable; got != c.want {
			t.Errorf("Wrap(%v).Retryable = %v, want %v", c.cause, got, c.want)
		}
	}
}
