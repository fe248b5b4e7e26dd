package gqltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Subprotocol is the WebSocket subprotocol Client speaks.
const Subprotocol = "graphql-transport-ws"

// subscriptionBuffer bounds the events a Client holds for one subscription
// its test has not read yet; past it the client waits for the test.
const subscriptionBuffer = 256

// Options tune Dial; the zero value is fine.
type Options struct {
	// Header is sent with the WebSocket upgrade (an Origin, a token...).
	Header http.Header
	// InitPayload is the payload of connection_init.
	InitPayload any
}

// Client is one graphql-transport-ws connection. Its methods are safe for
// concurrent use.
type Client struct {
	conn    *websocket.Conn
	writeMu sync.Mutex // gorilla allows one writer at a time

	mu     sync.Mutex
	subs   map[string]*subscription
	nextID int
	err    error // why the connection ended

	closing chan struct{} // closed by Close
	done    chan struct{} // closed when the reader ends
	once    sync.Once
}

type subscription struct {
	ch   chan Response
	stop chan struct{} // closed when the subscriber's context ends
}

type message struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Dial connects to the WebSocket GraphQL endpoint url (ws://host/graphql)
// and completes connection_init / connection_ack before ctx ends.
func Dial(ctx context.Context, url string, opts Options) (*Client, error) {
	dialer := websocket.Dialer{Subprotocols: []string{Subprotocol}, HandshakeTimeout: 10 * time.Second}
	conn, res, err := dialer.DialContext(ctx, url, opts.Header)
	if err != nil {
		if res != nil {
			return nil, fmt.Errorf("dial %s: %w (HTTP %d)", url, err, res.StatusCode)
		}
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	if conn.Subprotocol() != Subprotocol {
		conn.Close()
		return nil, fmt.Errorf("dial %s: server chose subprotocol %q, want %q", url, conn.Subprotocol(), Subprotocol)
	}
	c := &Client{conn: conn, subs: map[string]*subscription{}, closing: make(chan struct{}), done: make(chan struct{})}
	if err := c.init(ctx, opts.InitPayload); err != nil {
		conn.Close()
		return nil, err
	}
	go c.read()
	return c, nil
}

func (c *Client) init(ctx context.Context, payload any) error {
	init := message{Type: "connection_init"}
	if payload != nil {
		raw, err := json.Marshal(payload)
		if err != nil {
			return err
		}
		init.Payload = raw
	}
	if err := c.write(init); err != nil {
		return fmt.Errorf("send connection_init: %w", err)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	c.conn.SetReadDeadline(deadline)
	defer c.conn.SetReadDeadline(time.Time{})
	for {
		var m message
		if err := c.conn.ReadJSON(&m); err != nil {
			return fmt.Errorf("wait for connection_ack: %w", err)
		}
		switch m.Type {
		case "connection_ack":
			return nil
		case "ping":
			if err := c.write(message{Type: "pong"}); err != nil {
				return err
			}
		default:
			return fmt.Errorf("wait for connection_ack: got %s %s", m.Type, m.Payload)
		}
	}
}

// Query runs a query or mutation over the connection and returns its one
// response.
func (c *Client) Query(ctx context.Context, query string, vars map[string]any) (*Response, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := c.Subscribe(ctx, query, vars)
	if err != nil {
		return nil, err
	}
	select {
	case res, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("no response: %w", c.Err())
		}
		return &res, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Subscribe starts an operation (usually a subscription) and returns its
// responses. The channel is closed when the server completes the operation
// (after an error response, too), when the connection ends, or soon after
// ctx ends (the client then sends complete).
func (c *Client) Subscribe(ctx context.Context, query string, vars map[string]any) (<-chan Response, error) {
	payload, err := json.Marshal(request{Query: query, Variables: vars})
	if err != nil {
		return nil, err
	}
	sub := &subscription{ch: make(chan Response, subscriptionBuffer), stop: make(chan struct{})}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.nextID++
	id := strconv.Itoa(c.nextID)
	c.subs[id] = sub
	c.mu.Unlock()
	if err := c.write(message{ID: id, Type: "subscribe", Payload: payload}); err != nil {
		c.mu.Lock()
		delete(c.subs, id) // never handed out, so nobody waits on its channel
		c.mu.Unlock()
		return nil, fmt.Errorf("send subscribe: %w", err)
	}
	go func() {
		select {
		case <-ctx.Done():
			close(sub.stop)
			if c.active(id) {
				c.write(message{ID: id, Type: "complete"})
			}
		case <-c.done:
		}
	}()
	return sub.ch, nil
}

// Err returns why the connection ended, or nil while it is open.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection and every subscription on it.
func (c *Client) Close() error {
	c.once.Do(func() {
		close(c.closing)
		c.writeMu.Lock()
		c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		c.writeMu.Unlock()
		c.conn.Close()
	})
	<-c.done
	return nil
}

func (c *Client) write(m message) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.conn.WriteJSON(m)
}

// read is the connection's one reader: it alone sends to and closes the
// subscriptions' channels.
func (c *Client) read() {
	defer close(c.done)
	for {
		var m message
		if err := c.conn.ReadJSON(&m); err != nil {
			select {
			case <-c.closing:
				err = errors.New("gqltest: client closed")
			default:
			}
			c.end(err)
			return
		}
		switch m.Type {
		case "next":
			var res Response
			if err := json.Unmarshal(m.Payload, &res); err != nil {
				res = Response{Errors: []Error{{Message: "gqltest: undecodable next payload: " + err.Error()}}}
			}
			c.deliver(m.ID, res)
		case "error":
			var errs []Error
			if err := json.Unmarshal(m.Payload, &errs); err != nil {
				errs = []Error{{Message: "gqltest: undecodable error payload: " + string(m.Payload)}}
			}
			c.deliver(m.ID, Response{Errors: errs})
			c.finish(m.ID)
		case "complete":
			c.finish(m.ID)
		case "ping":
			c.write(message{Type: "pong"})
		}
	}
}

func (c *Client) deliver(id string, res Response) {
	c.mu.Lock()
	sub := c.subs[id]
	c.mu.Unlock()
	if sub == nil {
		return
	}
	select {
	case sub.ch <- res:
	case <-sub.stop:
	case <-c.closing:
	}
}

func (c *Client) active(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subs[id] != nil
}

func (c *Client) finish(id string) {
	c.mu.Lock()
	sub := c.subs[id]
	delete(c.subs, id)
	c.mu.Unlock()
	if sub != nil {
		close(sub.ch)
	}
}

func (c *Client) end(err error) {
	c.mu.Lock()
	c.err = err
	subs := c.subs
	c.subs = map[string]*subscription{}
	c.mu.Unlock()
	for _, sub := range subs {
		close(sub.ch)
	}
}
