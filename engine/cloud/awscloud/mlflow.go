package awscloud

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/cloud"
)

// mlflowSigningName is the service SageMaker managed MLflow's REST API
// takes SigV4 signatures for, as the sagemaker-mlflow plugin signs them.
const mlflowSigningName = "sagemaker-mlflow"

// Bounds of what one read of a tracking server may cost.
const (
	// mlflowMaxBody bounds one response body.
	mlflowMaxBody = 16 << 20
	// mlflowPageSize is how many points one page of a metric's history
	// asks for (MLflow's own cap is 25,000).
	mlflowPageSize = 10000
	// mlflowMaxPages bounds the pages of one metric's history.
	mlflowMaxPages = 50
	// mlflowTimeout bounds one request.
	mlflowTimeout = 30 * time.Second
)

// mlflowServers is the part of SageMaker that says where a tracking
// server's MLflow API is.
type mlflowServers interface {
	DescribeMlflowTrackingServer(ctx context.Context, in *sagemaker.DescribeMlflowTrackingServerInput, opts ...func(*sagemaker.Options)) (*sagemaker.DescribeMlflowTrackingServerOutput, error)
}

// mlflowTracking is cloud.MLflowTracking over the MLflow REST API of
// SageMaker managed MLflow tracking servers: each request goes to the
// server's TrackingServerUrl (from DescribeMlflowTrackingServer, kept once
// the server serves) signed with SigV4 for sagemaker-mlflow with the
// provider's credentials and region. Response bodies and the pages of a
// metric's history are bounded.
type mlflowTracking struct {
	servers mlflowServers
	client  aws.HTTPClient
	creds   aws.CredentialsProvider
	region  string
	signer  *v4.Signer
	now     func() time.Time

	maxBody  int64
	pageSize int
	maxPages int
	timeout  time.Duration

	mu   sync.Mutex
	urls map[string]string // by tracking server ARN
}

var _ cloud.MLflowTracking = (*mlflowTracking)(nil)

// newMLflowTracking reads the tracking servers of cfg's region, finding
// them through servers and calling them with cfg's HTTP client and
// credentials.
func newMLflowTracking(servers mlflowServers, cfg aws.Config) *mlflowTracking {
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	return &mlflowTracking{servers: servers, client: client, creds: cfg.Credentials, region: cfg.Region, signer: v4.NewSigner(), now: time.Now,
		maxBody: mlflowMaxBody, pageSize: mlflowPageSize, maxPages: mlflowMaxPages, timeout: mlflowTimeout, urls: map[string]string{}}
}

var trackingServerArn = regexp.MustCompile(`^arn:aws[a-z-]*:sagemaker:([a-z0-9-]+):(\d{12}):mlflow-tracking-server/([a-zA-Z0-9](-*[a-zA-Z0-9]){0,255})$`)

// mlflowError is a refusal of the MLflow API (or of finding the server),
// as an API error whose code the engine maps like any AWS code.
func mlflowError(code, format string, args ...any) error {
	return &smithy.GenericAPIError{Code: code, Message: fmt.Sprintf(format, args...), Fault: smithy.FaultClient}
}

// serverURL returns where tracking server arn serves the MLflow API.
func (m *mlflowTracking) serverURL(ctx context.Context, arn string) (string, error) {
	m.mu.Lock()
	u, ok := m.urls[arn]
	m.mu.Unlock()
	if ok {
		return u, nil
	}
	parts := trackingServerArn.FindStringSubmatch(arn)
	switch {
	case parts == nil:
		return "", mlflowError("ValidationException", "%q is not a SageMaker MLflow tracking server ARN (arn:aws:sagemaker:<region>:<account>:mlflow-tracking-server/<name>)", arn)
	case parts[1] != m.region:
		return "", mlflowError("ValidationException", "tracking server %s is in %s; it is read through the %s provider, not %s's", arn, parts[1], parts[1], m.region)
	}
	out, err := m.servers.DescribeMlflowTrackingServer(ctx, &sagemaker.DescribeMlflowTrackingServerInput{TrackingServerName: aws.String(parts[3])})
	if err != nil {
		return "", fmt.Errorf("describe MLflow tracking server %s: %w", parts[3], err)
	}
	if got := aws.ToString(out.TrackingServerArn); got != arn {
		return "", mlflowError("ResourceNotFound", "tracking server %s not found (the server named %s is %s)", arn, parts[3], got)
	}
	if st := string(out.TrackingServerStatus); !cloud.MLflowServerServing(st) {
		return "", mlflowError("TEMPORARILY_UNAVAILABLE", "tracking server %s is %s; it serves the MLflow API once it is Created", parts[3], st)
	}
	base, err := url.Parse(aws.ToString(out.TrackingServerUrl))
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return "", mlflowError("InvalidResponse", "tracking server %s has no usable URL (%q)", parts[3], aws.ToString(out.TrackingServerUrl))
	}
	u = strings.TrimSuffix(base.String(), "/")
	m.mu.Lock()
	m.urls[arn] = u
	m.mu.Unlock()
	return u, nil
}

// call sends one signed request to tracking server arn and decodes its
// JSON answer into out.
func (m *mlflowTracking) call(ctx context.Context, arn, method, path string, query url.Values, body, out any) error {
	base, err := m.serverURL(ctx, arn)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	var payload []byte
	if body != nil {
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("encode MLflow request %s: %w", path, err)
		}
	}
	target := base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var reader io.Reader
	if payload != nil {
		reader = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return fmt.Errorf("MLflow request %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	// The sagemaker-mlflow plugin names the server this way on every
	// request; the server's own URL does not need it, but takes it.
	req.Header.Set("X-Mlflow-Sm-Tracking-Server-Arn", arn)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if m.creds == nil {
		return errors.New("no AWS credentials to sign MLflow requests with")
	}
	creds, err := m.creds.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("retrieve AWS credentials for MLflow: %w", err)
	}
	sum := sha256.Sum256(payload)
	if err := m.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), mlflowSigningName, m.region, m.now()); err != nil {
		return fmt.Errorf("sign MLflow request %s: %w", path, err)
	}
	resp, err := m.client.Do(req)
	if err != nil {
		m.mu.Lock()
		delete(m.urls, arn) // the server may have moved; describe it again next time
		m.mu.Unlock()
		return fmt.Errorf("MLflow %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, m.maxBody+1))
	switch {
	case err != nil:
		return fmt.Errorf("read MLflow %s: %w", path, err)
	case int64(len(raw)) > m.maxBody:
		return mlflowError("ResponseTooLarge", "MLflow %s answered more than %d bytes", path, m.maxBody)
	case resp.StatusCode != http.StatusOK:
		var e struct {
			Code    string `json:"error_code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(raw, &e) // a gateway's refusal is not MLflow's JSON
		code := cmp.Or(e.Code, strings.ReplaceAll(http.StatusText(resp.StatusCode), " ", ""), "HTTP"+strconv.Itoa(resp.StatusCode))
		msg := cmp.Or(e.Message, strings.TrimSpace(string(raw[:min(len(raw), 300)])))
		fault := smithy.FaultClient
		if resp.StatusCode >= 500 {
			fault = smithy.FaultServer
		}
		return &smithy.GenericAPIError{Code: code, Message: fmt.Sprintf("MLflow %s (HTTP %d): %s", path, resp.StatusCode, msg), Fault: fault}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return mlflowError("InvalidResponse", "MLflow %s answered what is not its JSON: %v", path, err)
	}
	return nil
}

// FindRun returns the newest run named runName in experiment, nil when the
// experiment or the run does not exist.
func (m *mlflowTracking) FindRun(ctx context.Context, trackingServerArn, experiment, runName string) (*cloud.MLflowRun, error) {
	var exp struct {
		Experiment struct {
			ID string `json:"experiment_id"`
		} `json:"experiment"`
	}
	err := m.call(ctx, trackingServerArn, http.MethodGet, "/api/2.0/mlflow/experiments/get-by-name", url.Values{"experiment_name": {experiment}}, nil, &exp)
	if isMLflowCode(err, "RESOURCE_DOES_NOT_EXIST") {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	filter, err := runNameFilter(runName)
	if err != nil {
		return nil, err
	}
	var found struct {
		Runs []struct {
			Info struct {
				ID           string  `json:"run_id"`
				Name         string  `json:"run_name"`
				ExperimentID string  `json:"experiment_id"`
				Status       string  `json:"status"`
				Start        flexInt `json:"start_time"`
				End          flexInt `json:"end_time"`
			} `json:"info"`
			Data struct {
				Metrics []struct {
					Key string `json:"key"`
				} `json:"metrics"`
			} `json:"data"`
		} `json:"runs"`
	}
	search := map[string]any{"experiment_ids": []string{exp.Experiment.ID}, "filter": filter, "max_results": 1, "order_by": []string{"attributes.start_time DESC"}}
	if err := m.call(ctx, trackingServerArn, http.MethodPost, "/api/2.0/mlflow/runs/search", nil, search, &found); err != nil {
		return nil, err
	}
	if len(found.Runs) == 0 {
		return nil, nil
	}
	r := found.Runs[0]
	run := &cloud.MLflowRun{ID: r.Info.ID, Name: cmp.Or(r.Info.Name, runName), ExperimentID: cmp.Or(r.Info.ExperimentID, exp.Experiment.ID), Status: r.Info.Status,
		Start: r.Info.Start.time(), End: r.Info.End.time()}
	for _, k := range r.Data.Metrics {
		if !slices.Contains(run.MetricKeys, k.Key) {
			run.MetricKeys = append(run.MetricKeys, k.Key)
		}
	}
	slices.Sort(run.MetricKeys)
	return run, nil
}

// runNameFilter is the search filter on a run's name, quoted as MLflow's
// filter grammar reads a string.
func runNameFilter(name string) (string, error) {
	switch {
	case !strings.Contains(name, "'"):
		return "tags.mlflow.runName = '" + name + "'", nil
	case !strings.Contains(name, `"`):
		return `tags.mlflow.runName = "` + name + `"`, nil
	}
	return "", mlflowError("INVALID_PARAMETER_VALUE", "run name %q has both kinds of quotes, which an MLflow filter cannot hold", name)
}

// MetricHistory returns the values of metric key of run runID in step
// order, the newest limit of them when there are more (all for a limit of
// zero), reading at most maxPages pages.
func (m *mlflowTracking) MetricHistory(ctx context.Context, trackingServerArn, runID, key string, limit int) ([]cloud.MLflowMetric, error) {
	q := url.Values{"run_id": {runID}, "metric_key": {key}, "max_results": {strconv.Itoa(m.pageSize)}}
	byStep := func(a, b cloud.MLflowMetric) int {
		return cmp.Or(cmp.Compare(a.Step, b.Step), a.Timestamp.Compare(b.Timestamp))
	}
	out := []cloud.MLflowMetric{}
	for page := 0; ; page++ {
		if page == m.maxPages {
			return nil, mlflowError("ResponseTooLarge", "metric %s of run %s has more than %d pages of %d points; read it with the MLflow client", key, runID, m.maxPages, m.pageSize)
		}
		var hist struct {
			Metrics []struct {
				Key       string    `json:"key"`
				Value     flexFloat `json:"value"`
				Timestamp flexInt   `json:"timestamp"`
				Step      flexInt   `json:"step"`
			} `json:"metrics"`
			Next string `json:"next_page_token"`
		}
		if err := m.call(ctx, trackingServerArn, http.MethodGet, "/api/2.0/mlflow/metrics/get-history", q, nil, &hist); err != nil {
			return nil, err
		}
		for _, p := range hist.Metrics {
			out = append(out, cloud.MLflowMetric{Key: cmp.Or(p.Key, key), Value: float64(p.Value), Step: int64(p.Step), Timestamp: p.Timestamp.time()})
		}
		if limit > 0 && len(out) > 2*limit { // keep only the newest: memory stays bounded by the limit
			slices.SortStableFunc(out, byStep)
			out = slices.Clone(out[len(out)-limit:])
		}
		if hist.Next == "" {
			break
		}
		q.Set("page_token", hist.Next)
	}
	slices.SortStableFunc(out, byStep)
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, nil
}

func isMLflowCode(err error, code string) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == code
}

// flexInt is an int64 of MLflow's JSON, which protobuf's mapping may write
// as a number or as a string.
type flexInt int64

func (n *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*n = 0
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	*n = flexInt(v)
	return err
}

// time reads milliseconds since the epoch; zero stays the zero time.
func (n flexInt) time() time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(n)).UTC()
}

// flexFloat is a double of MLflow's JSON: a number, or a string such as
// "NaN" or "Infinity".
type flexFloat float64

func (f *flexFloat) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseFloat(strings.Trim(string(b), `"`), 64)
	*f = flexFloat(v)
	return err
}
