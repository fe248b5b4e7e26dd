package server_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/resolvers/server"
	"github.com/instantstart/instantstart/resolvers/server/gqltest"
)

// rawConn is a graphql-transport-ws connection read message by message, so
// a test can see how the server closes it.
type rawConn struct {
	t *testing.T
	c *websocket.Conn
}

// dialRaw opens a connection with header on the upgrade and init as the
// connection_init payload (nil sends none).
func dialRaw(t *testing.T, srv *server.Server, header http.Header, init map[string]any) *rawConn {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	c, _, err := d.DialContext(testContext(t), wsURL(srv), header)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	msg := map[string]any{"type": "connection_init"}
	if init != nil {
		msg["payload"] = init
	}
	if err := c.WriteJSON(msg); err != nil {
		t.Fatal(err)
	}
	return &rawConn{t: t, c: c}
}

// read returns the next message that is not a ping, or the error that
// ended the connection.
func (r *rawConn) read() (map[string]any, error) {
	r.c.SetReadDeadline(time.Now().Add(15 * time.Second))
	for {
		var m map[string]any
		if err := r.c.ReadJSON(&m); err != nil {
			return nil, err
		}
		if m["type"] != "ping" {
			return m, nil
		}
	}
}

func (r *rawConn) acked() *rawConn {
	r.t.Helper()
	if m, err := r.read(); err != nil || m["type"] != "connection_ack" {
		r.t.Fatalf("after connection_init: %v %v", m, err)
	}
	return r
}

func (r *rawConn) send(id, query string) {
	r.t.Helper()
	if err := r.c.WriteJSON(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": query}}); err != nil {
		r.t.Fatal(err)
	}
}

// closedWith reads until the server closes the connection and checks the
// close code and that the reason contains want.
func (r *rawConn) closedWith(code int, want string) {
	r.t.Helper()
	for {
		m, err := r.read()
		if err == nil {
			if m["type"] == "next" || m["type"] == "complete" {
				continue // what was on its way before the close
			}
			r.t.Fatalf("got %v, want the connection closed with %d", m, code)
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) {
			r.t.Fatalf("connection ended with %v, want close code %d", err, code)
		}
		if ce.Code != code || !strings.Contains(ce.Text, want) {
			r.t.Fatalf("closed with %d %q, want %d and a reason containing %q", ce.Code, ce.Text, code, want)
		}
		return
	}
}

func bearerInit(secret string) map[string]any {
	return map[string]any{"authorization": "Bearer " + secret}
}

func TestRevokingATokenClosesItsConnections(t *testing.T) {
	srv := startServer(t, server.Config{})
	opID, opSecret := newToken(t, srv, "deployer", "OPERATOR", nil)
	viewerID, viewerSecret := newToken(t, srv, "watcher", "VIEWER", nil)
	_, otherSecret := newToken(t, srv, "bystander", "VIEWER", nil)

	operator := dialRaw(t, srv, nil, bearerInit(opSecret)).acked()
	viewer := dialRaw(t, srv, bearer(viewerSecret), nil).acked() // the credential on the upgrade
	viewer.send("1", `subscription { events { cursor } }`)
	other := dialRaw(t, srv, nil, bearerInit(otherSecret)).acked()
	other.send("1", `subscription { events { cursor } }`)

	for _, id := range []string{opID, viewerID} {
		if err := query(t, srv, `mutation($id: ID!) { revokeToken(id: $id) { id } }`, map[string]any{"id": id}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	operator.closedWith(4403, `token "deployer" was revoked`)
	viewer.closedWith(4403, `token "watcher" was revoked`)

	// Another token's subscription goes on.
	putRecord(t, srv, "cluster", "c-1", map[string]any{"id": "c-1", "name": "still-here"})
	if m, err := other.read(); err != nil || m["type"] != "next" {
		t.Fatalf("bystander's subscription: %v %v", m, err)
	}
	// A revoked token cannot open a new connection either.
	dialRaw(t, srv, nil, bearerInit(opSecret)).closedWith(4403, "revoked")
}

func TestAnExpiringTokenClosesItsConnectionWhenItExpires(t *testing.T) {
	srv := startServer(t, server.Config{})
	expires := time.Now().Add(2 * time.Second)
	_, secret := newToken(t, srv, "short-lived", "VIEWER", &expires)
	c := dialRaw(t, srv, nil, bearerInit(secret)).acked()
	c.send("1", `subscription { events { cursor } }`)
	c.closedWith(4403, `token "short-lived" expired`)
	if time.Now().Before(expires) {
		t.Fatal("closed before the token expired")
	}
}

func TestSigningOutClosesTheSessionsConnections(t *testing.T) {
	srv := startServer(t, server.Config{})
	_, secret := newToken(t, srv, "browser", "VIEWER", nil)
	cookie := login(t, srv, secret)
	c := dialRaw(t, srv, withCookie(cookie, srv.URL()), nil).acked()
	c.send("1", `subscription { events { cursor } }`)

	status, _ := doWith(t, withCookie(cookie, srv.URL()), http.MethodPost, srv.URL()+"/auth/logout", "")
	if status != http.StatusNoContent {
		t.Fatalf("logout: %d", status)
	}
	c.closedWith(4403, "session")
}

func TestRefusedConnectionsCloseWithACodeAndAReason(t *testing.T) {
	srv := startServer(t, server.Config{})
	dialRaw(t, srv, nil, bearerInit("isk_"+strings.Repeat("B", 42)+"A")).closedWith(4403, "not known to this server")
	dialRaw(t, srv, nil, nil).closedWith(4403, "no credential")

	_, secret := newToken(t, srv, "busy", "VIEWER", nil)
	for range server.DefaultLimits.MaxConnectionsPerToken {
		dialRaw(t, srv, nil, bearerInit(secret)).acked()
	}
	dialRaw(t, srv, nil, bearerInit(secret)).closedWith(4429, fmt.Sprintf("already has %d open WebSocket connections", server.DefaultLimits.MaxConnectionsPerToken))

	// Protocol mistakes are named too.
	c := dialRaw(t, srv, nil, bearerInit(adminSecret)).acked()
	c.send("1", `subscription { events { cursor } }`)
	c.send("1", `subscription { events { cursor } }`)
	c.closedWith(4409, "Subscriber for 1 already exists")
	c = dialRaw(t, srv, nil, bearerInit(adminSecret)).acked()
	if err := c.c.WriteJSON(map[string]any{"type": "connection_init"}); err != nil {
		t.Fatal(err)
	}
	c.closedWith(4429, "Too many initialisation requests")
	c = dialRaw(t, srv, nil, bearerInit(adminSecret)).acked()
	c.send(strings.Repeat("i", 200), `subscription { events { cursor } }`)
	c.closedWith(4400, "id of 1 to 128 bytes")
	c = dialRaw(t, srv, nil, bearerInit(adminSecret)).acked()
	if err := c.c.WriteMessage(websocket.TextMessage, []byte("not json")); err != nil {
		t.Fatal(err)
	}
	c.closedWith(4400, "JSON object")
	dialRaw(t, srv, nil, map[string]any{"type": "subscribe"}).closedWith(4403, "no credential")

	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	early, _, err := d.DialContext(testContext(t), wsURL(srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Close()
	if err := early.WriteJSON(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": "{ version }"}}); err != nil {
		t.Fatal(err)
	}
	(&rawConn{t: t, c: early}).closedWith(4401, "send connection_init first")
}

// A long waitOperation over plain HTTP ends when its token is revoked, and
// answers UNAUTHENTICATED rather than the operation.
func TestRevokingATokenEndsItsLongWait(t *testing.T) {
	srv := startServer(t, server.Config{})
	id, secret := newToken(t, srv, "waiter", "VIEWER", nil)
	putRecord(t, srv, ops.RecordKind, "op-wait", ops.Operation{ID: "op-wait", Kind: "Build", Status: ops.Running, UpdatedAt: time.Now()})
	answer := make(chan *gqltest.Response, 1)
	go func() {
		answer <- queryAs(t, srv, secret, `{ waitOperation(id: "op-wait", timeoutSeconds: 300) { id status } }`, nil)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for srv.Store().Subscribers() == 0 { // the wait follows the operation
		if time.Now().After(deadline) {
			t.Fatal("the wait never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := query(t, srv, `mutation($id: ID!) { revokeToken(id: $id) { id } }`, map[string]any{"id": id}).Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-answer:
		if code(res) != "UNAUTHENTICATED" || !strings.Contains(res.Errors[0].Message, "revoked") {
			t.Fatalf("the wait answered %s %+v, want UNAUTHENTICATED", res.Data, res.Errors)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the wait went on after its token was revoked")
	}
}
