package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// client talks to the server through its public surfaces only: GraphQL
// over HTTP and the simulator's /sim endpoints. A request that gets no
// answer (the server was killed, or is starting again) is sent again, the
// same, once the server answers /readyz: a mutation carries its
// idempotency key, so the server tells a resent request from a new one.
type client struct {
	base, token string
	http        *http.Client
	// away bounds how long a request waits for the server to come back.
	away time.Duration
	// resent counts the requests sent again after getting no answer.
	resent atomic.Int64
}

// gqlError is an error the server answered a GraphQL request with.
type gqlError struct {
	Message    string `json:"message"`
	Extensions struct {
		Code      string `json:"code"`
		Retryable bool   `json:"retryable"`
	} `json:"extensions"`
}

func (e *gqlError) Error() string { return e.Extensions.Code + ": " + e.Message }

// errNoAnswer marks a request that got no answer.
var errNoAnswer = errors.New("no answer")

// graphql sends a query or mutation and decodes its data into out. It
// returns the first *gqlError the server answered with, and sends the
// request again, unchanged, while the server gives no answer.
func (c *client) graphql(ctx context.Context, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	var res struct {
		Data   json.RawMessage `json:"data"`
		Errors []*gqlError     `json:"errors"`
	}
	if err := c.send(ctx, http.MethodPost, "/graphql", body, http.StatusOK, &res); err != nil {
		return err
	}
	if len(res.Errors) > 0 {
		return res.Errors[0]
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(res.Data, out)
}

// sim sends a request to a /sim endpoint and decodes its answer into out,
// unless out is nil.
func (c *client) sim(ctx context.Context, method, path string, body []byte, want int, out any) error {
	return c.send(ctx, method, path, body, want, out)
}

// send makes an authenticated request until it gets an answer, waiting for
// the server between tries, for at most c.away without one.
func (c *client) send(ctx context.Context, method, path string, body []byte, want int, out any) error {
	deadline := time.Now().Add(c.away)
	for {
		err := c.once(ctx, method, path, body, want, out)
		if !errors.Is(err, errNoAnswer) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s %s: the server gave no answer for %s: %w", method, path, c.away, err)
		}
		if err := c.waitReady(ctx, deadline); err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		c.resent.Add(1)
	}
}

// once makes one request. A failed connection, a cut answer or a 5xx
// from the server being stopped is errNoAnswer.
func (c *client) once(ctx context.Context, method, path string, body []byte, want int, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", errNoAnswer, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%w: %v", errNoAnswer, err)
	}
	if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusBadGateway {
		return fmt.Errorf("%w: %s %s", errNoAnswer, resp.Status, strings.TrimSpace(string(data)))
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s = %s: %s", method, path, resp.Status, strings.TrimSpace(string(data)))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode %q: %v", method, path, data, err)
	}
	return nil
}

// waitReady polls /readyz, with a growing wait, until the server is ready
// or deadline passes.
func (c *client) waitReady(ctx context.Context, deadline time.Time) error {
	wait := 20 * time.Millisecond
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/readyz", nil)
		if err != nil {
			return err
		}
		if resp, err := c.http.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("the server is not ready")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}
