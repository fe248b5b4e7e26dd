// Package gqltest is a small GraphQL client for tests: Post sends one
// request over HTTP, and Client speaks graphql-transport-ws over a real
// WebSocket (gorilla/websocket) for queries, mutations and subscriptions.
package gqltest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Error is one GraphQL error of a response.
type Error struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

// Code is the error's extensions.code, or "".
func (e Error) Code() string {
	code, _ := e.Extensions["code"].(string)
	return code
}

// Response is one GraphQL response (or one event of a subscription).
type Response struct {
	Data   json.RawMessage `json:"data,omitempty"`
	Errors []Error         `json:"errors,omitempty"`
}

// Err returns the response's errors as one error, or nil.
func (r *Response) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	msgs := make([]string, len(r.Errors))
	for i, e := range r.Errors {
		msgs[i] = fmt.Sprintf("%s (%s)", e.Message, e.Code())
	}
	return fmt.Errorf("graphql: %s", strings.Join(msgs, "; "))
}

// Decode unmarshals the response's data into v, failing when the response
// has errors.
func (r *Response) Decode(v any) error {
	if err := r.Err(); err != nil {
		return err
	}
	return json.Unmarshal(r.Data, v)
}

type request struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables,omitempty"`
}

// Post sends query with vars to the GraphQL endpoint url over HTTP POST,
// with header (an Authorization, say; nil for none). A response with
// GraphQL errors is not an error of Post: see Response.Err.
func Post(ctx context.Context, url string, header http.Header, query string, vars map[string]any) (*Response, error) {
	body, err := json.Marshal(request{Query: query, Variables: vars})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var out Response
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode response (HTTP %d): %w", res.StatusCode, err)
	}
	return &out, nil
}
