package resolvers

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/graph/model"
)

// RequiredRole is the least role that may use a root field: its @hasRole
// directive, else VIEWER for queries and subscriptions and OPERATOR for
// mutations. It is the one statement of who may do what; the server hands
// it to the MCP server too (mcp.RoleRule), which offers a caller only the
// tools its role may call.
func RequiredRole(object string, def *ast.FieldDefinition) auth.Role {
	if d := def.Directives.ForName("hasRole"); d != nil {
		if arg := d.Arguments.ForName("role"); arg != nil && arg.Value != nil {
			if r, err := auth.ParseRole(arg.Value.Raw); err == nil {
				return r
			}
		}
	}
	if object == "Mutation" {
		return auth.Operator
	}
	return auth.Viewer
}

// Guard is the field middleware that enforces roles on every root field
// and audits every mutation, whatever surface the request came through.
func Guard(audit *auth.Service, log *slog.Logger) graphql.FieldMiddleware {
	return func(ctx context.Context, next graphql.Resolver) (any, error) {
		fc := graphql.GetFieldContext(ctx)
		if fc == nil || !isRoot(fc.Object) {
			return next(ctx)
		}
		id := auth.IdentityOf(ctx)
		need := RequiredRole(fc.Object, fc.Field.Definition)
		var refusal error
		switch {
		case id == nil:
			refusal = errs.New(errs.Unauthenticated, "no credential: send Authorization: Bearer <token>, or sign in")
		default:
			// The credential may have ended while a connection that
			// carries it stayed open (a WebSocket): it is refused from
			// then on.
			refusal = audit.Check(id)
			if refusal == nil && !id.Role.Allows(need) {
				refusal = errs.New(errs.Forbidden, "%s needs the %s role; the token %q has %s: ask an admin for a token with that role", fc.Field.Name, need, id.Name, id.Role)
			}
		}
		if refusal == nil {
			refusal = checkListBounds(fc.Args)
		}
		if fc.Object != "Mutation" {
			if refusal != nil {
				return nil, refusal
			}
			return next(ctx)
		}
		var res any
		err := refusal
		if err == nil {
			res, err = next(ctx)
		}
		recordAudit(audit, log, id, fc, res, err)
		return res, err
	}
}

func isRoot(object string) bool {
	return object == "Query" || object == "Mutation" || object == "Subscription"
}

// recordAudit stores one audit record for a mutation call.
func recordAudit(audit *auth.Service, log *slog.Logger, id *auth.Identity, fc *graphql.FieldContext, res any, callErr error) {
	rec := auth.AuditRecord{Mutation: fc.Field.Name, Outcome: "OK"}
	if id != nil {
		rec.TokenID, rec.TokenName, rec.Role = id.TokenID, id.Name, id.Role
	}
	if args, err := json.Marshal(auth.Redact(fc.Args)); err == nil {
		rec.Arguments = args
	}
	if op, ok := res.(*model.Operation); ok && op != nil {
		rec.OperationID = op.ID
	}
	if callErr != nil {
		var list errs.List
		if errors.As(callErr, &list) && len(list) > 0 {
			rec.Outcome, rec.Message = string(list[0].Code), list.Error()
		} else {
			e := errs.As(callErr)
			rec.Outcome, rec.Message = string(e.Code), e.Message
		}
	}
	if err := audit.Record(rec); err != nil {
		log.Error("write audit record", "mutation", rec.Mutation, "err", err)
	}
}
