package wsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/instantstart/instantstart/resolvers"
)

// maxOperations bounds the operations (queries, mutations and
// subscriptions) running at once on one connection; maxIDBytes bounds an
// operation's id, which every result message repeats.
const (
	maxOperations = 64
	maxIDBytes    = 128
)

// message is one protocol message, in either protocol.
type message struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// conn is one WebSocket connection.
type conn struct {
	s       *Server
	ws      *websocket.Conn
	legacy  bool
	reqCtx  context.Context
	headers http.Header

	ctx       context.Context // set once connection_init is accepted
	cancel    context.CancelFunc
	ready     atomic.Bool   // connection_init accepted
	lastRead  atomic.Int64  // unix nanoseconds of the last message read
	writing   atomic.Int64  // unix nanoseconds the write in progress began; 0 when none
	nc        net.Conn      // written directly: frames are built here
	wsem      chan struct{} // one writer at a time (a lock with a timeout)
	closeOnce sync.Once

	mu     sync.Mutex
	active map[string]context.CancelFunc
	ops    sync.WaitGroup
}

func newConn(s *Server, ws *websocket.Conn, r *http.Request) *conn {
	c := &conn{s: s, ws: ws, legacy: ws.Subprotocol() != TransportWS, reqCtx: r.Context(), headers: r.Header,
		active: map[string]context.CancelFunc{}, nc: ws.NetConn(), wsem: make(chan struct{}, 1)}
	c.lastRead.Store(time.Now().UnixNano())
	// Every frame this server sends is written by this file, under wsem:
	// the library's own replies to pings and closes would bypass it.
	ws.SetPingHandler(func(data string) error {
		c.writeRaw(appendFrame(nil, opPong, []byte(data)))
		return nil
	})
	ws.SetCloseHandler(func(code int, _ string) error {
		c.close(code, "")
		return nil
	})
	return c
}

// serve runs the connection: connection_init, then its messages until it
// ends, then waits for its operations to stop.
func (c *conn) serve() {
	defer c.ws.Close()
	c.ws.SetReadLimit(c.s.cfg.ReadLimit)
	release, stopWatch, ok := c.init()
	if !ok {
		return
	}
	defer release()
	defer stopWatch()
	defer c.ops.Wait()
	defer c.cancel()
	// The server's shutdown cancels the request's context.
	stop := context.AfterFunc(c.ctx, func() { c.close(closeGoingAway, "the server is shutting down") })
	defer stop()
	for {
		m, err := c.read()
		if errors.Is(err, errBadMessage) {
			c.close(CloseBadRequest, err.Error())
			return
		}
		if err != nil {
			return
		}
		if !c.handle(m) {
			return
		}
	}
}

// init waits for connection_init and authenticates the connection.
func (c *conn) init() (release, stopWatch func(), ok bool) {
	c.ws.SetReadDeadline(time.Now().Add(c.s.cfg.InitTimeout))
	m, err := c.read()
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		c.close(CloseInitTimeout, "Connection initialisation timeout")
		return nil, nil, false
	case errors.Is(err, errBadMessage):
		c.close(CloseBadRequest, err.Error())
		return nil, nil, false
	case err != nil:
		return nil, nil, false
	}
	switch m.Type {
	case "connection_init":
	case "subscribe", "start":
		c.close(CloseUnauthorized, "Unauthorized: send connection_init first")
		return nil, nil, false
	case "connection_terminate":
		c.close(closeNormal, "")
		return nil, nil, false
	default:
		c.close(CloseBadRequest, fmt.Sprintf("expected connection_init, got %q", m.Type))
		return nil, nil, false
	}
	var payload map[string]any
	if len(m.Payload) > 0 && string(m.Payload) != "null" {
		if err := json.Unmarshal(m.Payload, &payload); err != nil {
			c.close(CloseBadRequest, "the connection_init payload must be a JSON object")
			return nil, nil, false
		}
	}
	ctx, release, err := c.s.cfg.Init(c.reqCtx, payload)
	if err != nil {
		c.refuse(err)
		return nil, nil, false
	}
	c.ws.SetReadDeadline(time.Time{})
	c.ctx, c.cancel = context.WithCancel(ctx)
	stopWatch = func() {}
	if c.s.cfg.Watch != nil {
		stopWatch = c.s.cfg.Watch(c.ctx, c.refuse)
	}
	c.ready.Store(true)
	if !c.writeMessage(message{Type: "connection_ack"}) {
		c.cancel()
		stopWatch()
		release()
		return nil, nil, false
	}
	if c.legacy {
		c.writeMessage(message{Type: "ka"})
	}
	return release, stopWatch, true
}

// refuse closes the connection for a credential that was refused or ended.
func (c *conn) refuse(err error) {
	code, reason := CloseForbidden, err.Error()
	if c.s.cfg.Refusal != nil {
		code, reason = c.s.cfg.Refusal(err)
	}
	if c.legacy {
		payload, _ := json.Marshal(map[string]string{"message": reason})
		c.writeMessage(message{Type: "connection_error", Payload: payload})
	}
	c.close(code, reason)
}

var errBadMessage = errors.New("a message must be a JSON object with a string type")

func (c *conn) read() (message, error) {
	_, data, err := c.ws.ReadMessage()
	if err != nil {
		return message{}, err
	}
	c.lastRead.Store(time.Now().UnixNano())
	var m message
	if err := json.Unmarshal(data, &m); err != nil || m.Type == "" {
		return message{}, errBadMessage
	}
	return m, nil
}

// handle acts on one message after connection_ack; false ends the
// connection.
func (c *conn) handle(m message) bool {
	switch m.Type {
	case "subscribe", "start":
		return c.subscribe(m.ID, m.Payload)
	case "complete", "stop":
		c.mu.Lock()
		cancel := c.active[m.ID]
		c.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	case "ping":
		if !c.legacy {
			c.writeMessage(message{Type: "pong", Payload: m.Payload})
		}
	case "pong":
	case "connection_init":
		c.close(CloseTooManyRequests, "Too many initialisation requests")
		return false
	case "connection_terminate":
		c.close(closeNormal, "")
		return false
	default:
		c.close(CloseBadRequest, fmt.Sprintf("unknown message type %q", m.Type))
		return false
	}
	return true
}

// subscribe starts an operation under its id.
func (c *conn) subscribe(id string, payload json.RawMessage) bool {
	if id == "" || len(id) > maxIDBytes {
		c.close(CloseBadRequest, fmt.Sprintf("a subscribe message needs an id of 1 to %d bytes", maxIDBytes))
		return false
	}
	c.mu.Lock()
	if _, dup := c.active[id]; dup {
		c.mu.Unlock()
		c.close(CloseSubscriberExists, truncate("Subscriber for "+id+" already exists"))
		return false
	}
	if len(c.active) >= maxOperations {
		c.mu.Unlock()
		c.sendErrors(id, limitError(fmt.Sprintf("this connection already runs %d operations, the most allowed; wait for one to end or complete one", maxOperations)))
		return true
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.active[id] = cancel
	c.ops.Add(1)
	c.mu.Unlock()
	go c.execute(ctx, cancel, id, payload, graphql.Now())
	return true
}

// execute runs one operation and sends its responses, then complete unless
// the client stopped it or the connection is ending.
func (c *conn) execute(ctx context.Context, cancel context.CancelFunc, id string, payload json.RawMessage, start time.Time) {
	defer c.ops.Done()
	defer func() {
		c.mu.Lock()
		delete(c.active, id)
		c.mu.Unlock()
		cancel()
	}()
	opCtx := ctx
	var params graphql.RawParams
	if err := json.Unmarshal(payload, &params); err != nil || params.Query == "" {
		c.sendErrors(id, &gqlerror.Error{Message: "the subscribe payload must be {\"query\": ..., \"variables\": {...}, \"operationName\": ...}", Extensions: map[string]any{"code": "VALIDATION"}})
		return
	}
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	params.Headers = c.headers
	ctx = graphql.StartOperationTrace(ctx)
	exec := c.s.cfg.Exec
	rc, errs := exec.CreateOperationContext(ctx, &params)
	if errs != nil {
		c.next(id, exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs))
		c.complete(id)
		return
	}
	var m *member
	if rc.Operation != nil && rc.Operation.Operation == ast.Subscription && c.s.cfg.Share != nil {
		m = c.s.groups.join(c, id, &params)
		defer m.leave()
		ctx = resolvers.WithTap(ctx, m)
	}
	responses, ctx := exec.DispatchOperation(ctx, rc)
	if m != nil && m.stream != nil {
		m.stream() // delivers through m; returns when the stream ends
	}
	for {
		resp := responses(ctx)
		if resp == nil || !c.next(id, resp) {
			break
		}
	}
	if opCtx.Err() == nil {
		c.complete(id)
	}
}

func (c *conn) nextType() string {
	if c.legacy {
		return "data"
	}
	return "next"
}

// framePrefix is the start of every result message of operation id; the
// payload and a closing brace follow.
func (c *conn) framePrefix(id string) []byte {
	quoted, _ := json.Marshal(id)
	return fmt.Appendf(nil, `{"id":%s,"type":%q,"payload":`, quoted, c.nextType())
}

func (c *conn) next(id string, resp *graphql.Response) bool {
	payload, err := json.Marshal(resp)
	if err != nil {
		c.s.log.Error("encode a GraphQL response", "err", err)
		return false
	}
	return c.writeFrame(c.framePrefix(id), payload)
}

func (c *conn) complete(id string) { c.writeMessage(message{ID: id, Type: "complete"}) }

func (c *conn) sendErrors(id string, errs ...*gqlerror.Error) {
	payload, _ := json.Marshal(errs)
	c.writeMessage(message{ID: id, Type: "error", Payload: payload})
}

func limitError(msg string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": "LIMIT"}}
}

func (c *conn) writeMessage(m message) bool {
	b, err := json.Marshal(m)
	if err != nil {
		return false
	}
	return c.writeRaw(appendFrame(nil, opText, b))
}

// writeFrame writes prefix, payload and, after a prefix, the closing brace
// as one text message.
func (c *conn) writeFrame(prefix, payload []byte) bool {
	return c.writeRaw(appendResult(nil, prefix, payload))
}

// appendResult appends a text frame holding prefix, payload and, after a
// prefix, the closing brace.
func appendResult(dst, prefix, payload []byte) []byte {
	if len(prefix) == 0 {
		return appendFrame(dst, opText, payload)
	}
	return appendFrame(dst, opText, prefix, payload, []byte{'}'})
}

// writeRaw writes whole frames with one write. A connection that cannot be
// written to within the write timeout is dropped.
func (c *conn) writeRaw(frames []byte) bool {
	return c.writeFrames(frames, 1)
}

// writeFrames writes n whole frames with one write.
func (c *conn) writeFrames(frames []byte, n int) bool {
	c.s.writes.Add(1)
	c.s.messages.Add(uint64(n))
	if !c.lock(c.s.cfg.WriteTimeout) {
		c.closeNow()
		return false
	}
	defer c.unlock()
	// No deadline is set per write (a timer per write costs more than the
	// write); the keep-alive loop drops a connection stuck in one instead.
	c.writing.Store(time.Now().UnixNano())
	_, err := c.nc.Write(frames)
	c.writing.Store(0)
	if err != nil {
		c.closeNow()
		return false
	}
	return true
}

func (c *conn) lock(within time.Duration) bool {
	select {
	case c.wsem <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case c.wsem <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

func (c *conn) unlock() { <-c.wsem }

// The frame opcodes this server sends.
const (
	opText  = 0x1
	opClose = 0x8
	opPing  = 0x9
	opPong  = 0xA
)

// appendFrame appends one final, unmasked WebSocket frame (RFC 6455 5.2)
// whose payload is the concatenation of parts.
func appendFrame(dst []byte, opcode byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	dst = append(dst, 0x80|opcode)
	switch {
	case n < 126:
		dst = append(dst, byte(n))
	case n <= 0xFFFF:
		dst = append(dst, 126, byte(n>>8), byte(n))
	default:
		dst = append(dst, 127, 0, 0, 0, 0, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	for _, p := range parts {
		dst = append(dst, p...)
	}
	return dst
}

// keepAlive pings the connection (the frame ping, or ka for graphql-ws),
// or closes it when it has been silent for longer than silent. It never
// blocks the caller.
func (c *conn) keepAlive(now time.Time, silent time.Duration, ping, ka []byte) {
	if began := c.writing.Load(); began != 0 && now.Sub(time.Unix(0, began)) > c.s.cfg.WriteTimeout {
		c.closeNow() // the client stopped reading: the write cannot finish
		return
	}
	if !c.ready.Load() {
		return // the init timeout covers connections not yet initialised
	}
	if !c.legacy && now.Sub(time.Unix(0, c.lastRead.Load())) > silent {
		c.close(CloseInitTimeout, fmt.Sprintf("no message or pong for %s: answer the server's pings", silent))
		return
	}
	frame := ping
	if c.legacy {
		frame = ka
	}
	go func() {
		select {
		case c.wsem <- struct{}{}:
		default:
			return // a connection busy writing is alive enough
		}
		c.unlock()
		c.writeRaw(frame)
	}()
}

// close sends a close frame with code and reason, then closes the
// connection; the reader then ends the connection's operations.
func (c *conn) close(code int, reason string) {
	c.closeOnce.Do(func() {
		if c.lock(time.Second) {
			c.nc.SetWriteDeadline(time.Now().Add(time.Second))
			c.nc.Write(appendFrame(nil, opClose, websocket.FormatCloseMessage(code, truncate(reason))))
			c.unlock()
		}
		c.nc.Close()
	})
}

// closeNow drops a connection that can no longer be written to.
func (c *conn) closeNow() {
	c.closeOnce.Do(func() { c.nc.Close() })
}

// truncate cuts a close reason to the 123 bytes a close frame holds,
// keeping whole characters.
func truncate(s string) string {
	if len(s) <= maxCloseReasonBytes {
		return s
	}
	s = s[:maxCloseReasonBytes]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
