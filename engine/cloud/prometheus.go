package cloud

import (
	"context"
	"fmt"
	"time"
)

// Prometheus queries Amazon Managed Service for Prometheus workspaces
// through the Prometheus HTTP API the service serves
// (/workspaces/<id>/api/v1/query_range on aps-workspaces.<region>.amazonaws.com,
// SigV4-signed for the service aps; IAM action aps:QueryMetrics).
type Prometheus interface {
	// QueryRange evaluates q over its time range in workspace workspaceID
	// (ws-...), as Prometheus's query_range answers: a matrix of series.
	QueryRange(ctx context.Context, workspaceID string, q PromRangeQuery) ([]PromSeries, error)
}

// PromRangeQuery is one range query: a PromQL expression evaluated at
// Start, Start+Step, ... up to End.
type PromRangeQuery struct {
	Query      string
	Start, End time.Time
	Step       time.Duration
}

// PromSeries is one series of a range query's answer.
type PromSeries struct {
	Labels map[string]string
	Points []PromPoint
}

// PromPoint is one value of a series.
type PromPoint struct {
	Time  time.Time
	Value float64
}

// PromError is a refusal of the Prometheus HTTP API, as its error answer
// says it: {"status":"error","errorType":...,"error":...}.
type PromError struct {
	// Status is the HTTP status (400 for bad_data, 422 for execution, ...).
	Status int
	// Type is Prometheus's errorType: bad_data, execution, timeout, ...
	Type    string
	Message string
}

func (e *PromError) Error() string {
	return fmt.Sprintf("prometheus: %s (HTTP %d): %s", e.Type, e.Status, e.Message)
}
