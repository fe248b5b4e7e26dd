package resolvers

import (
	"context"
	"sync"

	"github.com/instantstart/instantstart/engine/store"
)

// A subscription resolver returns a channel of values, and gqlgen executes
// the selection set on each value it reads, once per subscriber. With many
// subscribers of one document that repeats the same work for every one of
// them. The WebSocket transport avoids it with two context values:
//
//   - a Tap takes a subscriber's values in place of its channel, with the
//     stored event each came from, so the transport can render the value
//     once per document (store.Event.Shared) and write the same bytes to
//     every subscriber of that document;
//   - a Feed makes a subscription resolver stream whatever the transport
//     pushes, so that one long-lived execution of a document renders the
//     values of all its subscribers.
//
// Without either (HTTP, MCP, tests) resolvers send on their channel as usual.

// Tap receives a subscription's values in place of its channel.
type Tap interface {
	// Deliver hands over one value. ev is the stored event the value was
	// made from, shared by every subscriber that receives it, or nil for a
	// value made for this subscriber alone. The tap may hold it until
	// Flush. It reports false when the subscriber is gone and the stream
	// should end.
	Deliver(v any, ev *store.Event) bool
	// Flush writes what Deliver holds. Streams call it before they wait
	// and when they end, so a subscriber that is behind gets its backlog
	// in one write.
	Flush() bool
	// Go takes the body of a subscription's stream, to run it on the
	// subscriber's own goroutine once the operation is dispatched: a
	// subscriber then costs one goroutine, not two.
	Go(stream func())
}

type tapKey struct{}

// WithTap returns ctx whose subscription resolvers deliver to tap. The
// channel they return then carries nothing and is closed when the stream
// ends.
func WithTap(ctx context.Context, tap Tap) context.Context {
	return context.WithValue(ctx, tapKey{}, tap)
}

func tapOf(ctx context.Context) Tap {
	t, _ := ctx.Value(tapKey{}).(Tap)
	return t
}

// deliver hands v to the context's tap, else sends it on out, unless ctx
// ends first.
func deliver[T any](ctx context.Context, out chan<- T, v T, ev *store.Event) bool {
	if tap := tapOf(ctx); tap != nil {
		return ctx.Err() == nil && tap.Deliver(v, ev)
	}
	return send(ctx, out, v)
}

// goStream runs a subscription's stream: on the tap's goroutine when there
// is a tap, else on a goroutine of its own.
func goStream(ctx context.Context, stream func()) {
	if tap := tapOf(ctx); tap != nil {
		tap.Go(stream)
		return
	}
	go stream()
}

// flushOnWait makes sub flush the context's tap before it waits.
func flushOnWait(ctx context.Context, sub *store.Subscription) {
	if tap := tapOf(ctx); tap != nil {
		sub.BeforeWait(func() { tap.Flush() })
	}
}

// flush flushes the context's tap, if any.
func flush(ctx context.Context) {
	if tap := tapOf(ctx); tap != nil {
		tap.Flush()
	}
}

// Feed is the source of a subscription resolver that renders values pushed
// by the transport instead of reading the store.
type Feed struct {
	mu   sync.Mutex
	push func(any)
}

type feedKey struct{}

// WithFeed returns ctx whose subscription resolver streams what f.Push is
// given.
func WithFeed(ctx context.Context, f *Feed) context.Context {
	return context.WithValue(ctx, feedKey{}, f)
}

// Push hands v to the subscription resolver reading the feed. It reports
// false when no resolver reads it (the document's root field does not
// stream from a feed). Pushes must be read one at a time: the feed holds one
// value.
func (f *Feed) Push(v any) bool {
	f.mu.Lock()
	push := f.push
	f.mu.Unlock()
	if push == nil {
		return false
	}
	push(v)
	return true
}

// fed returns the channel of the context's feed when there is one.
func fed[T any](ctx context.Context) (<-chan T, bool) {
	f, _ := ctx.Value(feedKey{}).(*Feed)
	if f == nil {
		return nil, false
	}
	ch := make(chan T, 1)
	f.mu.Lock()
	f.push = func(v any) {
		t, _ := v.(T)
		ch <- t
	}
	f.mu.Unlock()
	return ch, true
}
