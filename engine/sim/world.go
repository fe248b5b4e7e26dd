package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/cloud"
)

// Defaults applied by New to a zero Options.
const (
	DefaultSpeed     = 25
	DefaultAccountID = "123456789012"
)

// Storage keeps the serialised world between runs.
type Storage interface {
	// LoadWorld returns the last saved world, or (nil, nil) when nothing is
	// saved yet.
	LoadWorld() ([]byte, error)
	// SaveWorld replaces the saved world. It must be durable when it returns.
	SaveWorld([]byte) error
}

// Options configures a World. The zero value is a memory-only world at the
// default speed, clocked by time.Now, with the default catalog.
type Options struct {
	// Speed divides every simulated latency: a real duration d takes d/Speed.
	// Zero means DefaultSpeed; it must not be negative.
	Speed float64
	// Storage persists the world; nil keeps it in memory only.
	Storage Storage
	// Clock tells the time; nil means time.Now. Tests pass a clock they
	// advance instead of sleeping.
	Clock func() time.Time
	// AccountID is the simulated account; empty means DefaultAccountID.
	AccountID string
	// Regions is the catalog of regions, zones and instance type offerings;
	// nil means DefaultCatalog().
	Regions []Region
	// DefaultRegion is the region used when a request names none; empty
	// means the first region of the catalog.
	DefaultRegion string
	// Seed seeds the world's random draws, such as how long an EKS
	// cluster takes to create: worlds with the same seed that receive the
	// same calls draw the same values.
	Seed uint64
	// KubeAPIServer, when set, is the API server every EKS cluster made
	// from then on reports as its endpoint and certificate authority,
	// instead of a simulated address: clients that reach Kubernetes over
	// the network (the real provider's client-go and Helm SDK, through the
	// wire endpoint) then talk to a real kube-apiserver, as the
	// integration tier does. The simulator's in-process Kubernetes still
	// answers its own ports; nothing is copied between the two.
	KubeAPIServer *KubeAPIServer
}

// KubeAPIServer is a Kubernetes API server's address and certificate
// authority.
type KubeAPIServer struct {
	Endpoint string // https://host:port
	CAPEM    []byte // the PEM certificates that sign its serving certificate
}

// World is one simulated AWS account. It is safe for concurrent use; every
// call takes one lock, so calls are serialised as if the cloud were a single
// consistent store.
type World struct {
	mu            sync.Mutex
	speed         float64
	storage       Storage
	clock         func() time.Time
	account       string
	catalog       catalog
	defaultRegion string
	seed          uint64
	kubeAPIServer *KubeAPIServer
	// wireEndpoint is where the world's AWS services are served over
	// their wire protocols ("" while nothing serves them): presigned S3
	// URLs point there.
	wireEndpoint atomic.Pointer[string]

	st    *state
	saved []byte // the last bytes Storage accepted, to roll back to
}

var _ cloud.Regions = (*World)(nil)

// New builds a World from opts and loads the saved world from opts.Storage,
// if any.
func New(opts Options) (*World, error) {
	w := &World{
		speed:   opts.Speed,
		storage: opts.Storage,
		clock:   opts.Clock,
		account: opts.AccountID,
		seed:    opts.Seed,
	}
	if k := opts.KubeAPIServer; k != nil {
		if !strings.HasPrefix(k.Endpoint, "https://") || len(k.CAPEM) == 0 {
			return nil, fmt.Errorf("sim: the Kubernetes API server needs an https:// endpoint and its CA certificates, got %q and %d bytes", k.Endpoint, len(k.CAPEM))
		}
		w.kubeAPIServer = &KubeAPIServer{Endpoint: k.Endpoint, CAPEM: slices.Clone(k.CAPEM)}
	}
	switch {
	case w.speed == 0:
		w.speed = DefaultSpeed
	case w.speed < 0:
		return nil, fmt.Errorf("sim: speed must be positive, got %v", opts.Speed)
	}
	if w.clock == nil {
		w.clock = time.Now
	}
	if w.account == "" {
		w.account = DefaultAccountID
	}
	if len(w.account) != 12 || strings.Trim(w.account, "0123456789") != "" {
		return nil, fmt.Errorf("sim: account id must be 12 digits, got %q", w.account)
	}
	regions := opts.Regions
	if regions == nil {
		regions = DefaultCatalog()
	}
	cat, err := newCatalog(regions)
	if err != nil {
		return nil, err
	}
	w.catalog = cat
	w.defaultRegion = opts.DefaultRegion
	if w.defaultRegion == "" {
		w.defaultRegion = cat.regions[0].Name
	}
	if _, ok := cat.region(w.defaultRegion); !ok {
		return nil, w.unknownRegion(w.defaultRegion)
	}
	w.st = newState()
	if w.storage != nil {
		data, err := w.storage.LoadWorld()
		if err != nil {
			return nil, fmt.Errorf("sim: load world: %w", err)
		}
		if data != nil {
			st, err := decodeState(data)
			if err != nil {
				return nil, fmt.Errorf("sim: load world: %w", err)
			}
			w.st, w.saved = st, data
		}
	}
	return w, nil
}

// DefaultRegion returns the region used when a request names none.
func (w *World) DefaultRegion() string { return w.defaultRegion }

// Provider returns the ports for region: SageMaker (with its MLflow
// tracking servers' REST API), EKS, EC2, Service Quotas, S3, FSx,
// Kubernetes and Helm scoped to the region, IAM and STS global to the
// account.
func (w *World) Provider(region string) (*cloud.Provider, error) {
	if _, ok := w.catalog.region(region); !ok {
		return nil, w.unknownRegion(region)
	}
	return &cloud.Provider{
		Name:          "sim",
		Region:        region,
		SageMaker:     &sageMakerAPI{w: w, region: region},
		EKS:           &eksAPI{w: w, region: region},
		EC2:           &ec2API{w: w, region: region},
		IAM:           &iamAPI{w: w},
		STS:           &stsAPI{w: w},
		ServiceQuotas: &quotasAPI{w: w, region: region},
		S3:            &s3API{w: w, region: region},
		S3Presign:     &s3PresignAPI{w: w, region: region},
		Hub:           &hubAPI{w: w},
		FSx:           &fsxAPI{w: w, region: region},
		Kubernetes:    &kubeAPI{w: w, region: region},
		Helm:          &helmAPI{w: w, region: region},
		MLflow:        &mlflowAPI{w: w, region: region},
		Prometheus:    &apsAPI{w: w, region: region},
	}, nil
}

func (w *World) unknownRegion(region string) error {
	return fmt.Errorf("sim: unknown region %q; known regions: %s", region, strings.Join(w.catalog.names(), ", "))
}

// Calls returns a copy of the call counters: service -> operation -> count.
// Services are "sagemaker", "eks", "ec2", "iam", "sts", "s3" and "servicequotas",
// whose operations are the SDK method names, "sagemaker-mlflow" (the MLflow
// REST API of the tracking servers: GetRunByName, GetMetricHistory), "kubernetes", whose
// operations are a verb and a resource ("list nodes"), and "helm", whose
// operations are "Install", "Uninstall" and "GetRelease".
func (w *World) Calls() map[string]map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]map[string]int, len(w.st.Calls))
	for svc, ops := range w.st.Calls {
		m := make(map[string]int, len(ops))
		for op, n := range ops {
			m[op] = n
		}
		out[svc] = m
	}
	return out
}

// ResetCalls sets every call counter back to zero. Should saving fail, the
// reset still holds in memory and reaches Storage with the next saved call.
func (w *World) ResetCalls() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.st.Calls = map[string]map[string]int{}
	_ = w.save()
}

// scale turns a real-world latency into simulated time.
func (w *World) scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) / w.speed)
}

// do runs one API call: it counts the call, fires call faults (throttling,
// errors), runs fn on the world, and saves the world before returning. When
// saving fails, the world rolls back to what was last saved, so a client
// never sees a change that a restart would lose.
func (w *World) do(ctx context.Context, service, region, op string, fn func(t *txn) error) error {
	if err := ctx.Err(); err != nil {
		return opError(service, op, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.begin(region)
	t.service, t.op = service, op
	t.st.count(service, op)
	err := t.callFault(service, op)
	if err == nil {
		err = fn(t)
	}
	if serr := w.save(); serr != nil {
		w.rollback()
		return opError(service, op, serr)
	}
	t.saved()
	if err != nil {
		return opError(service, op, err)
	}
	return nil
}

// saved runs the call's afterSave functions.
func (t *txn) saved() {
	for _, f := range t.afterSave {
		f()
	}
}

// begin starts a call: it reads the clock once and drops what has finished
// disappearing by then.
func (w *World) begin(region string) *txn {
	now := w.clock()
	w.st.prune(now)
	t := &txn{w: w, st: w.st, region: region, now: now}
	if region != "" {
		t.rs = w.st.regionState(region)
	}
	return t
}

// save writes the world through Storage, if there is one.
func (w *World) save() error {
	if w.storage == nil {
		return nil
	}
	data, err := json.Marshal(w.st)
	if err != nil {
		return fmt.Errorf("sim: encode world: %w", err)
	}
	if err := w.storage.SaveWorld(data); err != nil {
		return fmt.Errorf("sim: save world: %w", err)
	}
	w.saved = data
	return nil
}

// rollback restores the last saved world after a failed save.
func (w *World) rollback() {
	if w.saved == nil {
		w.st = newState()
		return
	}
	if st, err := decodeState(w.saved); err == nil {
		w.st = st
	}
}

// serviceID is the SDK's service ID of service, as operation errors show it.
func serviceID(service string) string {
	switch service {
	case svcSageMaker:
		return "SageMaker"
	case svcEKS:
		return "EKS"
	case svcEC2:
		return "EC2"
	case svcIAM:
		return "IAM"
	case svcSTS:
		return "STS"
	case svcQuotas:
		return "Service Quotas"
	case svcHelm:
		return "Helm"
	case svcKubernetes:
		return "Kubernetes"
	case svcS3:
		return "S3"
	case svcHub:
		return "Hugging Face"
	case svcFSx:
		return "FSx"
	case svcMLflow:
		return "SageMaker MLflow"
	case svcECR:
		return "ECR"
	case svcAPS:
		return "Amazon Managed Service for Prometheus"
	}
	return service
}

// Service names used by counters and faults.
const (
	svcSageMaker = "sagemaker"
	svcEKS       = "eks"
	svcEC2       = "ec2"
	svcIAM       = "iam"
	svcSTS       = "sts"
	svcQuotas    = "servicequotas"
	svcFSx       = "fsx"
)

// Services lists the services the world simulates, as the call counters
// and faults name them: what a client that injects a fault into every
// service iterates over.
func Services() []string { return serviceNames() }

// serviceNames lists the services the world simulates, sorted.
func serviceNames() []string {
	return []string{svcEC2, svcECR, svcEKS, svcFSx, svcHelm, svcHub, svcIAM, svcS3, svcSageMaker, svcMLflow, svcQuotas, svcSTS, svcKubernetes}
}

// opError wraps err as the SDK does, so callers use errors.As to reach the
// service's typed error or smithy.APIError.
func opError(service, op string, err error) error {
	var oe *smithy.OperationError
	if errors.As(err, &oe) {
		return err
	}
	return &smithy.OperationError{ServiceID: serviceID(service), OperationName: op, Err: err}
}

// call runs fn as operation op of service through World.do and returns its
// output: it is the body of every port method.
func call[O any](ctx context.Context, w *World, service, region, op string, fn func(t *txn) (*O, error)) (*O, error) {
	var out *O
	err := w.do(ctx, service, region, op, func(t *txn) error {
		var err error
		out, err = fn(t)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// orZero treats a nil input as the empty input, as the SDK does.
func orZero[T any](p *T) *T {
	if p == nil {
		return new(T)
	}
	return p
}
