package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/resolvers/server/wsapi"
)

// metrics are the server's Prometheus metrics, in a registry of their own.
// It is the runner's ops.Observer.
type metrics struct {
	registry   *prometheus.Registry
	requests   *prometheus.CounterVec
	operations *prometheus.CounterVec
	phases     *prometheus.HistogramVec
}

var _ ops.Observer = (*metrics)(nil)

func newMetrics(subscribers func() int) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "instantstart_http_requests_total",
			Help: "HTTP requests served, by route and status code.",
		}, []string{"path", "code"}),
		operations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "instantstart_operations_total",
			Help: "Operations entering a status, by operation kind and status.",
		}, []string{"kind", "status"}),
		phases: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "instantstart_phase_duration_seconds",
			Help:    "How long operation phases took from start to end, by operation kind, phase and final status.",
			Buckets: []float64{0.05, 0.25, 1, 5, 15, 60, 180, 600, 1800, 3600},
		}, []string{"kind", "phase", "status"}),
	}
	m.registry.MustRegister(
		m.requests, m.operations, m.phases,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "instantstart_subscribers",
			Help: "Live event subscribers (GraphQL subscriptions and waiting queries).",
		}, func() float64 { return float64(subscribers()) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// watchWebSockets adds the WebSocket server's figures: open connections,
// documents whose subscribers share one rendering, and writes against the
// messages they carried (a subscriber that is behind gets several messages
// in one write).
func (m *metrics) watchWebSockets(ws *wsapi.Server) {
	m.registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "instantstart_websocket_connections",
			Help: "Open GraphQL WebSocket connections.",
		}, func() float64 { return float64(ws.Connections()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "instantstart_websocket_shared_documents",
			Help: "Subscription documents with live subscribers; each is rendered once per event for all of them.",
		}, func() float64 { return float64(ws.Groups()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "instantstart_websocket_renders_total",
			Help: "Executions of a subscription document on an event: one per event and document, however many subscribe.",
		}, func() float64 { return float64(ws.Renders()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "instantstart_websocket_writes_total",
			Help: "Writes to WebSocket connections.",
		}, func() float64 { w, _ := ws.Written(); return float64(w) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "instantstart_websocket_messages_total",
			Help: "Messages written to WebSocket connections.",
		}, func() float64 { _, n := ws.Written(); return float64(n) }),
	)
}

// OperationStatus counts an operation entering status.
func (m *metrics) OperationStatus(kind string, status ops.Status) {
	m.operations.WithLabelValues(kind, string(status)).Inc()
}

// PhaseFinished records how long a phase took.
func (m *metrics) PhaseFinished(kind, phase string, status ops.PhaseStatus, d time.Duration) {
	m.phases.WithLabelValues(kind, phase, string(status)).Observe(d.Seconds())
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// instrument counts requests by the route they matched and their status.
func (m *metrics) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		m.requests.WithLabelValues(routeLabel(r), strconv.Itoa(rec.code())).Inc()
	})
}
