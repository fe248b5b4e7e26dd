package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/resolvers/server"
	"github.com/instantstart/instantstart/resolvers/server/gqltest"
)

func wsURL(srv *server.Server) string { return "ws://" + srv.Addr() + "/graphql" }

// adminInit is the connection_init payload that signs in as the admin.
var adminInit = map[string]any{"authorization": "Bearer " + adminSecret}

func dial(t *testing.T, srv *server.Server) *gqltest.Client {
	t.Helper()
	c, err := gqltest.Dial(testContext(t), wsURL(srv), gqltest.Options{InitPayload: adminInit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// next returns the next response of a subscription, failing the test if the
// subscription ends or nothing comes in time.
func next(t *testing.T, ch <-chan gqltest.Response) gqltest.Response {
	t.Helper()
	select {
	case res, ok := <-ch:
		if !ok {
			t.Fatal("subscription ended early")
		}
		return res
	case <-time.After(10 * time.Second):
		t.Fatal("no response within 10 s")
	}
	panic("unreachable")
}

// ended fails the test unless the subscription ends soon.
func ended(t *testing.T, ch <-chan gqltest.Response) {
	t.Helper()
	select {
	case res, ok := <-ch:
		if ok {
			t.Fatalf("got %s after the end", res.Data)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("subscription still open after 10 s")
	}
}

type event struct {
	Cursor string
	Action string
	Target struct {
		Kind string
		ID   string
		Name *string
	}
	Operation *struct {
		ID     string
		Status string
	}
	Cluster *struct {
		ID   string
		Name string
	}
}

const eventsQuery = `subscription($since: String, $filter: EventFilter) {
  events(since: $since, filter: $filter) {
    cursor action target { kind id name } operation { id status } cluster { id name }
  }
}`

func nextEvent(t *testing.T, ch <-chan gqltest.Response) event {
	t.Helper()
	var got struct{ Events event }
	res := next(t, ch)
	if err := res.Decode(&got); err != nil {
		t.Fatal(err)
	}
	return got.Events
}

func cursor(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := store.ParseCursor(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestQueryOverWebSocket(t *testing.T) {
	srv := startServer(t, server.Config{Version: "ws-test"})
	c := dial(t, srv)
	res, err := c.Query(testContext(t), "{ version }", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Version string }
	if err := res.Decode(&got); err != nil || got.Version != "ws-test" {
		t.Fatalf("version = %q, %v", got.Version, err)
	}
	res, err = c.Query(testContext(t), "{ operations(first: 0) { totalCount } }", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 1 || res.Errors[0].Code() != "VALIDATION" {
		t.Fatalf("errors = %+v, want VALIDATION", res.Errors)
	}
}

func TestEventsReplayThenLive(t *testing.T) {
	srv := startServer(t, server.Config{})
	since := store.Cursor(srv.Store().LastSequence())
	putRecord(t, srv, ops.RecordKind, "op-1", ops.Operation{ID: "op-1", Kind: "Build", Status: ops.Running, UpdatedAt: time.Now()})
	putRecord(t, srv, "cluster", "c-1", map[string]any{"id": "c-1", "name": "alpha", "status": "CREATING"})

	c := dial(t, srv)
	ch, err := c.Subscribe(testContext(t), eventsQuery, map[string]any{"since": since})
	if err != nil {
		t.Fatal(err)
	}
	op := nextEvent(t, ch)
	if op.Action != "CREATED" || op.Target.Kind != "OPERATION" || op.Target.ID != "op-1" || op.Operation == nil || op.Operation.Status != "RUNNING" || op.Cluster != nil {
		t.Fatalf("first replayed event = %+v", op)
	}
	cl := nextEvent(t, ch)
	if cl.Target.Kind != "CLUSTER" || cl.Target.Name == nil || *cl.Target.Name != "alpha" || cl.Cluster == nil || cl.Cluster.Name != "alpha" || cl.Operation != nil {
		t.Fatalf("second replayed event = %+v", cl)
	}

	putRecord(t, srv, "cluster", "c-1", map[string]any{"id": "c-1", "name": "alpha", "status": "ACTIVE"})
	live := nextEvent(t, ch)
	if live.Action != "UPDATED" || live.Target.ID != "c-1" || cursor(t, live.Cursor) != cursor(t, cl.Cursor)+1 {
		t.Fatalf("live event = %+v after cursor %s", live, cl.Cursor)
	}

	// A filter by kind (upper case, as clients write it) and the cursor of
	// the first event: only the cluster's events follow.
	filtered, err := c.Subscribe(testContext(t), eventsQuery, map[string]any{"since": since, "filter": map[string]any{"kinds": []string{"CLUSTER"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CREATED", "UPDATED"} {
		if ev := nextEvent(t, filtered); ev.Target.Kind != "CLUSTER" || ev.Action != want {
			t.Fatalf("filtered event = %+v, want CLUSTER %s", ev, want)
		}
	}
}

func TestEventsBadCursorIsValidation(t *testing.T) {
	srv := startServer(t, server.Config{})
	c := dial(t, srv)
	ch, err := c.Subscribe(testContext(t), eventsQuery, map[string]any{"since": "yesterday"})
	if err != nil {
		t.Fatal(err)
	}
	res := next(t, ch)
	if len(res.Errors) == 0 || res.Errors[0].Code() != "VALIDATION" || res.Errors[0].Extensions["field"] != "since" {
		t.Fatalf("errors = %+v, want VALIDATION on since", res.Errors)
	}
	ended(t, ch)
}

func TestOperationUpdatedUntilTerminal(t *testing.T) {
	srv := startServer(t, server.Config{})
	op := ops.Operation{ID: "op-7", Kind: "Build", Status: ops.Running, UpdatedAt: time.Now().UTC(),
		Phases: []*ops.Phase{{Name: "one", Title: "Do one", Status: ops.PhaseRunning, Outputs: map[string]string{"b": "2", "a": "1"}}}}
	putRecord(t, srv, ops.RecordKind, op.ID, op)

	c := dial(t, srv)
	ch, err := c.Subscribe(testContext(t), `subscription($id: ID!) { operationUpdated(id: $id) { id status phases { name status outputs { key value } } } }`, map[string]any{"id": op.ID})
	if err != nil {
		t.Fatal(err)
	}
	type state struct {
		OperationUpdated struct {
			ID     string
			Status string
			Phases []struct {
				Name    string
				Status  string
				Outputs []struct{ Key, Value string }
			}
		}
	}
	var first state
	if err := json.Unmarshal(next(t, ch).Data, &first); err != nil {
		t.Fatal(err)
	}
	if got := first.OperationUpdated; got.Status != "RUNNING" || len(got.Phases) != 1 || got.Phases[0].Outputs[0].Key != "a" {
		t.Fatalf("first state = %+v", got)
	}

	op.Status, op.Phases[0].Status, op.UpdatedAt = ops.Succeeded, ops.PhaseSucceeded, op.UpdatedAt.Add(time.Second)
	putRecord(t, srv, ops.RecordKind, op.ID, op)
	var last state
	if err := json.Unmarshal(next(t, ch).Data, &last); err != nil {
		t.Fatal(err)
	}
	if got := last.OperationUpdated; got.Status != "SUCCEEDED" || got.Phases[0].Status != "SUCCEEDED" {
		t.Fatalf("second state = %+v", got)
	}
	ended(t, ch)

	ch, err = c.Subscribe(testContext(t), `subscription { operationUpdated(id: "missing") { id } }`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res := next(t, ch); len(res.Errors) == 0 || res.Errors[0].Code() != "NOT_FOUND" {
		t.Fatalf("unknown operation: %+v, want NOT_FOUND", res.Errors)
	}
}

func TestLegacyGraphQLWS(t *testing.T) {
	srv := startServer(t, server.Config{Version: "legacy"})
	since := store.Cursor(srv.Store().LastSequence())
	putRecord(t, srv, "cluster", "c-9", map[string]any{"id": "c-9", "name": "nine"})

	dialer := websocket.Dialer{Subprotocols: []string{"graphql-ws"}}
	conn, _, err := dialer.DialContext(testContext(t), wsURL(srv), bearer(adminSecret)) // the credential on the upgrade request
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if conn.Subprotocol() != "graphql-ws" {
		t.Fatalf("subprotocol = %q", conn.Subprotocol())
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	type msg struct {
		ID      string          `json:"id,omitempty"`
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload,omitempty"`
	}
	send := func(m msg) {
		t.Helper()
		if err := conn.WriteJSON(m); err != nil {
			t.Fatal(err)
		}
	}
	// read skips keep-alives ("ka") and returns the next message.
	read := func() msg {
		t.Helper()
		for {
			var m msg
			if err := conn.ReadJSON(&m); err != nil {
				t.Fatal(err)
			}
			if m.Type != "ka" {
				return m
			}
		}
	}
	send(msg{Type: "connection_init"})
	if m := read(); m.Type != "connection_ack" {
		t.Fatalf("after connection_init: %+v", m)
	}
	send(msg{ID: "1", Type: "start", Payload: json.RawMessage(`{"query": "{ version }"}`)})
	if m := read(); m.Type != "data" || m.ID != "1" || !strings.Contains(string(m.Payload), `"legacy"`) {
		t.Fatalf("query data: %+v", m)
	}
	if m := read(); m.Type != "complete" || m.ID != "1" {
		t.Fatalf("query end: %+v", m)
	}
	start, _ := json.Marshal(map[string]any{"query": eventsQuery, "variables": map[string]any{"since": since}})
	send(msg{ID: "2", Type: "start", Payload: start})
	if m := read(); m.Type != "data" || m.ID != "2" || !strings.Contains(string(m.Payload), `"c-9"`) {
		t.Fatalf("event data: %+v", m)
	}
	send(msg{ID: "2", Type: "stop"})
	send(msg{Type: "connection_terminate"})
}

func TestWebSocketFromAnotherOriginIsRefused(t *testing.T) {
	srv := startServer(t, server.Config{})
	_, err := gqltest.Dial(testContext(t), wsURL(srv), gqltest.Options{Header: http.Header{"Origin": {"http://evil.example"}}, InitPayload: adminInit})
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("cross-origin dial: err = %v, want HTTP 403", err)
	}
	c, err := gqltest.Dial(testContext(t), wsURL(srv), gqltest.Options{Header: http.Header{"Origin": {srv.URL()}}, InitPayload: adminInit})
	if err != nil {
		t.Fatalf("same-origin dial: %v", err)
	}
	c.Close()
}

func TestShutdownEndsSubscriptions(t *testing.T) {
	cfg := server.Config{Engine: app.Config{DataDir: t.TempDir(), SimSpeed: 2000, AdminToken: adminSecret}, Listen: "127.0.0.1:0"}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()

	c, err := gqltest.Dial(testContext(t), wsURL(srv), gqltest.Options{InitPayload: adminInit})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ch, err := c.Subscribe(testContext(t), eventsQuery, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The subscription is live once the server counts its subscriber.
	deadline := time.Now().Add(10 * time.Second)
	for srv.Store().Subscribers() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the subscription never reached the store")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	for range ch { // closed when the server drops the connection
	}
}

func TestAnExpiredCursorGetsCursorExpiredAndWhereToResume(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{EventRetention: store.EventRetention{MaxCount: 5}}})
	for i := range 20 {
		putRecord(t, srv, "cluster", fmt.Sprintf("c-%d", i), map[string]any{"id": fmt.Sprintf("c-%d", i), "name": "n"})
	}
	if _, err := srv.Store().PruneEvents(time.Now()); err != nil {
		t.Fatal(err)
	}
	c := dial(t, srv)
	ch, err := c.Subscribe(testContext(t), eventsQuery, map[string]any{"since": "1"})
	if err != nil {
		t.Fatal(err)
	}
	res := next(t, ch)
	if len(res.Errors) != 1 || res.Errors[0].Code() != "CURSOR_EXPIRED" {
		t.Fatalf("errors = %+v, want CURSOR_EXPIRED", res.Errors)
	}
	details, _ := res.Errors[0].Extensions["details"].(map[string]any)
	resume, _ := details["resumeFrom"].(string)
	if resume != store.Cursor(srv.Store().LastSequence()) || !strings.Contains(res.Errors[0].Message, "re-read") {
		t.Fatalf("CURSOR_EXPIRED = %q with resumeFrom %q, want the last cursor %d and what to do", res.Errors[0].Message, resume, srv.Store().LastSequence())
	}
	ended(t, ch)

	// Resubscribing from the given cursor continues with the next event.
	ch, err = c.Subscribe(testContext(t), eventsQuery, map[string]any{"since": resume})
	if err != nil {
		t.Fatal(err)
	}
	putRecord(t, srv, "cluster", "c-new", map[string]any{"id": "c-new", "name": "new"})
	if ev := nextEvent(t, ch); ev.Target.ID != "c-new" || cursor(t, ev.Cursor) != cursor(t, resume)+1 {
		t.Fatalf("after resuming: %+v", ev)
	}

	// No cursor means from the oldest event kept.
	ch, err = c.Subscribe(testContext(t), eventsQuery, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, ch); cursor(t, ev.Cursor) != srv.Store().OldestRetained() {
		t.Fatalf("without a cursor the first event is %s, want the oldest kept, %d", ev.Cursor, srv.Store().OldestRetained())
	}
}

// metric reads one unlabelled figure from /metrics.
func metric(t *testing.T, srv *server.Server, name string) float64 {
	t.Helper()
	_, body := get(t, srv.URL()+"/metrics")
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return 0
}

func TestSubscribersOfOneDocumentShareOneRenderingPerEvent(t *testing.T) {
	srv := startServer(t, server.Config{})
	since := store.Cursor(srv.Store().LastSequence())
	const subscribers = 3
	var chans []<-chan gqltest.Response
	for range subscribers {
		ch, err := dial(t, srv).Subscribe(testContext(t), eventsQuery, map[string]any{"since": since})
		if err != nil {
			t.Fatal(err)
		}
		chans = append(chans, ch)
	}
	// Another document is rendered on its own.
	other, err := dial(t, srv).Subscribe(testContext(t), `subscription($since: String) { events(since: $since) { cursor } }`, map[string]any{"since": since})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for srv.Store().Subscribers() < subscribers+1 {
		if time.Now().After(deadline) {
			t.Fatal("the subscriptions never reached the store")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := metric(t, srv, "instantstart_websocket_shared_documents"); got != 2 {
		t.Fatalf("shared documents = %v, want 2", got)
	}
	before := metric(t, srv, "instantstart_websocket_renders_total")
	putRecord(t, srv, "cluster", "c-1", map[string]any{"id": "c-1", "name": "shared"})
	var first string
	for _, ch := range chans {
		ev := nextEvent(t, ch)
		if ev.Target.ID != "c-1" || ev.Cluster == nil || ev.Cluster.Name != "shared" {
			t.Fatalf("event = %+v", ev)
		}
		if first == "" {
			first = ev.Cursor
		} else if ev.Cursor != first {
			t.Fatalf("subscribers saw different cursors %s and %s", first, ev.Cursor)
		}
	}
	if res := next(t, other); !strings.Contains(string(res.Data), first) {
		t.Fatalf("other document: %s", res.Data)
	}
	if got := metric(t, srv, "instantstart_websocket_renders_total") - before; got != 2 {
		t.Fatalf("one event to %d subscribers of one document and 1 of another was rendered %v times, want 2", subscribers, got)
	}
}
