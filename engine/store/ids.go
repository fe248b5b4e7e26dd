package store

import (
	"crypto/rand"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// IDs makes sortable unique ids (ULIDs): their order is their creation order.
type IDs struct {
	mu      sync.Mutex
	entropy *ulid.MonotonicEntropy
}

// NewID returns a new ULID string.
func (g *IDs) NewID() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.entropy == nil {
		g.entropy = ulid.Monotonic(rand.Reader, 0)
	}
	return ulid.MustNew(ulid.Timestamp(time.Now()), g.entropy).String()
}
