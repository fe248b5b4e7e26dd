package ops

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/errs"
)

func TestReadRetryTriesRetryableErrorsWithinItsBound(t *testing.T) {
	throttled := &smithy.GenericAPIError{Code: "RequestLimitExceeded", Message: "Request limit exceeded."}
	invalid := &smithy.GenericAPIError{Code: "InvalidParameterValue", Message: "bad filter"}
	for _, tc := range []struct {
		name      string
		failures  []error // what the read returns on its first tries; then it succeeds
		wantCalls int
		wantErr   error
	}{
		{"succeeds at once", nil, 1, nil},
		{"one throttle", []error{throttled}, 2, nil},
		{"two throttles", []error{throttled, throttled}, 3, nil},
		{"throttled on every try", []error{throttled, throttled, throttled, throttled, throttled}, 4, throttled},
		{"not retryable", []error{invalid, throttled}, 1, invalid},
		{"coded and retryable", []error{&errs.Error{Code: errs.Upstream, Retryable: true}}, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ReadRetry{Backoff: Backoff{Initial: 100 * time.Microsecond, Max: 100 * time.Microsecond}, Attempts: 4}
			calls := 0
			err := r.Do(context.Background(), func(context.Context) error {
				calls++
				if calls <= len(tc.failures) {
					return tc.failures[calls-1]
				}
				return nil
			})
			if calls != tc.wantCalls || !errors.Is(err, tc.wantErr) {
				t.Fatalf("%d calls, error %v; want %d calls, error %v", calls, err, tc.wantCalls, tc.wantErr)
			}
		})
	}
}

func TestReadRetryStopsWhenTheRequestEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	throttled := &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate exceeded"}
	calls := 0
	err := DefaultReadRetry.Do(ctx, func(context.Context) error {
		calls++
		cancel() // the client went away while the first try ran
		return throttled
	})
	if calls != 1 || !errors.Is(err, throttled) {
		t.Fatalf("%d calls, error %v; want 1 call and the throttle", calls, err)
	}
}
