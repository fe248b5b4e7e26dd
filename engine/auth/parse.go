package auth

import (
	"strings"

	"github.com/instantstart/instantstart/engine/errs"
)

// CookieName is the name of the browser session cookie.
const CookieName = "instantstart_session"

// ParseBearer returns the token of an Authorization header of the form
// "Bearer <token>" (scheme in any case, one space or more). It checks the
// token's shape, not whether the store knows it. Its errors are
// UNAUTHENTICATED and never quote the header.
func ParseBearer(header string) (string, error) {
	h := strings.Trim(header, " \t")
	if h == "" {
		return "", errs.New(errs.Unauthenticated, "no credential: send the header \"Authorization: Bearer <token>\" with a token an admin created for you")
	}
	scheme, rest, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", errs.New(errs.Unauthenticated, "the Authorization header must read \"Bearer <token>\"; no other scheme is accepted")
	}
	tok := strings.TrimLeft(rest, " ")
	if problem := tokenShapeProblem(tok); problem != "" {
		return "", errs.New(errs.Unauthenticated, "%s: send the token whole, or ask an admin for a new one", problem)
	}
	return tok, nil
}

// ParseCookieValue checks the shape of a session cookie value without a
// store lookup. Its errors are UNAUTHENTICATED and never quote the value.
func ParseCookieValue(v string) (string, error) {
	if v == "" {
		return "", errs.New(errs.Unauthenticated, "no session: log in with your token")
	}
	if !isIssued(v, sessionPrefix) {
		return "", errs.New(errs.Unauthenticated, "the session cookie is malformed: log in again with your token")
	}
	return v, nil
}
