// Package hfhub reads models' metadata from the Hugging Face Hub's HTTP
// API: the files of a model at a revision, and the commit it resolves
// to. It implements cloud.ModelHub for the real provider.
package hfhub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/instantstart/instantstart/engine/cloud"
)

// DefaultEndpoint is the Hugging Face Hub.
const DefaultEndpoint = "https://huggingface.co"

// maxBody bounds an answer: a model's file list, with sizes, of a few
// thousand files is well under it.
const maxBody = 16 << 20

// Client reads the hub.
type Client struct {
	// Endpoint is the hub's base URL; empty means DefaultEndpoint.
	Endpoint string
	// HTTP sends the requests; nil means a client with a 30 s timeout.
	HTTP *http.Client
}

var _ cloud.ModelHub = (*Client)(nil)

// modelInfo is the part of the hub's model answer read here.
type modelInfo struct {
	ID       string          `json:"id"`
	SHA      string          `json:"sha"`
	Gated    json.RawMessage `json:"gated"` // false, "auto" or "manual"
	Siblings []struct {
		Name string `json:"rfilename"`
		Size *int64 `json:"size"`
	} `json:"siblings"`
}

// Model returns model id's files at revision, read with token.
func (c *Client) Model(ctx context.Context, id, revision, token string) (*cloud.HubModel, error) {
	endpoint := c.Endpoint
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	org, name, ok := strings.Cut(id, "/")
	if !ok {
		return nil, &cloud.HubError{Status: 404, Message: "a model id is org/name"}
	}
	u := fmt.Sprintf("%s/api/models/%s/%s/revision/%s?blobs=true", strings.TrimRight(endpoint, "/"), url.PathEscape(org), url.PathEscape(name), url.PathEscape(revision))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		// The URL holds no secret; the error names the host.
		return nil, fmt.Errorf("read model %s from the hub: %w", id, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("read model %s from the hub: %w", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &cloud.HubError{Status: resp.StatusCode, Message: hubMessage(resp, body)}
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("the hub's answer for %s is larger than %d bytes", id, maxBody)
	}
	var info modelInfo
	if err := json.Unmarshal(body, &info); err != nil {
		return nil, fmt.Errorf("the hub's answer for %s does not decode: %w", id, err)
	}
	if info.SHA == "" {
		return nil, errors.New("the hub's answer for " + id + " names no commit")
	}
	out := &cloud.HubModel{ID: id, Revision: revision, Commit: info.SHA, Gated: len(info.Gated) > 0 && string(info.Gated) != "false"}
	for _, s := range info.Siblings {
		if s.Size == nil {
			return nil, fmt.Errorf("the hub gave no size for %s of %s", s.Name, id)
		}
		out.Files = append(out.Files, cloud.HubFile{Path: s.Name, Size: *s.Size})
	}
	return out, nil
}

// hubMessage is what the hub said of a refusal: its X-Error-Message
// header, or the error of its JSON body.
func hubMessage(resp *http.Response, body []byte) string {
	if m := resp.Header.Get("X-Error-Message"); m != "" {
		return m
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	return http.StatusText(resp.StatusCode)
}
