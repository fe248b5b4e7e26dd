// Package errs defines the typed error codes of the engine. Every error a
// client can see carries one of these codes; the GraphQL layer maps them once
// to extensions.code.
package errs

import (
	"errors"
	"fmt"
)

// Code is a machine-readable error class.
type Code string

// The codes a client can receive.
const (
	Validation     Code = "VALIDATION"
	NotFound       Code = "NOT_FOUND"
	Conflict       Code = "CONFLICT"
	ImmutableField Code = "IMMUTABLE_FIELD"
	Precondition   Code = "PRECONDITION"
	Upstream       Code = "UPSTREAM"
	Timeout        Code = "TIMEOUT"
	Internal       Code = "INTERNAL"
	Unavailable    Code = "UNAVAILABLE"
	// Unauthenticated: no credential, or one that is unknown, revoked or expired.
	Unauthenticated Code = "UNAUTHENTICATED"
	// Forbidden: the credential's role does not allow the request.
	Forbidden Code = "FORBIDDEN"
	// Limit: the request exceeds a size, depth, rate or count limit.
	Limit Code = "LIMIT"
	// CursorExpired: an event cursor older than the retained event log. The
	// client re-reads the state it follows, then resubscribes from the
	// cursor the error gives (details.resumeFrom).
	CursorExpired Code = "CURSOR_EXPIRED"
)

// Error is an error with a code, an optional field it concerns, and for
// UPSTREAM errors the provider's own error code.
type Error struct {
	Code Code
	// Field is the input path the error concerns ("input.zones[1]"), if any.
	Field string
	// UpstreamCode is the AWS or Kubernetes error code behind an UPSTREAM error.
	UpstreamCode string
	// Retryable says whether the same request may succeed later unchanged.
	Retryable bool
	Message   string
	// Details carries extra machine-readable context (e.g. the id of the
	// operation a CONFLICT names).
	Details map[string]string
	cause   error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.cause }

// New returns an error with code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Field returns a VALIDATION error about one input field.
func Field(field, format string, args ...any) *Error {
	return &Error{Code: Validation, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with code and message that keeps cause for
// errors.Is/As. It is retryable when cause is (IsRetryable): AWS or Helm
// throttling, a server fault, a Kubernetes API server's 429 or 5xx
// wrapped as UPSTREAM stay worth retrying, as through FromUpstream.
func Wrap(code Code, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), cause: cause, Retryable: IsRetryable(cause)}
}

// WithField sets the field and returns e.
func (e *Error) WithField(field string) *Error { e.Field = field; return e }

// WithDetail adds a detail and returns e.
func (e *Error) WithDetail(key, value string) *Error {
	if e.Details == nil {
		e.Details = map[string]string{}
	}
	e.Details[key] = value
	return e
}

// NotFoundOn names field as the one a NOT_FOUND err is about, when err
// names none: a lookup by id does not know which request field sent the
// id, its caller does. Any other err is returned as it is.
func NotFoundOn(err error, field string) error {
	var e *Error
	if errors.As(err, &e) && e.Code == NotFound && e.Field == "" {
		return e.WithField(field)
	}
	return err
}

// CodeOf returns the code of err, INTERNAL for an error without one.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// As returns err as *Error, wrapping an uncoded error as INTERNAL.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: err.Error(), cause: err}
}

// List collects several errors about one request so a client sees all of
// them at once.
type List []*Error

func (l List) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more)", l[0].Error(), len(l)-1)
}

// MaxListed is how many errors of a List a response carries: a request
// with more mistakes gets the first MaxListed and a count of the rest, so
// that an answer never grows with what was sent.
const MaxListed = 20

// Listed returns the errors a response carries: all of them when there
// are at most MaxListed, else the first MaxListed and one more of the
// first's code that counts the rest (its detail "omitted").
func (l List) Listed() List {
	if len(l) <= MaxListed {
		return l
	}
	rest := len(l) - MaxListed
	more := New(l[0].Code, "and %d more problems like these: correct the ones above and send the request again to see what remains", rest).
		WithDetail("omitted", fmt.Sprint(rest))
	return append(l[:MaxListed:MaxListed], more)
}

// Err returns nil for an empty list, else the list itself.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Clip shortens what a client sent to 100 bytes for a message that quotes
// it, so that an error answers in proportion to the mistake, not to the
// input.
func Clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "..."
	}
	return s
}
