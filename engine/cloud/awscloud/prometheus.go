package awscloud

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/instantstart/instantstart/engine/cloud"
)

// apsSigningName is the service Amazon Managed Service for Prometheus's
// query API takes SigV4 signatures for.
const apsSigningName = "aps"

// Bounds of one query.
const (
	// promMaxBody bounds one answer.
	promMaxBody = 8 << 20
	// promTimeout bounds one request.
	promTimeout = 30 * time.Second
)

var workspaceID = regexp.MustCompile(`^ws-[a-zA-Z0-9-]{1,64}$`)

// promWorkspaces is cloud.Prometheus over the Prometheus HTTP API of
// Amazon Managed Service for Prometheus: a form-encoded POST to
// /workspaces/<id>/api/v1/query_range on aps-workspaces.<region>.amazonaws.com
// (or on the configured base endpoint, AWS_ENDPOINT_URL), signed with
// SigV4 for aps with the provider's credentials and region.
type promWorkspaces struct {
	base    string
	client  aws.HTTPClient
	creds   aws.CredentialsProvider
	region  string
	signer  *v4.Signer
	now     func() time.Time
	maxBody int64
	timeout time.Duration
}

var _ cloud.Prometheus = (*promWorkspaces)(nil)

// newPromWorkspaces queries the workspaces of cfg's region with cfg's HTTP
// client and credentials.
func newPromWorkspaces(cfg aws.Config) *promWorkspaces {
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	base := "https://aps-workspaces." + cfg.Region + ".amazonaws.com"
	if cfg.BaseEndpoint != nil && *cfg.BaseEndpoint != "" {
		base = *cfg.BaseEndpoint
	}
	return &promWorkspaces{base: strings.TrimSuffix(base, "/"), client: client, creds: cfg.Credentials, region: cfg.Region, signer: v4.NewSigner(), now: time.Now,
		maxBody: promMaxBody, timeout: promTimeout}
}

// QueryRange sends q to workspace id's query_range and reads its matrix.
func (p *promWorkspaces) QueryRange(ctx context.Context, id string, q cloud.PromRangeQuery) ([]cloud.PromSeries, error) {
	if !workspaceID.MatchString(id) {
		return nil, &cloud.PromError{Status: http.StatusBadRequest, Type: "bad_data", Message: fmt.Sprintf("%q is not a workspace id (ws-...)", id)}
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	form := url.Values{
		"query": {q.Query},
		"start": {formatPromTime(q.Start)},
		"end":   {formatPromTime(q.End)},
		"step":  {strconv.FormatFloat(q.Step.Seconds(), 'f', -1, 64)},
	}
	body := form.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/workspaces/"+id+"/api/v1/query_range", strings.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("prometheus request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if p.creds == nil {
		return nil, errors.New("no AWS credentials to sign Prometheus queries with")
	}
	creds, err := p.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("retrieve AWS credentials for Prometheus: %w", err)
	}
	sum := sha256.Sum256([]byte(body))
	if err := p.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), apsSigningName, p.region, p.now()); err != nil {
		return nil, fmt.Errorf("sign Prometheus query: %w", err)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("prometheus query_range of workspace %s: %w", id, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, p.maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("read the Prometheus answer: %w", err)
	}
	if int64(len(raw)) > p.maxBody {
		return nil, &cloud.PromError{Status: resp.StatusCode, Type: "too_large", Message: fmt.Sprintf("the answer is more than %d bytes", p.maxBody)}
	}
	return decodeMatrix(resp.StatusCode, raw)
}

// decodeMatrix reads a query_range answer: the matrix of a success, or the
// error of a refusal (Prometheus's shape, or, from a gateway, its text).
func decodeMatrix(status int, raw []byte) ([]cloud.PromSeries, error) {
	var ans struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
		Message   string `json:"message"` // an AWS gateway's refusal
		Data      struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string    `json:"metric"`
				Values [][2]json.RawMessage `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	jsonErr := json.Unmarshal(raw, &ans)
	if status != http.StatusOK || ans.Status != "success" {
		typ, msg := ans.ErrorType, ans.Error
		if typ == "" {
			typ = strings.ReplaceAll(http.StatusText(status), " ", "")
		}
		if msg == "" {
			msg = ans.Message
		}
		if msg == "" {
			msg = strings.TrimSpace(string(raw[:min(len(raw), 300)]))
		}
		return nil, &cloud.PromError{Status: status, Type: typ, Message: msg}
	}
	if jsonErr != nil || ans.Data.ResultType != "matrix" {
		return nil, &cloud.PromError{Status: status, Type: "bad_response", Message: fmt.Sprintf("the answer is not a matrix (%q, %v)", ans.Data.ResultType, jsonErr)}
	}
	out := make([]cloud.PromSeries, 0, len(ans.Data.Result))
	for _, r := range ans.Data.Result {
		s := cloud.PromSeries{Labels: r.Metric, Points: make([]cloud.PromPoint, 0, len(r.Values))}
		for _, v := range r.Values {
			var at float64
			var val string
			if json.Unmarshal(v[0], &at) != nil || json.Unmarshal(v[1], &val) != nil {
				return nil, &cloud.PromError{Status: status, Type: "bad_response", Message: "a value is not [<unix time>, \"<number>\"]"}
			}
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return nil, &cloud.PromError{Status: status, Type: "bad_response", Message: fmt.Sprintf("value %q is not a number", val)}
			}
			sec, frac := math.Modf(at)
			s.Points = append(s.Points, cloud.PromPoint{Time: time.Unix(int64(sec), int64(frac*1e9)).UTC(), Value: f})
		}
		out = append(out, s)
	}
	return out, nil
}

// formatPromTime writes t as Prometheus reads a time: Unix seconds.
func formatPromTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', -1, 64)
}
