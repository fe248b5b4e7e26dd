package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/resolvers/server/wsapi"
)

// credential finds the caller of r: a bearer token, else a browser session
// cookie. It returns nil, nil for a request with neither. A cookie-
// authenticated request that could change something must come from this
// server's own origin (no cross-site request forgery).
func (s *Server) credential(r *http.Request) (*auth.Identity, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		secret, err := auth.ParseBearer(h)
		if err != nil {
			return nil, err
		}
		return s.app.Auth.Authenticate(secret)
	}
	c, err := r.Cookie(auth.CookieName)
	if err != nil {
		return nil, nil
	}
	value, err := auth.ParseCookieValue(c.Value)
	if err != nil {
		return nil, err
	}
	id, err := s.app.Auth.Session(value)
	if err != nil {
		return nil, err
	}
	if !safeMethod(r.Method) && !isWebSocket(r) && !s.sameOrigin(r) {
		return nil, errs.New(errs.Forbidden, "a cookie-authenticated %s must come from this server's own pages (the Origin %q is not allowed); scripts should send Authorization: Bearer <token>", r.Method, r.Header.Get("Origin"))
	}
	return id, nil
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// sameOrigin reports whether a browser request comes from the server's own
// origin or an allowed one. Browsers send Origin on every cross-origin and
// every non-GET request, and Sec-Fetch-Site on all of them.
func (s *Server) sameOrigin(r *http.Request) bool {
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil {
			return false
		}
		return u.Host == r.Host || slices.Contains(s.cfg.AllowedOrigins, strings.TrimSuffix(origin, "/"))
	}
	return r.Header.Get("Sec-Fetch-Site") == "same-origin"
}

// requireCredential lets a request through with its identity in the
// context, or answers 401/403 with a GraphQL-shaped error. A WebSocket
// upgrade without a credential goes on: it may authenticate in its
// connection_init payload.
func (s *Server) requireCredential(need auth.Role, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := s.credential(r)
		if err == nil && id == nil && !isWebSocket(r) {
			err = errs.New(errs.Unauthenticated, "no credential: send Authorization: Bearer <token>, or sign in at /auth/login")
		}
		if err == nil && id != nil && !id.Role.Allows(need) {
			err = errs.New(errs.Forbidden, "this needs the %s role; the token %q has %s", need, id.Name, id.Role)
		}
		if err != nil {
			writeGraphQLError(w, err)
			return
		}
		ctx := r.Context()
		if id != nil {
			ctx = auth.WithIdentity(ctx, id)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// writeGraphQLError answers with a GraphQL-shaped error carrying its code.
func writeGraphQLError(w http.ResponseWriter, err error) {
	e := errs.As(err)
	status := http.StatusBadRequest
	switch e.Code {
	case errs.Unauthenticated:
		status = http.StatusUnauthorized
		w.Header().Set("WWW-Authenticate", `Bearer realm="instantstart"`)
	case errs.Forbidden:
		status = http.StatusForbidden
	case errs.Limit:
		status = http.StatusRequestEntityTooLarge
	case errs.Internal:
		status = http.StatusInternalServerError
	}
	writeJSON(w, status, map[string]any{"errors": []any{map[string]any{"message": e.Message, "extensions": map[string]any{"code": string(e.Code)}}}})
}

// login exchanges a token for a browser session cookie (HttpOnly,
// SameSite=Strict, Secure over TLS).
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r) && r.Header.Get("Origin") != "" {
		writeGraphQLError(w, errs.New(errs.Forbidden, "sign in from this server's own pages"))
		return
	}
	var body struct {
		Token string `json:"token"`
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			writeGraphQLError(w, errs.New(errs.Validation, "send {\"token\": \"<token>\"} as JSON"))
			return
		}
	} else {
		body.Token = r.PostFormValue("token")
	}
	value, id, expires, err := s.app.Auth.Login(strings.TrimSpace(body.Token))
	if err != nil {
		writeGraphQLError(w, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: auth.CookieName, Value: value, Path: "/", Expires: expires,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.tls()})
	writeJSON(w, http.StatusOK, map[string]any{"name": id.Name, "role": id.Role, "expiresAt": expires.UTC().Format(time.RFC3339)})
}

// logout ends the browser session and clears its cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") != "" && !s.sameOrigin(r) {
		writeGraphQLError(w, errs.New(errs.Forbidden, "sign out from this server's own pages"))
		return
	}
	if c, err := r.Cookie(auth.CookieName); err == nil {
		if value, err := auth.ParseCookieValue(c.Value); err == nil {
			if err := s.app.Auth.Logout(value); err != nil {
				writeGraphQLError(w, err)
				return
			}
		}
	}
	http.SetCookie(w, &http.Cookie{Name: auth.CookieName, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.tls()})
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) tls() bool { return s.cfg.TLSCert != "" }

// wsInit authenticates a WebSocket connection: by the credential of its
// upgrade request, else by the token in its connection_init payload
// ({"authorization": "Bearer <token>"} or {"token": "<token>"}). It also
// applies the per-token connection limit, which the returned release undoes.
func (s *Server) wsInit(ctx context.Context, payload map[string]any) (context.Context, func(), error) {
	id := auth.IdentityOf(ctx)
	if id == nil {
		secret, err := payloadToken(payload)
		if err != nil {
			return ctx, nil, err
		}
		if id, err = s.app.Auth.Authenticate(secret); err != nil {
			return ctx, nil, err
		}
		ctx = auth.WithIdentity(ctx, id)
	} else if err := s.app.Auth.Check(id); err != nil {
		return ctx, nil, err // ended between the upgrade and connection_init
	}
	ctx, err := s.limits.openConnection(ctx, id)
	if err != nil {
		return ctx, nil, err
	}
	return ctx, func() { closeConnection(ctx) }, nil
}

// watchCredential calls end when the credential of a connection ends: its
// token revoked or expired, its browser session signed out or expired.
func (s *Server) watchCredential(ctx context.Context, end func(error)) func() {
	id := auth.IdentityOf(ctx)
	if id == nil {
		return func() {}
	}
	return s.app.Auth.OnEnd(id, end)
}

// wsRefusal is the close code and reason of a refused or ended credential:
// 4429 for a limit, else 4403, with the refusal's message.
func wsRefusal(err error) (int, string) {
	e := errs.As(err)
	if e.Code == errs.Limit {
		return wsapi.CloseTooManyRequests, e.Message
	}
	return wsapi.CloseForbidden, e.Message
}

// wsShare lets WebSocket subscribers of one role share their renderings: a
// shared rendering runs as that role, under no one's token, so one
// subscriber's credential ending never touches another's stream.
func wsShare(ctx context.Context) (string, context.Context) {
	role := auth.Role("")
	if id := auth.IdentityOf(ctx); id != nil {
		role = id.Role
	}
	shared := auth.WithIdentity(context.Background(), &auth.Identity{Name: "shared subscription", Role: role, Via: "shared"})
	return string(role), shared
}

func payloadToken(payload map[string]any) (string, error) {
	for _, key := range []string{"authorization", "Authorization"} {
		if v, ok := payload[key].(string); ok && v != "" {
			return auth.ParseBearer(v)
		}
	}
	if v, ok := payload["token"].(string); ok && v != "" {
		return auth.ParseBearer("Bearer " + v)
	}
	return "", errs.New(errs.Unauthenticated, "no credential: send {\"authorization\": \"Bearer <token>\"} in connection_init, or the Authorization header with the upgrade")
}
