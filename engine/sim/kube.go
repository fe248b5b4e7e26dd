package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/instantstart/instantstart/engine/cloud"
)

// svcKubernetes names the Kubernetes APIs in the call counters. Their
// operations are a verb and a resource: "list nodes", "create
// serviceaccounts", "update deployments/status".
const svcKubernetes = "kubernetes"

// kubeAPI is one region's view of the Kubernetes APIs of the simulated EKS
// clusters.
type kubeAPI struct {
	w      *World
	region string
}

var _ cloud.Kubernetes = (*kubeAPI)(nil)

// kubeState is the Kubernetes side of the world: the objects of each EKS
// cluster's API server.
type kubeState struct {
	// Clusters holds each API server's objects, by kubeClusterKey.
	Clusters map[string]*kubeClusterRec `json:",omitempty"`
	// servers holds the in-memory half of each API server, by
	// kubeClusterKey. Clients and channels cannot be saved, so it is built
	// again on first use after a restart.
	servers map[string]*kubeServer
}

// kubeClusterRec is the stored state of one EKS cluster's API server.
type kubeClusterRec struct {
	Region, Name string
	// EKSID is the id of the EKS cluster served: a cluster deleted and
	// created again under the same name starts with an empty API.
	EKSID string
	// RV is the last resourceVersion handed out.
	RV uint64
	// Objects holds every object as JSON, by kubeResourceKey and then by
	// "namespace/name" (an empty namespace for cluster-scoped objects).
	Objects map[string]map[string]json.RawMessage
	// NodeOwned records, by node name, what the last node sync set, so
	// that the next one takes back only that and keeps what clients added.
	NodeOwned map[string]kubeNodeOwned `json:",omitempty"`
	// PodStarts holds, by pod uid, when the containers of a pod bound to
	// a node start (see kube_sched.go).
	PodStarts map[string]time.Time `json:",omitempty"`
	// KarpenterIdle holds, by node name, the nodes of instance groups the
	// managed Karpenter scales that run no pods but DaemonSet ones (see
	// sagemaker_karpenter.go).
	KarpenterIdle map[string]karpenterIdleRec `json:",omitempty"`
	// Jobs holds, by Job uid, what the Job controller keeps of each Job
	// (see kube_jobs.go).
	Jobs map[string]*kubeJobRec `json:",omitempty"`
	// Training holds, by object uid, what the training operators keep of
	// each HyperPodPyTorchJob and RayJob (see kube_training.go).
	Training map[string]*kubeTrainRec `json:",omitempty"`
	// ServerStarts holds, by pod uid, when each model server's container
	// started (see kube_serving.go).
	ServerStarts map[string]time.Time `json:",omitempty"`
	// ServerBytes holds, by pod uid, the size of the model each model
	// server loads, read once as it starts.
	ServerBytes map[string]int64 `json:",omitempty"`
	// Serving holds, by "namespace/deployment", what the model servers
	// and routers remember (see kube_proxy.go).
	Serving map[string]*kubeServingRec `json:",omitempty"`
	// Runs holds, by pod uid, the programs Running pods run (see
	// kube_programs.go).
	Runs map[string]*kubeRun `json:",omitempty"`
	// Wakes are the coming moments, in order, at which the Jobs or the
	// programs need a settle (see planWakes).
	Wakes []time.Time `json:",omitempty"`
}

// kubeDefaultNamespaces are the namespaces of a new cluster.
var kubeDefaultNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

func kubeClusterKey(region, name string) string { return region + "/" + name }

// kube returns the Kubernetes side of the state, creating it on first use.
func (st *state) kube() *kubeState {
	if st.Kube == nil {
		st.Kube = &kubeState{}
	}
	if st.Kube.Clusters == nil {
		st.Kube.Clusters = map[string]*kubeClusterRec{}
	}
	if st.Kube.servers == nil {
		st.Kube.servers = map[string]*kubeServer{}
	}
	return st.Kube
}

// Clients returns the clients of the API server of eksCluster, which must
// be ACTIVE. Every caller of a cluster gets the same clients, over one
// store of objects kept in the world's state.
func (a *kubeAPI) Clients(ctx context.Context, eksCluster string) (*cloud.KubeClients, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("kubernetes clients: %w", err)
	}
	if eksCluster == "" {
		return nil, errors.New("kubernetes clients: the EKS cluster name is empty")
	}
	var srv *kubeServer
	err := a.w.kubeTxn(a.region, func(t *txn) (func(), error) {
		c := t.rs.EKS[eksCluster]
		if c == nil {
			return nil, fmt.Errorf("kubernetes clients: EKS cluster %q does not exist in %s: %w", eksCluster, a.region, eksNotFound(eksCluster))
		}
		switch st := c.status(t.now); st {
		case ekstypes.ClusterStatusActive:
		case ekstypes.ClusterStatusFailed:
			return nil, fmt.Errorf("kubernetes clients: EKS cluster %q is FAILED and has no Kubernetes API; delete it and create it again", eksCluster)
		default:
			return nil, fmt.Errorf("kubernetes clients: EKS cluster %q is %s, not ACTIVE: its Kubernetes API is not available; retry once it is ACTIVE", eksCluster, st)
		}
		t.kubeCluster(c)
		srv = t.kubeServer(c)
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	srv.forgetActions()
	return srv.clients, nil
}

// kubeTxn runs fn under the world lock and saves the world, as World.do
// does for the AWS services, rolling it back when saving fails. It returns
// fn's error as is, since Kubernetes clients expect API status errors. Once
// the world is saved, and still under the lock, it runs the call's
// afterSave functions, then the function fn returned, if any, whether fn
// failed or not: watchers are told of changes in the order they were made,
// and never of one that a failed save undid.
func (w *World) kubeTxn(region string, fn func(t *txn) (func(), error)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.begin(region)
	t.sweepKube()
	saved, err := fn(t)
	if serr := w.save(); serr != nil {
		w.rollback()
		return apierrors.NewInternalError(serr)
	}
	t.saved()
	if saved != nil {
		saved()
	}
	return err
}

// kubeAlive tells whether the EKS cluster name of region, with id, still
// serves its API: it exists and is ACTIVE.
func (t *txn) kubeAlive(region, name, id string) bool {
	rs := t.st.Regions[region]
	if rs == nil {
		return false
	}
	c := rs.EKS[name]
	return c != nil && c.ID == id && c.status(t.now) == ekstypes.ClusterStatusActive
}

// sweepKube drops the objects of the API servers whose EKS cluster is being
// deleted or is gone, and ends their watches: the API goes with its
// cluster. It then brings the Helm releases' workloads up to the call's
// moment. The EKS side does not know about Kubernetes, so every Kubernetes
// and Helm call sweeps (and no other call pays for it).
func (t *txn) sweepKube() {
	defer t.advanceHelm()
	ks := t.st.Kube
	if ks == nil {
		return
	}
	for key, rec := range ks.Clusters {
		if !t.kubeAlive(rec.Region, rec.Name, rec.EKSID) {
			delete(ks.Clusters, key)
		}
	}
	for key, srv := range ks.servers {
		if !t.kubeAlive(srv.region, srv.name, srv.eksID) {
			srv.endWatches()
			delete(ks.servers, key)
		}
	}
}

// kubeCluster returns the stored API server of the ACTIVE cluster c,
// setting up a new one with the default namespaces.
func (t *txn) kubeCluster(c *eksClusterRec) *kubeClusterRec {
	ks := t.st.kube()
	key := kubeClusterKey(t.region, c.Name)
	if rec := ks.Clusters[key]; rec != nil && rec.EKSID == c.ID {
		return rec
	}
	rec := &kubeClusterRec{Region: t.region, Name: c.Name, EKSID: c.ID, Objects: map[string]map[string]json.RawMessage{}}
	ks.Clusters[key] = rec
	s := &kubeSession{t: t, rec: rec, eks: c}
	for _, ns := range kubeDefaultNamespaces {
		s.put(kubeNamespacesKey, nil, s.stamp(kubeNamespace(ns), c.Life.ReadyAt))
	}
	return rec
}

// kubeServer returns the clients and watches of the ACTIVE cluster c.
func (t *txn) kubeServer(c *eksClusterRec) *kubeServer {
	ks := t.st.kube()
	key := kubeClusterKey(t.region, c.Name)
	if srv := ks.servers[key]; srv != nil && srv.eksID == c.ID {
		return srv
	}
	srv := newKubeServer(t.w, t.region, c.Name, c.ID)
	ks.servers[key] = srv
	return srv
}

// kubeServer is what an API server keeps in memory: the clients handed out
// and the open watches.
type kubeServer struct {
	w                   *World
	region, name, eksID string

	typed   *fake.Clientset
	dynamic *dynamicfake.FakeDynamicClient
	clients *cloud.KubeClients

	// nodeMu serialises the updates and patches of nodes, whose two halves
	// (asking HyperPod, then storing the node) run in separate calls. It
	// is taken before the world lock.
	nodeMu sync.Mutex

	watchMu sync.Mutex
	watches map[*kubeWatch]struct{}
}

// newKubeServer builds the clients of a cluster: client-go's fakes, whose
// reactors hand every request to the world. The fakes' own trackers stay
// empty.
func newKubeServer(w *World, region, name, eksID string) *kubeServer {
	srv := &kubeServer{w: w, region: region, name: name, eksID: eksID, watches: map[*kubeWatch]struct{}{}}
	srv.typed = fake.NewSimpleClientset()
	srv.typed.PrependReactor("*", "*", srv.reactor(true))
	srv.typed.PrependWatchReactor("*", srv.watchReactor(true))
	srv.dynamic = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kubeListKinds())
	srv.dynamic.PrependReactor("*", "*", srv.reactor(false))
	srv.dynamic.PrependWatchReactor("*", srv.watchReactor(false))
	srv.clients = &cloud.KubeClients{Core: srv.typed, Dynamic: kubeDynamic{srv.dynamic}, Logs: kubeLogs{srv}, Proxy: kubeProxy{srv}}
	return srv
}

// forgetActions empties the fakes' records of the requests they served,
// which would otherwise grow for as long as the world runs. Clients does
// it on each hand-out, as callers get clients anew for each operation. It
// must not be called under the world lock: the fakes hold their own lock
// while a request runs.
func (srv *kubeServer) forgetActions() {
	srv.typed.ClearActions()
	srv.dynamic.ClearActions()
}

func (srv *kubeServer) reactor(typed bool) k8stesting.ReactionFunc {
	return func(action k8stesting.Action) (bool, runtime.Object, error) {
		obj, err := srv.serve(action, typed)
		return true, obj, err
	}
}

func (srv *kubeServer) watchReactor(typed bool) k8stesting.WatchReactionFunc {
	return func(action k8stesting.Action) (bool, watch.Interface, error) {
		wa, ok := action.(k8stesting.WatchActionImpl)
		if !ok {
			return true, nil, apierrors.NewBadRequest(fmt.Sprintf("unexpected watch request %T", action))
		}
		kw, err := srv.startWatch(wa, typed)
		if err != nil {
			return true, nil, err
		}
		return true, kw, nil
	}
}

// call runs fn as one request to the cluster's API: counted as op (unless
// empty, for the second half of a request), on the stored objects, saved
// before it returns. The cluster is first brought up to the moment of the
// request (HyperPod's transitions, then the settle of kube_sched.go: nodes,
// pods, Karpenter), and settled again after a request that changed
// something, as the scheduler and controllers react to it. Watchers are
// told of what the settles changed too, even when fn fails.
//
// A request a throttle fault answers with 429 and a Retry-After is sent
// again, up to kubeThrottleRetries times, as client-go's REST client does
// (the clients here stand in for it): a caller sees the 429 only when the
// throttling lasts. Each try is counted, and draws again when the fault
// has a probability. The simulated client does not wait the Retry-After:
// nothing in the world is due to change in it.
func (srv *kubeServer) call(op string, fn func(s *kubeSession) error) error {
	for tries := 1; ; tries++ {
		throttled := false
		err := srv.try(op, fn, &throttled)
		if !throttled || tries > kubeThrottleRetries {
			return err
		}
	}
}

// kubeThrottleRetries is how many times client-go's REST client sends a
// request again after a 429 that carries a Retry-After (its default
// maxRetries).
const kubeThrottleRetries = 10

// try runs one try of a call (see call); throttled tells whether a
// throttle fault answered it.
func (srv *kubeServer) try(op string, fn func(s *kubeSession) error, throttled *bool) error {
	return srv.w.kubeTxn(srv.region, func(t *txn) (func(), error) {
		if op != "" {
			t.st.count(svcKubernetes, op)
		}
		s, err := srv.session(t)
		if err != nil {
			return nil, err
		}
		if op != "" {
			if err := t.kubeCallFault(op); err != nil {
				*throttled = apierrors.IsTooManyRequests(err)
				return nil, err
			}
		}
		t.advanceHyperPod()
		if err := s.settle(); err != nil {
			return s.publish, err
		}
		rv := s.rec.RV
		if err := fn(s); err != nil {
			return s.publish, err
		}
		if s.rec.RV != rv {
			if err := s.settle(); err != nil {
				return s.publish, err
			}
		}
		return s.publish, nil
	})
}

// kubeCallFault fires the first throttle or error fault of a request op
// to a Kubernetes API and returns the status error an API server answers
// with: 429 TooManyRequests with a Retry-After of a second for a throttle
// (what API Priority and Fairness answers a request it sheds), 503
// ServiceUnavailable for an error fault of code ServiceUnavailable, 500
// InternalError for any other. client-go's apierrors.IsTooManyRequests,
// IsServiceUnavailable and IsInternalError recognise them.
func (t *txn) kubeCallFault(op string) error {
	f, ok := t.firingCallFault(svcKubernetes, op)
	switch {
	case !ok:
		return nil
	case f.Kind == FaultThrottle:
		return apierrors.NewTooManyRequests("Too many requests, please try again later.", 1)
	case f.Code == "ServiceUnavailable":
		return apierrors.NewServiceUnavailable(f.errorMessage())
	}
	return apierrors.NewInternalError(errors.New(f.errorMessage()))
}

// session opens the stored API server for a request. After a failed save
// rolled the world back, the in-memory part is gone from the state: the
// first request through older clients puts theirs back, or, if newer
// clients already made another, ends its own watches so that their
// clients watch again through the other.
func (srv *kubeServer) session(t *txn) (*kubeSession, error) {
	if !t.kubeAlive(srv.region, srv.name, srv.eksID) {
		return nil, srv.unreachable(t)
	}
	c := t.rs.EKS[srv.name]
	rec := t.kubeCluster(c)
	ks := t.st.kube()
	key := kubeClusterKey(srv.region, srv.name)
	current := ks.servers[key]
	switch {
	case current == nil:
		ks.servers[key] = srv
		current = srv
	case current != srv:
		srv.endWatches()
	}
	return &kubeSession{t: t, rec: rec, eks: c, server: current}, nil
}

// unreachable is the error of a request to an API server that is gone.
func (srv *kubeServer) unreachable(t *txn) error {
	state := "deleted"
	if c := t.rs.EKS[srv.name]; c != nil && c.ID == srv.eksID {
		state = string(c.status(t.now))
	}
	return fmt.Errorf("kubernetes: the API server of EKS cluster %q in %s is unreachable: the cluster is %s", srv.name, srv.region, state)
}
