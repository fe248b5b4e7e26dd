// Package wsapi serves GraphQL over WebSocket: the graphql-transport-ws
// protocol, and the legacy graphql-ws (subscriptions-transport-ws) one.
//
// It differs from a plain transport in three ways. A connection lives only
// as long as its credential: Config.Watch ends it, with close code 4403 and
// the reason, when the credential is revoked, expires or is signed out.
// Refusals close with a code and a reason that say what was refused. And
// subscribers of the same document share their work: each value a
// subscription produces is rendered once per document (see group.go) and the
// same bytes are written to every subscriber, so that per subscriber there
// is only its own position in the event log, its framing and its write.
package wsapi

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/gorilla/websocket"
)

// The subprotocols served.
const (
	TransportWS = "graphql-transport-ws" // the current protocol
	LegacyWS    = "graphql-ws"           // subscriptions-transport-ws
)

// Close codes, as graphql-transport-ws defines them.
const (
	CloseBadRequest         = 4400
	CloseUnauthorized       = 4401 // an operation before connection_ack
	CloseForbidden          = 4403 // a refused or ended credential
	CloseInitTimeout        = 4408
	CloseSubscriberExists   = 4409
	CloseTooManyRequests    = 4429 // a second connection_init, or a limit
	CloseInternalError      = 4500
	closeGoingAway          = websocket.CloseGoingAway
	closeNormal             = websocket.CloseNormalClosure
	maxCloseReasonBytes     = 123
	defaultWriteTimeout     = 10 * time.Second
	defaultKeepAlive        = 15 * time.Second
	defaultInitTimeout      = 10 * time.Second
	defaultMessageReadLimit = 1 << 20
)

// Config says how to serve.
type Config struct {
	// Exec runs operations.
	Exec graphql.GraphExecutor
	// Init authenticates a connection at connection_init: ctx is the
	// upgrade request's context, payload the connection_init payload. It
	// returns the context the connection's operations run in, and a release
	// called once when the connection ends. An error refuses the
	// connection; Refusal maps it to a close code and reason.
	Init func(ctx context.Context, payload map[string]any) (context.Context, func(), error)
	// Watch calls end, at most once, when the credential of a connection's
	// context ends (revoked, expired, signed out); stop releases the watch.
	// Nil means credentials are only checked at connection_init.
	Watch func(ctx context.Context, end func(reason error)) (stop func())
	// Refusal returns the close code and reason of an error from Init or
	// Watch; nil means CloseForbidden and the error's text.
	Refusal func(err error) (code int, reason string)
	// Share returns, for a connection's context, the key of what its
	// subscribers may share (their role) and the context that a shared
	// rendering runs in. Nil means nothing is shared.
	Share func(ctx context.Context) (key string, shared context.Context)
	// CheckOrigin accepts or refuses a browser's upgrade.
	CheckOrigin func(r *http.Request) bool
	// ReadLimit bounds one message from a client; 0 means 1 MiB.
	ReadLimit int64
	// KeepAlive is how often the server pings (graphql-transport-ws) or
	// sends "ka" (graphql-ws); a graphql-transport-ws client silent for two
	// intervals is closed. 0 means 15 s.
	KeepAlive time.Duration
	// InitTimeout bounds the wait for connection_init; 0 means 10 s.
	InitTimeout time.Duration
	// WriteTimeout bounds one write to a client; 0 means 10 s.
	WriteTimeout time.Duration
	Logger       *slog.Logger
}

// Server is an http.Handler for WebSocket upgrades. Close it to stop its
// keep-alive loop and end its connections.
type Server struct {
	cfg      Config
	upgrader websocket.Upgrader
	groups   groups
	log      *slog.Logger

	renders  atomic.Uint64 // executions of a document on a value
	writes   atomic.Uint64 // writes to connections
	messages atomic.Uint64 // messages in them

	mu     sync.Mutex
	conns  map[*conn]struct{}
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

// New returns a server and starts its keep-alive loop.
func New(cfg Config) *Server {
	if cfg.ReadLimit <= 0 {
		cfg.ReadLimit = defaultMessageReadLimit
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = defaultKeepAlive
	}
	if cfg.InitTimeout <= 0 {
		cfg.InitTimeout = defaultInitTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = defaultWriteTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		cfg: cfg,
		log: cfg.Logger,
		upgrader: websocket.Upgrader{
			Subprotocols: []string{TransportWS, LegacyWS},
			CheckOrigin:  cfg.CheckOrigin,
			// Idle connections hold no write buffer: one is taken from the
			// pool for each write.
			WriteBufferPool: &sync.Pool{},
			ReadBufferSize:  1024,
		},
		conns: map[*conn]struct{}{},
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	s.groups.init(s)
	go s.keepAlive()
	return s
}

// Close ends every connection (close code 1001) and the keep-alive loop.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	close(s.stop)
	<-s.done
	for _, c := range conns {
		c.close(closeGoingAway, "the server is shutting down")
	}
}

// Written returns how many writes the server made to its connections and
// how many messages they held: a subscriber that is behind gets several
// messages in one write.
func (s *Server) Written() (writes, messages uint64) {
	return s.writes.Load(), s.messages.Load()
}

// Renders returns how many times a subscription document was executed on
// a value: once per event and document, however many subscribe to it.
func (s *Server) Renders() uint64 { return s.renders.Load() }

// Connections returns the number of open connections.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// ServeHTTP upgrades the request and serves the connection until it ends.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered with the HTTP error
	}
	c := newConn(s, ws, r)
	if !s.add(c) {
		c.close(closeGoingAway, "the server is shutting down")
		return
	}
	defer s.remove(c)
	c.serve()
}

func (s *Server) add(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) remove(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// keepAlive pings every connection each interval from one goroutine, so an
// idle connection costs no goroutine or timer of its own, and closes
// graphql-transport-ws connections that stopped answering.
func (s *Server) keepAlive() {
	defer close(s.done)
	t := time.NewTicker(s.cfg.KeepAlive)
	defer t.Stop()
	ping := appendFrame(nil, opText, []byte(`{"type":"ping"}`))
	ka := appendFrame(nil, opText, []byte(`{"type":"ka"}`))
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.mu.Lock()
			conns := make([]*conn, 0, len(s.conns))
			for c := range s.conns {
				conns = append(conns, c)
			}
			s.mu.Unlock()
			for _, c := range conns {
				c.keepAlive(now, 2*s.cfg.KeepAlive, ping, ka)
			}
		}
	}
}
