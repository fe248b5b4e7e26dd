package awscloud

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// An error answer the SDK cannot read (a JSON body where the protocol is
// XML, a proxy's HTML page, another service's answer) otherwise surfaces
// as "UnknownError: UnknownError" or "failed to decode response body",
// with nothing of what came back. These middlewares keep the start of
// every error answer's body and, when the SDK read nothing from it, add
// its HTTP status, content type and text to the error. What the SDK did
// read is left as it is, and the error's code stays the SDK's, so nothing
// that tells errors apart changes.

// errorBodyLimit is how much of an error answer is kept.
const errorBodyLimit = 4 << 10

// gistLimit is how much of the kept body an error quotes.
const gistLimit = 300

// unknownCode is the code the SDK gives an error answer it could not read.
const unknownCode = "UnknownError"

// addReadableErrors is an APIOptions entry: it adds both middlewares to an
// operation's stack.
func addReadableErrors(stack *middleware.Stack) error {
	if err := stack.Deserialize.Add(explainUnreadable{}, middleware.Before); err != nil {
		return err
	}
	return stack.Deserialize.Add(keepErrorBody{}, middleware.After)
}

// errorAnswer is the part of an error answer kept for the error.
type errorAnswer struct {
	status      int
	contentType string
	body        []byte
}

type errorAnswerKey struct{}

// keepErrorBody runs next to the transport: it copies the start of an
// error answer's body and puts it back for the SDK's deserializer.
type keepErrorBody struct{}

func (keepErrorBody) ID() string { return "InstantStartKeepErrorBody" }

func (keepErrorBody) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	middleware.DeserializeOutput, middleware.Metadata, error,
) {
	out, md, err := next.HandleDeserialize(ctx, in)
	kept, _ := middleware.GetStackValue(ctx, errorAnswerKey{}).(*errorAnswer)
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if kept == nil || !ok || resp.StatusCode < 300 || resp.Body == nil {
		return out, md, err
	}
	head, readErr := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
	kept.status, kept.contentType, kept.body = resp.StatusCode, resp.Header.Get("Content-Type"), head
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), errReader{readErr}, resp.Body), resp.Body}
	return out, md, err
}

// errReader hands the deserializer a read error met while keeping the
// body, at the point it was met.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	return 0, io.EOF
}

// explainUnreadable runs before the SDK's deserializer sees the answer and
// after it has made its error: when that error says nothing of the answer,
// it quotes the kept body.
type explainUnreadable struct{}

func (explainUnreadable) ID() string { return "InstantStartExplainUnreadable" }

func (explainUnreadable) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	middleware.DeserializeOutput, middleware.Metadata, error,
) {
	kept := &errorAnswer{}
	ctx = middleware.WithStackValue(ctx, errorAnswerKey{}, kept)
	out, md, err := next.HandleDeserialize(ctx, in)
	if err == nil || kept.status == 0 {
		return out, md, err
	}
	return out, md, explain(err, kept)
}

// explain returns err with what the answer said when the SDK could not
// read it, else err itself.
func explain(err error, a *errorAnswer) error {
	var api smithy.APIError
	if errors.As(err, &api) {
		if api.ErrorCode() != unknownCode || (api.ErrorMessage() != "" && api.ErrorMessage() != unknownCode) {
			return err // the SDK read a code or a message: it says enough
		}
		return &unreadableAPIError{err: err, fault: api.ErrorFault(), answer: a.describe()}
	}
	var de *smithy.DeserializationError
	if errors.As(err, &de) {
		return &unreadableAnswer{err: err, answer: a.describe()}
	}
	return err
}

// describe says what the answer was: its status, content type and the
// start of its text, on one line.
func (a *errorAnswer) describe() string {
	s := fmt.Sprintf("HTTP %d %s", a.status, http.StatusText(a.status))
	if a.contentType != "" {
		s += ", " + a.contentType
	}
	text := strings.Join(strings.FieldsFunc(string(bytes.ToValidUTF8(a.body, []byte("?"))), unicode.IsSpace), " ")
	if text == "" {
		return s + ", no body"
	}
	if len(text) > gistLimit {
		text = text[:gistLimit] + "..."
	}
	return s + ": " + text
}

// unreadableAPIError is an API error whose answer the SDK could not read.
// Its code stays the SDK's; its message is what came back.
type unreadableAPIError struct {
	err    error
	fault  smithy.ErrorFault
	answer string
}

func (e *unreadableAPIError) Error() string {
	return e.ErrorCode() + ": " + e.ErrorMessage()
}

func (e *unreadableAPIError) ErrorCode() string { return unknownCode }

func (e *unreadableAPIError) ErrorMessage() string {
	return "the answer could not be read as this service's protocol (" + e.answer + ")"
}

func (e *unreadableAPIError) ErrorFault() smithy.ErrorFault { return e.fault }

func (e *unreadableAPIError) Unwrap() error { return e.err }

// unreadableAnswer is a failure to decode an error answer, with what the
// answer was.
type unreadableAnswer struct {
	err    error
	answer string
}

func (e *unreadableAnswer) Error() string {
	return e.err.Error() + "; the answer was " + e.answer
}

func (e *unreadableAnswer) Unwrap() error { return e.err }
