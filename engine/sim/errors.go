package sim

import (
	"fmt"

	"github.com/aws/smithy-go"
)

// param names one required input field and whether the caller set it.
type param struct {
	name string
	set  bool
}

// need reports the missing required fields the way the SDK's client-side
// validation does (a *smithy.InvalidParamsError), before any service sees
// the request.
func need(input string, params ...param) error {
	var errs smithy.InvalidParamsError
	errs.Context = input
	for _, p := range params {
		if !p.set {
			errs.Add(smithy.NewErrParamRequired(p.name))
		}
	}
	if errs.Len() > 0 {
		return &errs
	}
	return nil
}

// apiError is a service error with no typed Go error in the SDK.
func apiError(code, format string, args ...any) error {
	return &smithy.GenericAPIError{Code: code, Message: fmt.Sprintf(format, args...), Fault: smithy.FaultClient}
}

// ec2Error is how every EC2 error reaches a client: EC2 has no typed errors.
func ec2Error(code, format string, args ...any) error {
	return apiError(code, format, args...)
}

// sageMakerValidation is SageMaker's ValidationException, which the SDK does
// not model as a typed error.
func sageMakerValidation(format string, args ...any) error {
	return apiError("ValidationException", format, args...)
}
