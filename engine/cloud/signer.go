package cloud

import "context"

type accessKeyKey struct{}

// WithAccessKeyID returns ctx carrying the access key id a request was
// signed with, as an AWS endpoint reads it from the request's SigV4
// credential: the simulator's wire endpoint passes it on, so that STS can
// tell a role session's credentials from the account's own.
func WithAccessKeyID(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, accessKeyKey{}, id)
}

// AccessKeyID is the access key id ctx carries (see WithAccessKeyID), or
// "" for a call that was not signed, such as one in-process.
func AccessKeyID(ctx context.Context) string {
	id, _ := ctx.Value(accessKeyKey{}).(string)
	return id
}
