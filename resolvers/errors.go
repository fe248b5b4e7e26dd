package resolvers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/instantstart/instantstart/engine/errs"
)

// errInternal is what a client sees of an error the engine did not classify.
// The real error goes to the log only: it may name files, keys or internals.
var errInternal = errs.New(errs.Internal, "internal error: the server could not complete the request; try again, and if it keeps failing report it with the server log")

// ErrorPresenter is the one place where errors become GraphQL errors. An
// *errs.Error keeps its message and carries extensions {code, field,
// upstreamCode, retryable, details}; gqlgen's own complaints about a request
// (parse, validation, wrong argument types, complexity, bad body) become
// VALIDATION; anything else is logged and shown as a generic INTERNAL error.
func ErrorPresenter(log *slog.Logger) graphql.ErrorPresenterFunc {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context, err error) *gqlerror.Error {
		return present(ctx, log, err)
	}
}

func present(ctx context.Context, log *slog.Logger, err error) *gqlerror.Error {
	var gqlErr *gqlerror.Error
	errors.As(err, &gqlErr)
	out := &gqlerror.Error{Path: graphql.GetPath(ctx)}
	if gqlErr != nil {
		out.Path, out.Locations, out.Rule = gqlErr.Path, gqlErr.Locations, gqlErr.Rule
	}

	var (
		e    *errs.Error
		list errs.List
	)
	switch {
	case errors.As(err, &list) && len(list) > 0:
		// ExpandErrorLists splits lists from resolvers; one that reaches
		// here by another way still shows its first error.
		e = list[0]
	case errors.As(err, &e):
	case gqlErr != nil && gqlErr.Err == nil:
		out.Message = gqlErr.Message
		out.Extensions = map[string]any{"code": string(errs.Validation), "retryable": false}
		if code, ok := gqlErr.Extensions["code"]; ok {
			out.Extensions["graphqlCode"] = code
		}
		return out
	default:
		log.Error("request failed", "path", out.Path.String(), "err", err)
		e = errInternal
	}
	out.Message = e.Message
	out.Extensions = map[string]any{"code": string(e.Code), "retryable": e.Retryable}
	if e.Field != "" {
		out.Extensions["field"] = e.Field
	}
	if e.UpstreamCode != "" {
		out.Extensions["upstreamCode"] = e.UpstreamCode
	}
	if len(e.Details) > 0 {
		out.Extensions["details"] = e.Details
	}
	return out
}

// RecoverFunc logs a resolver's panic with its stack and shows the client an
// INTERNAL error.
func RecoverFunc(log *slog.Logger) graphql.RecoverFunc {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context, p any) error {
		log.Error("resolver panicked", "path", graphql.GetPath(ctx).String(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return errInternal
	}
}

// ExpandErrorLists is a field middleware that turns an errs.List returned by
// a resolver into one GraphQL error per entry, so a client sees every
// problem of its request at once. Install it with AroundFields.
func ExpandErrorLists(ctx context.Context, next graphql.Resolver) (any, error) {
	res, err := next(ctx)
	var list errs.List
	if err == nil || !errors.As(err, &list) || len(list) == 0 {
		return res, err
	}
	path := graphql.GetPath(ctx)
	var locs []gqlerror.Location
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Field.Position != nil {
		locs = []gqlerror.Location{{Line: fc.Field.Position.Line, Column: fc.Field.Position.Column}}
	}
	out := make(gqlerror.List, len(list))
	for i, e := range list {
		out[i] = gqlerror.WrapPath(path, e)
		out[i].Locations = locs
	}
	return res, out
}
