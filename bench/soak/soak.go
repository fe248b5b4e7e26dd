package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/instantstart/instantstart/engine/sim"
)

// Options configures a soak run.
type Options struct {
	// Bin is the server binary; empty builds the module's main package.
	Bin string
	// Ops is how many operations the clusters' lanes ask for, the final
	// clean-up aside.
	Ops int
	// Kills is how many times the server is killed with SIGKILL.
	Kills int
	// Seed seeds the plan (what each lane asks for, when the kills land)
	// and the simulated world's draws.
	Seed uint64
	// Speed is the simulator's speed (--sim-speed).
	Speed float64
	// Throttle and Unavailable are the shares of the calls to every
	// simulated service that are throttled and that fail with a 5xx
	// (ServiceUnavailable).
	Throttle, Unavailable float64
	// OpTimeout bounds how long one operation is followed before it is
	// taken for stuck.
	OpTimeout time.Duration
	// Dir holds the data directory and the server's log; empty makes a
	// temporary one, removed at the end unless the run fails.
	Dir string
	// Log receives a line for each operation, kill and check; nil
	// discards them.
	Log io.Writer
}

func (o *Options) defaults() {
	if o.Ops <= 0 {
		o.Ops = 100
	}
	if o.Speed <= 0 {
		o.Speed = 200
	}
	if o.OpTimeout <= 0 {
		o.OpTimeout = 10 * time.Minute
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

// opsPerLane is how many operations one cluster's lane asks for: its
// cluster, features, storage and model, a mix of work, and its deletion.
const opsPerLane = 20

// region is where the soak's clusters live.
const region = "us-west-2"

// run is one soak run in progress.
type run struct {
	opts Options
	c    *client
	srv  *server

	ledger ledger
	// epoch counts the restarts: an operation followed across one is
	// resubmitted with its key.
	epoch atomic.Int64
	// asked counts the mutations asked for; progress wakes the killer.
	asked    atomic.Int64
	progress chan struct{}
	kills    int

	// buckets are the shared buckets the lanes asked for, which the
	// clean-up keeps.
	bucketMu sync.Mutex
	buckets  map[string]bool

	logMu sync.Mutex
	// scans holds what the world scans found made twice, by identity.
	scanMu sync.Mutex
	twice  map[string]string
}

func (r *run) logf(format string, args ...any) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	fmt.Fprintf(r.opts.Log, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
}

// keepBucket notes a shared bucket a lane asks for: the clean-up keeps it.
func (r *run) keepBucket(name string) {
	r.bucketMu.Lock()
	defer r.bucketMu.Unlock()
	r.buckets[name] = true
}

// keptBucket tells whether a lane asked for the bucket name.
func (r *run) keptBucket(name string) bool {
	r.bucketMu.Lock()
	defer r.bucketMu.Unlock()
	return r.buckets[name]
}

// submitted counts a mutation and wakes the killer.
func (r *run) submitted() {
	r.asked.Add(1)
	select {
	case r.progress <- struct{}{}:
	default:
	}
}

// Run runs a soak: it starts the server on the simulator with faults on
// every service, runs the lanes' operations while it kills and restarts
// the server, deletes every cluster left, and checks the invariants. It
// returns an error only when the run could not be carried out; a broken
// invariant is in the report (Report.Failed).
func Run(ctx context.Context, o Options) (*Report, error) {
	o.defaults()
	start := time.Now()
	if o.Throttle < 0 || o.Throttle > 1 || o.Unavailable < 0 || o.Unavailable > 1 || o.Kills < 0 {
		return nil, fmt.Errorf("the fault shares must be from 0 to 1 and the kills at least 0; got throttle %v, unavailable %v, kills %d", o.Throttle, o.Unavailable, o.Kills)
	}
	dir := o.Dir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "instantstart-soak-"); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	bin := o.Bin
	if bin == "" {
		var err error
		fmt.Fprintln(o.Log, "building the server...")
		if bin, err = buildBinary(ctx, dir); err != nil {
			return nil, err
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	token := fmt.Sprintf("soak-admin-%016x-0123456789abcdef", o.Seed)
	args := []string{"--sim-speed", strconv.FormatFloat(o.Speed, 'f', -1, 64), "--region", region}
	for _, spec := range faultSpecs(o) {
		args = append(args, "--sim-fault", spec)
	}
	r := &run{
		opts:     o,
		srv:      &server{bin: bin, dataDir: filepath.Join(dir, "data"), addr: addr, token: token, args: args, log: logFile},
		c:        &client{base: "http://" + addr, token: token, http: &http.Client{Timeout: 2 * time.Minute}, away: 3 * time.Minute},
		progress: make(chan struct{}, 1),
		twice:    map[string]string{},
		buckets:  map[string]bool{},
	}
	r.logf("server %s on %s, data in %s", bin, addr, dir)
	if err := r.srv.start(ctx, 2*time.Minute); err != nil {
		return nil, err
	}
	defer r.srv.kill()
	baseline, err := r.inventory(ctx)
	if err != nil {
		return nil, err
	}

	rng := rand.New(rand.NewPCG(o.Seed, 0x736f616b))
	lanes := max(1, (o.Ops+opsPerLane-1)/opsPerLane)
	killerDone := make(chan error, 1)
	lanesDone := make(chan struct{})
	go func() { killerDone <- r.killer(ctx, rng, lanesDone) }()
	var wg sync.WaitGroup
	for i := range lanes {
		budget := o.Ops / lanes
		if i < o.Ops%lanes {
			budget++
		}
		l := newLane(r, i, budget, rand.New(rand.NewPCG(o.Seed, uint64(i)+1)))
		wg.Go(func() { l.run(ctx) })
	}
	wg.Wait()
	r.scan(ctx, "after the lanes")
	close(lanesDone)
	cleanupErr := r.cleanup(ctx)
	if err := <-killerDone; err != nil {
		return nil, fmt.Errorf("restart the server: %w (its log: %s)", err, logFile.Name())
	}
	if cleanupErr != nil {
		return nil, cleanupErr
	}
	rep, err := r.check(ctx, baseline)
	if err != nil {
		return nil, err
	}
	if err := r.srv.stop(time.Minute); err != nil {
		rep.Failures = append(rep.Failures, finding{"stop", err.Error()})
	}
	rep.Wall = time.Since(start)
	rep.Lanes, rep.Dir = lanes, dir
	rep.Faults = fmt.Sprintf("faults on %d services: %v throttled, %v ServiceUnavailable; sim speed %v", len(sim.Services()), o.Throttle, o.Unavailable, o.Speed)
	if !rep.Failed() && o.Dir == "" {
		os.RemoveAll(dir)
		rep.Dir = ""
	}
	return rep, nil
}

// faultSpecs are the --sim-fault flags: on every simulated service, a
// throttle fault and a ServiceUnavailable one with the options'
// probabilities. Their ids keep a restart from adding them again.
func faultSpecs(o Options) []string {
	var specs []string
	for _, svc := range sim.Services() {
		if o.Throttle > 0 {
			specs = append(specs, fmt.Sprintf("throttle:id=soak-throttle-%s,service=%s,probability=%v", svc, svc, o.Throttle))
		}
		if o.Unavailable > 0 {
			specs = append(specs, fmt.Sprintf("error:id=soak-5xx-%s,service=%s,code=ServiceUnavailable,message=Service unavailable (injected),probability=%v", svc, svc, o.Unavailable))
		}
	}
	return specs
}

// killer kills and restarts the server Kills times, each a random moment
// after the lanes have asked for a random number of operations; kills
// still due when the lanes are done land during the clean-up.
func (r *run) killer(ctx context.Context, rng *rand.Rand, lanesDone <-chan struct{}) error {
	points := make([]int64, r.opts.Kills)
	for i := range points {
		points[i] = 1 + rng.Int64N(int64(r.opts.Ops))
	}
	slices.Sort(points)
	for _, p := range points {
		for r.asked.Load() < p {
			select {
			case <-r.progress:
			case <-lanesDone:
				p = 0
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if !sleep(ctx, time.Duration(rng.Int64N(int64(2*time.Second)))) {
			return ctx.Err()
		}
		if err := r.restart(ctx); err != nil {
			return err
		}
	}
	return nil
}

// restart kills the server with SIGKILL and starts it again on the same
// data directory and address, then scans the world for what was made
// twice.
func (r *run) restart(ctx context.Context) error {
	if err := r.srv.kill(); err != nil {
		return err
	}
	r.kills++
	r.logf("killed the server (kill %d)", r.kills)
	if err := r.srv.start(ctx, 2*time.Minute); err != nil {
		return err
	}
	r.epoch.Add(1)
	r.scan(ctx, fmt.Sprintf("after kill %d", r.kills))
	return nil
}

// inventory reads every resource the world holds, one line each, through
// /sim/inventory.
func (r *run) inventory(ctx context.Context) ([]string, error) {
	var out []string
	err := r.c.sim(ctx, http.MethodGet, "/sim/inventory", nil, http.StatusOK, &out)
	return out, err
}

// resources reads the world's resources, with their tags, through
// /sim/resources.
func (r *run) resources(ctx context.Context) ([]sim.Resource, error) {
	var out []sim.Resource
	err := r.c.sim(ctx, http.MethodGet, "/sim/resources", nil, http.StatusOK, &out)
	return out, err
}

// scan reads the world and remembers what it holds twice (see identity).
func (r *run) scan(ctx context.Context, when string) {
	res, err := r.resources(ctx)
	if err != nil {
		r.logf("scan %s: %v", when, err)
		return
	}
	r.scanMu.Lock()
	defer r.scanMu.Unlock()
	for id, ids := range twice(res) {
		if _, seen := r.twice[id]; !seen {
			r.twice[id] = fmt.Sprintf("%s (%s), seen %s", id, strings.Join(ids, ", "), when)
			r.logf("made twice: %s", r.twice[id])
		}
	}
}

// twice groups the resources by identity and returns those that have
// more than one live resource, with their ids.
func twice(res []sim.Resource) map[string][]string {
	by := map[string][]string{}
	for _, x := range res {
		if id := identity(x); id != "" {
			by[id] = append(by[id], x.ID)
		}
	}
	for id, ids := range by {
		if len(ids) < 2 {
			delete(by, id)
		}
	}
	return by
}

// gone are the states of a resource on its way out, or failed for good,
// which one made in its place does not duplicate.
var gone = map[string]bool{"deleting": true, "deleted": true, "failed": true}

// identity is what makes a resource the one InstantStart asked for: the
// tags it puts on everything it makes in EC2 and FSx (its cluster, the
// piece's role and zone, its storage, its Name). Resources it did not
// tag, and those whose names are unique by construction (clusters, IAM
// roles and policies, buckets, Helm releases), have none: their service
// refuses a second one.
func identity(x sim.Resource) string {
	var parts []string
	for _, k := range []string{"instantstart:cluster-id", "instantstart:cluster", "instantstart:storage", "instantstart:role", "instantstart:zone"} {
		if v := x.Tags[k]; v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	if len(parts) == 0 || gone[strings.ToLower(x.State)] {
		return ""
	}
	return x.Service + " " + x.Kind + " " + x.Tags["Name"] + " " + strings.Join(parts, " ")
}
