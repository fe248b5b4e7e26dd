package wsapi

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// Frames built here must read back whole with a standard WebSocket client,
// at every length boundary of the frame header.
func TestAppendFrameReadsBackWithAWebSocketClient(t *testing.T) {
	for _, n := range []int{0, 1, 125, 126, 127, 65535, 65536, 1 << 20} {
		payload := bytes.Repeat([]byte("x"), n)
		var wire []byte
		wire = appendResult(wire, []byte(`{"id":"1","type":"next","payload":`), payload)
		wire = appendFrame(wire, opText, []byte("second"))
		client := pipe(t, wire)
		typ, got, err := client.ReadMessage()
		want := `{"id":"1","type":"next","payload":` + string(payload) + `}`
		if err != nil || typ != websocket.TextMessage || string(got) != want {
			t.Fatalf("length %d: read %d bytes, type %d, err %v", n, len(got), typ, err)
		}
		if _, got, err := client.ReadMessage(); err != nil || string(got) != "second" {
			t.Fatalf("length %d: the next frame read %q, %v", n, got, err)
		}
	}
}

func TestCloseReasonsFitAFrameAndStayUTF8(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	got := truncate(long)
	if len(got) > maxCloseReasonBytes || !utf8.ValidString(got) || !strings.HasPrefix(long, got) {
		t.Fatalf("truncate gave %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
	if truncate("short") != "short" {
		t.Fatal("a short reason changed")
	}
}
