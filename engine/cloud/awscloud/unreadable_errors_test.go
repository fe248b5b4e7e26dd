package awscloud

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/errs"
)

// An emulator that does not serve an EC2 action answers it in JSON; the
// SDK reads EC2's errors as XML and makes "UnknownError: UnknownError" of
// it. The error now quotes the answer, and keeps the SDK's code and HTTP
// status.
func TestUnreadableQueryErrorQuotesTheAnswer(t *testing.T) {
	isolateAWSEnv(t)
	srv, _ := fakeAWS(t, http.StatusBadRequest, "application/json",
		`{"__type":"UnknownAction","message":"Action DescribeAddresses is not supported"}`)
	p, err := newTestRegions(t, srv.URL).Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}

	_, err = p.EC2.DescribeAddresses(context.Background(), &ec2.DescribeAddressesInput{})

	var api smithy.APIError
	if !errors.As(err, &api) {
		t.Fatalf("DescribeAddresses error = %v (%T); want a smithy.APIError", err, err)
	}
	if api.ErrorCode() != "UnknownError" {
		t.Errorf("ErrorCode() = %q; want the SDK's UnknownError", api.ErrorCode())
	}
	for _, want := range []string{"HTTP 400 Bad Request", "application/json", "Action DescribeAddresses is not supported"} {
		if !strings.Contains(api.ErrorMessage(), want) {
			t.Errorf("ErrorMessage() = %q; want it to contain %q", api.ErrorMessage(), want)
		}
	}
	var resp *awshttp.ResponseError
	if !errors.As(err, &resp) || resp.HTTPStatusCode() != http.StatusBadRequest {
		t.Errorf("error %v does not carry the HTTP status 400", err)
	}
	e := errs.FromUpstream(err, "create the NAT gateway")
	if !strings.Contains(e.Message, "EC2 DescribeAddresses") || !strings.Contains(e.Message, "is not supported") || e.Retryable {
		t.Errorf("FromUpstream = %q (retryable %v); want the service, the operation and the answer, not retryable", e.Message, e.Retryable)
	}
}

// An error the SDK reads is left as it is.
func TestReadableQueryErrorIsUnchanged(t *testing.T) {
	isolateAWSEnv(t)
	long := strings.Repeat("x", 2*errorBodyLimit) // longer than what is kept: the SDK still reads all of it
	srv, _ := fakeAWS(t, http.StatusBadRequest, "text/xml",
		`<?xml version="1.0" encoding="UTF-8"?><ErrorResponse><Error><Type>Sender</Type><Code>NoSuchEntity</Code><Message>`+long+`</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`)
	p, err := newTestRegions(t, srv.URL).Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}

	_, err = p.IAM.GetRole(context.Background(), &iam.GetRoleInput{RoleName: aws.String("gone")})

	var api smithy.APIError
	if !errors.As(err, &api) {
		t.Fatalf("GetRole error = %v (%T); want a smithy.APIError", err, err)
	}
	if api.ErrorCode() != "NoSuchEntity" || api.ErrorMessage() != long {
		t.Errorf("error = %q: %d characters; want NoSuchEntity with the whole message", api.ErrorCode(), len(api.ErrorMessage()))
	}
	if !errs.IsNotFound(err) {
		t.Errorf("IsNotFound(%v) = false", err)
	}
}

// A REST-JSON service answered with another service's XML (an emulator
// routing an unknown path to S3): the decoding error says what came back,
// and still has no API code.
func TestUndecodableRESTErrorQuotesTheAnswer(t *testing.T) {
	isolateAWSEnv(t)
	srv, _ := fakeAWS(t, http.StatusNotFound, "application/xml",
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>\n  <Code>NoSuchBucket</Code>\n  <Message>The specified bucket does not exist</Message>\n</Error>")
	p, err := newTestRegions(t, srv.URL).Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}

	_, err = p.EKS.DescribeAddon(context.Background(), &eks.DescribeAddonInput{ClusterName: aws.String("demo"), AddonName: aws.String("vpc-cni")})

	if err == nil {
		t.Fatal("DescribeAddon succeeded")
	}
	for _, want := range []string{"the answer was HTTP 404 Not Found, application/xml", "<Code>NoSuchBucket</Code> <Message>The specified bucket does not exist</Message>"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error = %q; want it to contain %q", err, want)
		}
	}
	if code := errs.APICode(err); code != "" {
		t.Errorf("APICode = %q; want none, as before", code)
	}
	var de *smithy.DeserializationError
	if !errors.As(err, &de) {
		t.Errorf("error %v no longer wraps the SDK's DeserializationError", err)
	}
}

// An unreadable answer with no body says so.
func TestUnreadableEmptyAnswer(t *testing.T) {
	isolateAWSEnv(t)
	srv, _ := fakeAWS(t, http.StatusForbidden, "", "")
	p, err := newTestRegions(t, srv.URL).Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}

	_, err = p.EC2.DescribeVpcs(context.Background(), &ec2.DescribeVpcsInput{})

	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "UnknownError" || !strings.Contains(api.ErrorMessage(), "HTTP 403 Forbidden, no body") {
		t.Errorf("DescribeVpcs error = %v; want UnknownError naming HTTP 403 and no body", err)
	}
}
