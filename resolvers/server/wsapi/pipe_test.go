package wsapi

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// pipe serves one WebSocket connection that writes wire as it is, and
// returns the client's end.
func pipe(t *testing.T, wire []byte) *websocket.Conn {
	t.Helper()
	conns := make(chan net.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up := websocket.Upgrader{}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		nc := ws.NetConn()
		nc.Write(wire)
		conns <- nc
	}))
	t.Cleanup(srv.Close)
	client, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	nc := <-conns
	t.Cleanup(func() { nc.Close() })
	return client
}
