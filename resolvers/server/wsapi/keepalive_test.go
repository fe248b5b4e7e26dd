package wsapi

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// A graphql-transport-ws client that answers the server's pings stays; one
// that stops answering is closed with 4408.
func TestKeepAlivePingsAndClosesSilentClients(t *testing.T) {
	s := New(Config{
		Init: func(ctx context.Context, _ map[string]any) (context.Context, func(), error) {
			return ctx, func() {}, nil
		},
		KeepAlive: time.Second,
	})
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	d := websocket.Dialer{Subprotocols: []string{TransportWS}}
	c, _, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.WriteJSON(map[string]string{"type": "connection_init"})
	read := func() (map[string]any, error) {
		c.SetReadDeadline(time.Now().Add(15 * time.Second))
		var m map[string]any
		err := c.ReadJSON(&m)
		return m, err
	}
	if m, err := read(); err != nil || m["type"] != "connection_ack" {
		t.Fatalf("after connection_init: %v %v", m, err)
	}
	for range 3 {
		m, err := read()
		if err != nil || m["type"] != "ping" {
			t.Fatalf("want a ping, got %v %v", m, err)
		}
		c.WriteJSON(map[string]string{"type": "pong"})
	}
	for { // now silent: pings go unanswered until the server gives up
		m, err := read()
		if err == nil && m["type"] == "ping" {
			continue
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != CloseInitTimeout || !strings.Contains(ce.Text, "answer the server's pings") {
			t.Fatalf("a silent client ended with %v %v, want close 4408", m, err)
		}
		return
	}
}
