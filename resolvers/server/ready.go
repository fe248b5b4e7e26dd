package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/instantstart/instantstart/engine/store"
)

// readiness answers /readyz: the store serves reads and the provider
// answers.
type readiness struct {
	store    *store.Store
	provider *cachedCheck // nil: the provider is always ready (the simulator)
}

func newReadiness(st *store.Store, provider *cachedCheck) *readiness {
	return &readiness{store: st, provider: provider}
}

func (rd *readiness) check(ctx context.Context) error {
	if err := rd.store.Ping(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if rd.provider != nil {
		if err := rd.provider.check(ctx); err != nil {
			return fmt.Errorf("provider: %w", err)
		}
	}
	return nil
}

// providerCheck asks AWS who we are (STS GetCallerIdentity), at most once
// per readinessTTL; the simulator needs no check.
func (s *Server) providerCheck() *cachedCheck {
	if s.app.World != nil {
		return nil
	}
	return &cachedCheck{ttl: readinessTTL, timeout: readinessBudget, fn: func(ctx context.Context) error {
		region := s.app.Regions.DefaultRegion()
		p, err := s.app.Regions.Provider(region)
		if err != nil {
			return err
		}
		if _, err := p.STS.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err != nil {
			return fmt.Errorf("AWS STS GetCallerIdentity in %s failed; check the credentials and network: %w", region, err)
		}
		return nil
	}}
}

// cachedCheck runs fn at most once per ttl and otherwise answers its last
// result, so that a probe every second does not call AWS every second.
type cachedCheck struct {
	ttl     time.Duration
	timeout time.Duration
	fn      func(context.Context) error

	mu  sync.Mutex
	at  time.Time
	err error
}

func (c *cachedCheck) check(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < c.ttl {
		return c.err
	}
	// The result is shared, so one impatient prober must not cut it short.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
	defer cancel()
	c.err, c.at = c.fn(ctx), time.Now()
	return c.err
}
