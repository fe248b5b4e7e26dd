package errs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/errs"
)

// TestNotYetPropagated: a service other than IAM refusing a role as
// missing or not assumable is IAM's eventual consistency, retried for a
// while; the same words from IAM itself, a malformed ARN and other errors
// are not.
func TestNotYetPropagated(t *testing.T) {
	op := func(service, operation, code, msg string) error {
		return &smithy.OperationError{ServiceID: service, OperationName: operation, Err: &smithy.GenericAPIError{Code: code, Message: msg}}
	}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"EKS cluster role", op("EKS", "CreateCluster", "InvalidParameterException",
			"Role with arn: arn:aws:iam::111122223333:role/hp-eks, could not be assumed because it does not exist or the trusted entity is not correct"), true},
		{"EKS access entry", op("EKS", "CreateAccessEntry", "InvalidParameterException", "The specified principalArn is invalid: invalid principal."), true},
		{"EKS pod identity", op("EKS", "CreatePodIdentityAssociation", "InvalidParameterException", "Role arn:aws:iam::111122223333:role/x does not exist or is not in account 111122223333."), true},
		{"SageMaker execution role", op("SageMaker", "CreateCluster", "ValidationException", "The execution role arn:aws:iam::111122223333:role/hp-exec of instance group workers does not exist."), true},
		{"SageMaker assume", op("SageMaker", "CreateMlflowTrackingServer", "ValidationException", "Could not assume role arn:aws:iam::111122223333:role/x."), true},
		{"IAM itself", op("IAM", "AttachRolePolicy", "ValidationException", "The role x does not exist."), false},
		{"malformed principal", op("EKS", "CreateAccessEntry", "InvalidParameterException", "The specified principalArn is invalid: arn:aws:s3:::b is not an IAM role or user ARN."), false},
		{"other validation", op("SageMaker", "CreateCluster", "ValidationException", "InstanceCount must be at most 100."), false},
		{"throttling", op("EKS", "CreateCluster", "ThrottlingException", "Rate exceeded"), false},
		{"not an API error", errors.New("role could not be assumed"), false},
	}
	for _, c := range cases {
		if got := errs.NotYetPropagated(c.err); got != c.want {
			t.Errorf("%s: NotYetPropagated = %v, want %v", c.name, got, c.want)
		}
		if got := errs.IsRetryable(c.err); c.want && !got {
			t.Errorf("%s: not retryable", c.name)
		}
		e := errs.FromUpstream(c.err, "create the cluster")
		if c.want && (!e.Retryable || !strings.Contains(e.Message, "retried for up to two minutes")) {
			t.Errorf("%s: FromUpstream = %+v, want retryable with the propagation hint", c.name, e)
		}
		if !c.want && strings.Contains(e.Message, "two minutes") {
			t.Errorf("%s: hint on an unrelated error: %q", c.name, e.Message)
		}
	}
}
