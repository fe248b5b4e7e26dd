package resolvers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/instantstart/instantstart/engine/errs"
)

// errInternal is what a client sees of an error the engine did not classify.
// The real error goes to the log only: it may name files, keys or internals.
var errInternal = errs.New(errs.Internal, "internal error: the server could not complete the request; try again, and if it keeps failing report it with the server log")

// ErrorPresenter is the one place where errors become GraphQL errors. An
// *errs.Error keeps its message and carries extensions {code, field,
// upstreamCode, retryable, details}; gqlgen's own complaints about a request
// (parse, validation, wrong argument types, bad body) become VALIDATION, and
// so does a value a scalar or enum could not read (a Time that is not RFC
// 3339, say), with the argument it was given in as the field; the
// complexity limit's refusal becomes LIMIT; anything else is logged and
// shown as a generic INTERNAL error.
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
		code, message := errs.Validation, gqlErr.Message
		if gqlErr.Extensions["code"] == complexityLimitCode {
			code, message = errs.Limit, message+": ask for fewer fields or fewer items at once"
		}
		out.Extensions = map[string]any{"code": string(code), "retryable": false}
		if field := variablePath(gqlErr.Path); field != "" {
			// gqlparser's complaints about variables ("cannot be null")
			// do not say which variable they are about.
			message = field + ": " + message
			out.Extensions["field"] = field
		}
		out.Message = message
		if code, ok := gqlErr.Extensions["code"]; ok {
			out.Extensions["graphqlCode"] = code
		}
		return out
	case gqlErr != nil && inputPath(ctx, gqlErr.Path) != "":
		// gqlgen reads arguments before it calls the resolver and puts the
		// path of the argument's value after the field's own path.
		field := inputPath(ctx, gqlErr.Path)
		out.Path = graphql.GetPath(ctx)
		e = errs.Field(field, "%s: %v; correct this value and send the request again", field, gqlErr.Err)
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

// complexityLimitCode is the extensions.code of gqlgen's complexity-limit
// refusal (extension.FixedComplexityLimit), which gqlgen does not export.
const complexityLimitCode = "COMPLEXITY_LIMIT_EXCEEDED"

// inputPath is the part of an error's path below the field being resolved
// ("input.expiresAt", "zones[1]"): the argument value gqlgen could not
// read. It is "" for an error of the field itself.
func inputPath(ctx context.Context, path ast.Path) string {
	field := graphql.GetPath(ctx)
	if len(field) == 0 || len(path) <= len(field) {
		return ""
	}
	for i, el := range field {
		if path[i] != el {
			return ""
		}
	}
	return pathText(path[len(field):])
}

// variablePath is the variable an error of gqlparser's variable checks is
// about ("$in.zones[1]"), whose path starts with "variable"; else "".
func variablePath(path ast.Path) string {
	if len(path) < 2 || path[0] != ast.PathName("variable") {
		return ""
	}
	return "$" + pathText(path[1:])
}

// pathText writes a path as a field of an error: "input.zones[1]".
func pathText(path ast.Path) string {
	var b strings.Builder
	for _, el := range path {
		switch el := el.(type) {
		case ast.PathName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(el))
		case ast.PathIndex:
			fmt.Fprintf(&b, "[%d]", int(el))
		}
	}
	return b.String()
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
// a resolver into one GraphQL error per entry, so a client sees the
// problems of its request at once: up to errs.MaxListed of them, and a
// count of the rest. Install it with AroundFields.
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
	list = list.Listed()
	out := make(gqlerror.List, len(list))
	for i, e := range list {
		out[i] = gqlerror.WrapPath(path, e)
		out[i].Locations = locs
	}
	return res, out
}
