package resolvers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/instantstart/instantstart/engine/errs"
)

func TestErrorPresenter(t *testing.T) {
	upstream := errs.New(errs.Upstream, "create the HyperPod cluster: InsufficientInstanceCapacity in us-east-1a")
	upstream.UpstreamCode, upstream.Retryable = "InsufficientInstanceCapacity", true
	conflict := errs.New(errs.Conflict, "cluster busy").WithDetail("operationId", "op-1")
	parse := gqlerror.Errorf("Unexpected Name \"bogus\"")
	parse.Extensions = map[string]any{"code": "GRAPHQL_PARSE_FAILED"}

	tests := []struct {
		name    string
		err     error
		want    map[string]any
		message string
	}{
		{
			name:    "validation with field",
			err:     gqlerror.WrapPath(nil, errs.Field("input.name", "name must start with a letter")),
			want:    map[string]any{"code": "VALIDATION", "field": "input.name", "retryable": false},
			message: "name must start with a letter",
		},
		{
			name:    "upstream with code",
			err:     gqlerror.WrapPath(nil, upstream),
			want:    map[string]any{"code": "UPSTREAM", "upstreamCode": "InsufficientInstanceCapacity", "retryable": true},
			message: upstream.Message,
		},
		{
			name:    "conflict with details",
			err:     conflict,
			want:    map[string]any{"code": "CONFLICT", "retryable": false, "details": map[string]string{"operationId": "op-1"}},
			message: "cluster busy",
		},
		{
			name:    "wrapped coded error",
			err:     fmt.Errorf("load: %w", errs.New(errs.NotFound, "operation \"x\" does not exist")),
			want:    map[string]any{"code": "NOT_FOUND", "retryable": false},
			message: "operation \"x\" does not exist",
		},
		{
			name:    "gqlgen parse error",
			err:     parse,
			want:    map[string]any{"code": "VALIDATION", "graphqlCode": "GRAPHQL_PARSE_FAILED", "retryable": false},
			message: parse.Message,
		},
		{
			name:    "uncoded error",
			err:     gqlerror.WrapPath(nil, errors.New("badger: secret internals")),
			want:    map[string]any{"code": "INTERNAL", "retryable": false},
			message: errInternal.Message,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs strings.Builder
			got := ErrorPresenter(slog.New(slog.NewTextHandler(&logs, nil)))(context.Background(), tt.err)
			if got.Message != tt.message {
				t.Errorf("message = %q, want %q", got.Message, tt.message)
			}
			if fmt.Sprint(got.Extensions) != fmt.Sprint(tt.want) {
				t.Errorf("extensions = %v, want %v", got.Extensions, tt.want)
			}
			if tt.want["code"] == "INTERNAL" && !strings.Contains(logs.String(), "secret internals") {
				t.Errorf("the real error was not logged: %q", logs.String())
			}
		})
	}
}

func TestExpandErrorLists(t *testing.T) {
	list := errs.List{errs.Field("input.name", "bad name"), errs.Field("input.zones[0]", "unknown zone")}
	_, err := ExpandErrorLists(context.Background(), func(context.Context) (any, error) { return nil, list })
	var got gqlerror.List
	if !errors.As(err, &got) || len(got) != 2 {
		t.Fatalf("err = %#v, want a gqlerror.List of 2", err)
	}
	present := ErrorPresenter(nil)
	for i, want := range []string{"input.name", "input.zones[0]"} {
		p := present(context.Background(), got[i])
		if p.Extensions["code"] != "VALIDATION" || p.Extensions["field"] != want {
			t.Errorf("error %d extensions = %v, want VALIDATION on %s", i, p.Extensions, want)
		}
	}

	plain := errs.New(errs.NotFound, "gone")
	if _, err := ExpandErrorLists(context.Background(), func(context.Context) (any, error) { return nil, plain }); err != plain {
		t.Errorf("a single error changed: %v", err)
	}
}

func TestRecoverFunc(t *testing.T) {
	var logs strings.Builder
	err := RecoverFunc(slog.New(slog.NewTextHandler(&logs, nil)))(context.Background(), "boom")
	if errs.CodeOf(err) != errs.Internal {
		t.Errorf("code = %s, want INTERNAL", errs.CodeOf(err))
	}
	if !strings.Contains(logs.String(), "boom") || !strings.Contains(logs.String(), "stack") {
		t.Errorf("the panic was not logged with its stack: %q", logs.String())
	}
}

func TestPageSize(t *testing.T) {
	n := func(v int) *int { return &v }
	tests := []struct {
		first *int
		want  int
		err   bool
	}{
		{nil, defaultPageSize, false},
		{n(1), 1, false},
		{n(200), 200, false},
		{n(0), 0, true},
		{n(201), 0, true},
		{n(-5), 0, true},
	}
	for _, tt := range tests {
		got, err := pageSize(tt.first)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("pageSize(%v) = %d, %v; want %d, error %v", tt.first, got, err, tt.want, tt.err)
		}
		if err != nil && (errs.CodeOf(err) != errs.Validation || errs.As(err).Field != "first") {
			t.Errorf("pageSize error = %#v, want VALIDATION on first", err)
		}
	}
}

// TestErrorPresenterNamesBadInput checks the errors gqlgen raises about a
// request's values, which carry no engine code: each must reach the client
// as VALIDATION or LIMIT naming what to change, never INTERNAL.
func TestErrorPresenterNamesBadInput(t *testing.T) {
	field := graphql.WithPathContext(context.Background(), graphql.NewPathWithField("createToken"))
	complexity := gqlerror.Errorf("operation has complexity 600, which exceeds the limit of 500")
	complexity.Extensions = map[string]any{"code": "COMPLEXITY_LIMIT_EXCEEDED"}
	variable := gqlerror.ErrorPathf(ast.Path{ast.PathName("variable"), ast.PathName("in"), ast.PathName("zones"), ast.PathIndex(1)}, "cannot use bool as String")
	variable.Extensions = map[string]any{"code": "GRAPHQL_VALIDATION_FAILED"}
	tests := []struct {
		name  string
		ctx   context.Context
		err   error
		code  string
		field string
		says  []string
	}{
		{
			name: "a scalar that cannot read an argument's value",
			ctx:  field,
			err: gqlerror.WrapPath(ast.Path{ast.PathName("createToken"), ast.PathName("input"), ast.PathName("expiresAt")},
				errors.New("time should be RFC3339Nano formatted string")),
			code: "VALIDATION", field: "input.expiresAt", says: []string{"input.expiresAt: time should be RFC3339Nano"},
		},
		{
			name: "a value in a list",
			ctx:  field,
			err: gqlerror.WrapPath(ast.Path{ast.PathName("createToken"), ast.PathName("zones"), ast.PathIndex(2)},
				errors.New("not an Int")),
			code: "VALIDATION", field: "zones[2]", says: []string{"zones[2]: not an Int"},
		},
		{
			name: "the complexity limit",
			err:  complexity,
			code: "LIMIT", says: []string{"complexity 600", "limit of 500", "ask for fewer"},
		},
		{
			name: "a variable of the wrong type",
			err:  variable,
			code: "VALIDATION", field: "$in.zones[1]", says: []string{"$in.zones[1]: cannot use bool as String"},
		},
		{
			name: "a resolver's own uncoded error is still internal",
			ctx:  field,
			err:  gqlerror.WrapPath(ast.Path{ast.PathName("createToken")}, errors.New("badger: key too large")),
			code: "INTERNAL", says: []string{"internal error"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			got := ErrorPresenter(nil)(ctx, tt.err)
			if got.Extensions["code"] != tt.code {
				t.Errorf("code = %v (%s), want %s", got.Extensions["code"], got.Message, tt.code)
			}
			if f, _ := got.Extensions["field"].(string); f != tt.field {
				t.Errorf("field = %q, want %q", f, tt.field)
			}
			for _, s := range tt.says {
				if !strings.Contains(got.Message, s) {
					t.Errorf("message %q does not say %q", got.Message, s)
				}
			}
		})
	}
}
