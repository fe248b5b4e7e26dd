package errs

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/aws/smithy-go"
)

// IAMPropagation is how long after IAM made a role, or changed its trust,
// another service's refusal of it is taken for IAM's eventual consistency
// and the call retried. AWS documents that changes take time to reach every
// service and advises retrying; it usually takes seconds, sometimes a
// minute or two.
const IAMPropagation = 2 * time.Minute

// notPropagatedPattern matches what EKS and SageMaker answer for a role
// they cannot see or assume yet: the same words as for a role that does
// not exist, which is what the role is to them until IAM's change arrives.
var notPropagatedPattern = regexp.MustCompile(`(?i)(could not be assumed|cannot be assumed|could not assume|unable to assume|invalid principal|\brole\b.* does not exist)`)

// NotYetPropagated reports whether err is a service other than IAM
// refusing an IAM role as missing or not assumable (EKS's
// InvalidParameterException, SageMaker's ValidationException): what it
// answers while a new role or trust policy has not reached it yet. The
// engine makes or checks a role through IAM before any service uses it, so
// such a refusal is retried for IAMPropagation before it is believed.
func NotYetPropagated(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.ErrorCode() {
	case "InvalidParameterException", "ValidationException", "InvalidRequestException":
	default:
		return false
	}
	var oe *smithy.OperationError
	if errors.As(err, &oe) && strings.EqualFold(oe.ServiceID, "IAM") {
		return false
	}
	return notPropagatedPattern.MatchString(ae.ErrorMessage())
}
