package errs_test

import (
	"errors"
	"testing"

	"github.com/aws/smithy-go"

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
