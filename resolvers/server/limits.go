package server

import (
	"context"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/errs"
)

// Limits bound what one client may hold or send.
type Limits struct {
	// MaxDepth bounds the nesting of a query's fields, counting through
	// fragments; documentBounds checks it before validation.
	MaxDepth int
	// MaxSubscriptionsPerConnection bounds live subscriptions on one WebSocket.
	MaxSubscriptionsPerConnection int
	// MaxConnectionsPerToken bounds open WebSockets of one token.
	MaxConnectionsPerToken int
	// IntrospectionPerMinute bounds introspection queries per token.
	IntrospectionPerMinute int
}

// DefaultLimits fit a UI, a playground and scripts with room to spare.
var DefaultLimits = Limits{MaxDepth: 15, MaxSubscriptionsPerConnection: 32, MaxConnectionsPerToken: 16, IntrospectionPerMinute: 30}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MaxDepth > 0 {
		d.MaxDepth = l.MaxDepth
	}
	if l.MaxSubscriptionsPerConnection > 0 {
		d.MaxSubscriptionsPerConnection = l.MaxSubscriptionsPerConnection
	}
	if l.MaxConnectionsPerToken > 0 {
		d.MaxConnectionsPerToken = l.MaxConnectionsPerToken
	}
	if l.IntrospectionPerMinute > 0 {
		d.IntrospectionPerMinute = l.IntrospectionPerMinute
	}
	return d
}

// limiter keeps the counters behind Limits.
type limiter struct {
	cfg Limits
	now func() time.Time

	mu            sync.Mutex
	connections   map[string]int         // token id -> open WebSockets
	introspection map[string][]time.Time // token id -> recent introspection times
}

func newLimiter(cfg Limits) *limiter {
	return &limiter{cfg: cfg.withDefaults(), now: time.Now, connections: map[string]int{}, introspection: map[string][]time.Time{}}
}

type connKey struct{}

// conn is one WebSocket connection's state.
type conn struct {
	mu      sync.Mutex
	subs    int
	release func()
}

// openConnection counts a new WebSocket of id's token, refusing one past
// the limit; the connection's state rides in the returned context.
func (l *limiter) openConnection(ctx context.Context, id *auth.Identity) (context.Context, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.connections[id.TokenID] >= l.cfg.MaxConnectionsPerToken {
		return ctx, errs.New(errs.Limit, "the token %q already has %d open WebSocket connections, the most allowed; close one or use another token", id.Name, l.cfg.MaxConnectionsPerToken)
	}
	l.connections[id.TokenID]++
	c := &conn{}
	var once sync.Once
	c.release = func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.connections[id.TokenID]--; l.connections[id.TokenID] <= 0 {
				delete(l.connections, id.TokenID)
			}
		})
	}
	return context.WithValue(ctx, connKey{}, c), nil
}

// closeConnection releases what openConnection counted.
func closeConnection(ctx context.Context) {
	if c, ok := ctx.Value(connKey{}).(*conn); ok {
		c.release()
	}
}

// allowIntrospection reports whether the token may introspect now.
func (l *limiter) allowIntrospection(tokenID string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	recent := l.introspection[tokenID][:0]
	for _, t := range l.introspection[tokenID] {
		if now.Sub(t) < time.Minute {
			recent = append(recent, t)
		}
	}
	if len(recent) >= l.cfg.IntrospectionPerMinute {
		l.introspection[tokenID] = recent
		return false
	}
	l.introspection[tokenID] = append(recent, now)
	return true
}

// limitError is a GraphQL error with the LIMIT code.
func limitError(format string, args ...any) *gqlerror.Error {
	e := gqlerror.Errorf(format, args...)
	e.Extensions = map[string]any{"code": string(errs.Limit)}
	return e
}

// aroundOperations enforces the introspection rate and subscriptions per
// connection before an operation runs. Depth is bounded earlier, before the
// document is validated (documentBounds).
func (l *limiter) aroundOperations(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	refuse := func(e *gqlerror.Error) graphql.ResponseHandler {
		return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{e}})
	}
	if oc.Operation == nil {
		return next(ctx)
	}
	id := auth.IdentityOf(ctx)
	if id != nil && introspects(oc.Operation.SelectionSet) && !l.allowIntrospection(id.TokenID) {
		return refuse(limitError("more than %d introspection queries a minute from the token %q; cache the schema and try again in a minute", l.cfg.IntrospectionPerMinute, id.Name))
	}
	if oc.Operation.Operation != ast.Subscription {
		return next(ctx)
	}
	c, ok := ctx.Value(connKey{}).(*conn)
	if !ok {
		return next(ctx)
	}
	c.mu.Lock()
	if c.subs >= l.cfg.MaxSubscriptionsPerConnection {
		c.mu.Unlock()
		return refuse(limitError("this connection already has %d subscriptions, the most allowed; complete one first or open another connection", l.cfg.MaxSubscriptionsPerConnection))
	}
	c.subs++
	c.mu.Unlock()
	var once sync.Once
	release := func() { once.Do(func() { c.mu.Lock(); c.subs--; c.mu.Unlock() }) }
	stop := context.AfterFunc(ctx, release)
	handler := next(ctx)
	return func(ctx context.Context) *graphql.Response {
		res := handler(ctx)
		if res == nil {
			stop()
			release()
		}
		return res
	}
}

// introspects reports whether a root selection asks for the schema.
func introspects(set ast.SelectionSet) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if s.Name == "__schema" || s.Name == "__type" {
				return true
			}
		case *ast.InlineFragment:
			if introspects(s.SelectionSet) {
				return true
			}
		case *ast.FragmentSpread:
			if s.Definition != nil && introspects(s.Definition.SelectionSet) {
				return true
			}
		}
	}
	return false
}
