package errs

import (
	"errors"
	"net/http"
	"strings"

	"github.com/aws/smithy-go"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// throttlingCodes are the AWS error codes that mean "slow down and retry".
var throttlingCodes = map[string]bool{
	"Throttling": true, "ThrottlingException": true, "ThrottledException": true,
	"RequestLimitExceeded": true, "TooManyRequestsException": true,
	"RequestThrottled": true, "RequestThrottledException": true,
	"SlowDown": true, "PriorRequestNotComplete": true,
	"ServiceUnavailable": true, "InternalFailure": true, "InternalError": true,
	"ServerException": true, "ServiceUnavailableException": true,
}

// APICode returns the AWS error code of err, or "" when err is not an AWS API error.
func APICode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// IsAPICode reports whether err is an AWS API error with one of codes.
func IsAPICode(err error, codes ...string) bool {
	c := APICode(err)
	if c == "" {
		return false
	}
	for _, want := range codes {
		if c == want {
			return true
		}
	}
	return false
}

// IsNotFound reports whether err is an AWS "it does not exist" error of any service.
func IsNotFound(err error) bool {
	c := APICode(err)
	return c == "ResourceNotFound" || c == "ResourceNotFoundException" ||
		c == "NoSuchEntity" || c == "NoSuchEntityException" || strings.HasSuffix(c, ".NotFound") ||
		c == "NotFoundException"
}

// FromUpstream turns an AWS error into an UPSTREAM error that names the AWS
// service, operation and code (an answer the SDK could not read is often
// only "UnknownError": the service and operation say where it came from);
// throttling, server faults and a role another service does not see yet
// (NotYetPropagated) are marked retryable. An error that is
// already coded is returned unchanged.
func FromUpstream(err error, action string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	code := APICode(err)
	msg := err.Error()
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorMessage() != "" {
		msg = ae.ErrorMessage()
	}
	propagating := NotYetPropagated(err)
	out := &Error{Code: Upstream, UpstreamCode: code, Retryable: throttlingCodes[code] || (code == "" && transient(err)) || propagating, cause: err}
	where := ""
	var oe *smithy.OperationError
	if errors.As(err, &oe) && oe.ServiceID != "" && oe.OperationName != "" {
		where = " (" + oe.ServiceID + " " + oe.OperationName + ")"
		out.Details = map[string]string{"service": oe.ServiceID, "operation": oe.OperationName}
		if code == "" {
			// The SDK's text already names them: say what was done, then the cause.
			msg = oe.Err.Error()
		}
	}
	if code != "" {
		out.Message = action + where + ": " + code + ": " + msg
	} else {
		out.Message = action + where + ": " + msg
	}
	if propagating {
		out.Message += " (a role IAM has just made or changed can take a minute or two to reach other services: the call is retried for up to two minutes before this is believed)"
	}
	return out
}

// transient reports whether an error with no AWS code may pass on a retry:
// no HTTP answer came back (the connection failed or timed out), or the
// answer was a server error or 429. An answer the SDK could not read with
// any other status (a 404 from an endpoint that does not serve the call)
// comes back the same however often it is asked.
func transient(err error) bool {
	var re interface{ HTTPStatusCode() int }
	if !errors.As(err, &re) {
		return true
	}
	status := re.HTTPStatusCode()
	return status == 0 || status >= 500 || status == 429
}

// IsRetryable reports whether err may succeed if tried again unchanged:
// an error marked so, AWS throttling or a server fault, a role not seen
// yet (NotYetPropagated), or a Kubernetes API server's 429 or 5xx
// (KubeTransient), however wrapped.
func IsRetryable(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Retryable || KubeTransient(err)
	}
	return throttlingCodes[APICode(err)] || NotYetPropagated(err) || KubeTransient(err)
}

// KubeTransient reports whether err is, or wraps, a Kubernetes API
// server's answer that asks to try again: 429 TooManyRequests (API
// Priority and Fairness shedding load) or a 5xx (InternalError,
// ServiceUnavailable, a server timeout). client-go retries these itself
// only when the answer carries a Retry-After, and never through the fake
// clients of the simulator.
func KubeTransient(err error) bool {
	var status apierrors.APIStatus
	if err == nil || !errors.As(err, &status) {
		return false
	}
	code := status.Status().Code
	return code == http.StatusTooManyRequests || code >= http.StatusInternalServerError
}
