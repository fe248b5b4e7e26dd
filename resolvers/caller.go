package resolvers

import "context"

// Anonymous is the caller of a request that carries no identity.
const Anonymous = "anonymous"

type callerKey struct{}

// WithCaller returns ctx carrying the identity of the caller. The server sets
// it once per request (HTTP) or connection (WebSocket); the resolvers read it
// with Caller to record who asked for an operation.
func WithCaller(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callerKey{}, id)
}

// Caller returns the identity set by WithCaller, or Anonymous.
func Caller(ctx context.Context) string {
	if id, ok := ctx.Value(callerKey{}).(string); ok && id != "" {
		return id
	}
	return Anonymous
}
