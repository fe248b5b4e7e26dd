package auth

import "context"

type identityKey struct{}

// WithIdentity returns ctx carrying the authenticated caller. The server
// sets it once per HTTP request or WebSocket connection, after its one
// credential check; GraphQL resolvers and the MCP tools read it alike.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityOf returns the caller set by WithIdentity, or nil.
func IdentityOf(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}

// Caller returns the name of the caller's token, recorded as who asked for
// an operation; "" when ctx carries no identity.
func Caller(ctx context.Context) string {
	if id := IdentityOf(ctx); id != nil {
		return id.Name
	}
	return ""
}
