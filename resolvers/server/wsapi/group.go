package wsapi

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/resolvers"
)

// A group is the subscribers of one document: the same query, operation
// name and variables, from callers whose role is the same. The group keeps
// one long-lived execution of the document, fed by resolvers.Feed, and
// renders each value once; the rendering of a stored event is kept on the
// event (store.Event.Shared), so however many subscribers receive the event,
// the document runs once and its result is serialized once. Each
// subscriber keeps its own position in the log (its since, its filter, its
// replay), so sharing changes nothing it receives.
type group struct {
	gs     *groups
	key    [sha256.Size]byte
	refs   int
	params graphql.RawParams
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex // one rendering at a time
	feed    *resolvers.Feed
	next    graphql.ResponseHandler
	execCtx context.Context
}

type groups struct {
	s  *Server
	mu sync.Mutex
	m  map[[sha256.Size]byte]*group
}

func (gs *groups) init(s *Server) {
	gs.s = s
	gs.m = map[[sha256.Size]byte]*group{}
}

// member is one subscriber in a group: the resolvers' Tap for its
// subscription.
type member struct {
	c       *conn
	g       *group
	prefix  []byte
	once    sync.Once
	pending []byte // frames delivered and not yet written
	held    int    // how many frames pending holds
	failed  bool   // a write failed: the connection is gone
	stream  func() // the subscription's stream, run by execute
}

// flushAt is the size of held frames past which Deliver writes them.
const flushAt = 32 << 10

// join adds operation id of c to the group of its document.
func (gs *groups) join(c *conn, id string, params *graphql.RawParams) *member {
	role, shared := gs.s.cfg.Share(c.ctx)
	vars, _ := json.Marshal(params.Variables) // map keys sorted: the same variables, the same bytes
	h := sha256.New()
	for _, part := range []string{role, params.OperationName, params.Query, string(vars)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	gs.mu.Lock()
	g := gs.m[key]
	if g == nil {
		g = &group{gs: gs, key: key, feed: &resolvers.Feed{},
			params: graphql.RawParams{Query: params.Query, OperationName: params.OperationName, Variables: params.Variables}}
		g.ctx, g.cancel = context.WithCancel(shared)
		gs.m[key] = g
	}
	g.refs++
	gs.mu.Unlock()
	return &member{c: c, g: g, prefix: c.framePrefix(id)}
}

// leave removes the member; the last one out ends the group's execution.
func (m *member) leave() {
	m.once.Do(func() {
		gs := m.g.gs
		gs.mu.Lock()
		defer gs.mu.Unlock()
		if m.g.refs--; m.g.refs == 0 {
			delete(gs.m, m.g.key)
			m.g.cancel()
		}
	})
}

// Deliver adds the group's rendering of v to the frames the member holds,
// and writes them once they are many. The stream calls Flush before it
// waits, so a subscriber that keeps up gets each value at once, and one
// that is behind gets its backlog in few writes.
func (m *member) Deliver(v any, ev *store.Event) bool {
	if m.failed {
		return false
	}
	m.pending = appendResult(m.pending, m.prefix, m.g.payload(v, ev))
	m.held++
	if len(m.pending) >= flushAt {
		return m.Flush()
	}
	return true
}

// Flush writes the held frames.
func (m *member) Flush() bool {
	if m.failed || len(m.pending) == 0 {
		return !m.failed
	}
	m.failed = !m.c.writeFrames(m.pending, m.held)
	m.held = 0
	if cap(m.pending) > 2*flushAt {
		m.pending = nil // an idle subscriber keeps no large buffer
	} else {
		m.pending = m.pending[:0]
	}
	return !m.failed
}

// Go keeps the subscription's stream for execute to run.
func (m *member) Go(stream func()) { m.stream = stream }

// Groups returns the number of documents with live subscribers.
func (s *Server) Groups() int {
	s.groups.mu.Lock()
	defer s.groups.mu.Unlock()
	return len(s.groups.m)
}

// payload is the rendering of v: once per stored event and group.
func (g *group) payload(v any, ev *store.Event) []byte {
	if ev == nil {
		return g.render(v)
	}
	return ev.Shared(g, func() any { return g.render(v) }).([]byte)
}

// render executes the group's document on v and returns the result as JSON.
func (g *group) render(v any) []byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gs.s.renders.Add(1)
	err := g.start()
	if err == nil {
		if !g.feed.Push(v) {
			err = errors.New("the subscription field does not stream from a feed")
		} else if resp := g.next(g.execCtx); resp == nil {
			err = errors.New("the shared execution ended")
		} else {
			var b []byte
			if b, err = json.Marshal(resp); err == nil {
				return b
			}
		}
	}
	g.gs.s.log.Error("render a subscription value", "err", err)
	g.next = nil // start afresh next time
	b, _ := json.Marshal(graphql.Response{Errors: gqlerror.List{internalError("internal error: the server could not render this subscription value; resubscribe, and if it keeps failing report it with the server log")}})
	return b
}

// start dispatches the group's execution once.
func (g *group) start() error {
	if g.next != nil {
		return nil
	}
	if err := g.ctx.Err(); err != nil {
		return err
	}
	ctx := graphql.StartOperationTrace(resolvers.WithFeed(g.ctx, g.feed))
	params := g.params
	now := graphql.Now()
	params.ReadTime = graphql.TraceTiming{Start: now, End: now}
	exec := g.gs.s.cfg.Exec
	rc, errs := exec.CreateOperationContext(ctx, &params)
	if errs != nil {
		return errs
	}
	g.next, g.execCtx = exec.DispatchOperation(ctx, rc)
	return nil
}

func internalError(msg string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": "INTERNAL"}}
}
