package ops

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// world is a tiny fake cloud: named things that exist or not, and a record
// of every Apply.
type world struct {
	mu      sync.Mutex
	exists  map[string]bool
	pending map[string]bool // exists but not ready yet
	applies map[string]int
	tokens  map[string][]string
	// failApply makes the next Apply of a name fail with the error.
	failApply map[string]error
	// block makes Apply of a name wait on the channel after changing the world.
	block map[string]chan struct{}
	// entered is signalled when Apply of a name starts.
	entered map[string]chan struct{}
}

func newWorld() *world {
	return &world{exists: map[string]bool{}, pending: map[string]bool{}, applies: map[string]int{},
		tokens: map[string][]string{}, failApply: map[string]error{}, block: map[string]chan struct{}{}, entered: map[string]chan struct{}{}}
}

// thingOutput is the typed output of a test phase.
type thingOutput struct {
	ID        string `json:"id,omitempty"`
	Requested string `json:"requested,omitempty"`
}

func (w *world) step(name string, deps ...string) Step {
	return Step{
		Name: name, Title: "make " + name, DependsOn: deps,
		Observe: func(ctx context.Context, run *Run) (Observation, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			switch {
			case w.pending[name]:
				return Observation{State: Pending, Message: name + " is coming up"}, nil
			case w.exists[name]:
				return Observation{State: Done, Output: thingOutput{ID: name + "-id"}}, nil
			}
			return Observation{State: Absent}, nil
		},
		Apply: func(ctx context.Context, run *Run) (any, error) {
			w.mu.Lock()
			if ch := w.entered[name]; ch != nil {
				close(ch)
				delete(w.entered, name)
			}
			w.applies[name]++
			w.tokens[name] = append(w.tokens[name], run.ClientToken())
			if err := w.failApply[name]; err != nil {
				delete(w.failApply, name)
				w.mu.Unlock()
				return nil, err
			}
			w.exists[name] = true
			block := w.block[name]
			w.mu.Unlock()
			if block != nil {
				<-block
			}
			return thingOutput{Requested: name}, nil
		},
	}
}

func (w *world) set(name string, exists, pending bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.exists[name], w.pending[name] = exists, pending
}

func (w *world) count(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.applies[name]
}

func testRunner(t *testing.T, st *store.Store, w *world, steps func() []Step) *Runner {
	t.Helper()
	r := NewRunner(st, Options{Backoff: Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond}})
	r.Register(Definition{Kind: "Build", StatusQuery: "thing", Steps: func(*Operation) ([]Step, error) { return steps(), nil }})
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	return r
}

func memStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open("", store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// waitEnd follows op id to a terminal state with a deadline.
func waitEnd(t *testing.T, r *Runner, id string) *Operation {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		op, err := r.Wait(context.Background(), id, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if op.Status.Terminal() {
			return op
		}
	}
	t.Fatalf("operation %s did not end", id)
	return nil
}

func submit(t *testing.T, r *Runner, target string) *Operation {
	t.Helper()
	op, err := r.Submit(Request{Kind: "Build", Target: Ref{Kind: "THING", ID: target}, RequestedBy: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// resumeAfterDown runs steps with a runner until phase waiting is WAITING,
// stops that runner, changes the stored operation with edit as if while
// the process was down, and resumes it with a new runner. It returns the
// new runner and the operation's id.
func resumeAfterDown(t *testing.T, st *store.Store, steps func(*Operation) ([]Step, error), waiting string, edit func(*Operation)) (*Runner, string) {
	t.Helper()
	opts := Options{Backoff: Backoff{Initial: time.Millisecond, Max: time.Millisecond}}
	r1 := NewRunner(st, opts)
	r1.Register(Definition{Kind: "Build", Steps: steps})
	op, err := r1.Submit(Request{Kind: "Build", Target: Ref{Kind: "THING", ID: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	waitPhase(t, r1, op.ID, waiting, PhaseWaiting)
	if err := r1.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	err = st.Update(func(tx *store.Tx) error {
		var stored Operation
		if err := tx.Get(recordKind, op.ID, &stored); err != nil {
			return err
		}
		edit(&stored)
		return tx.Put(recordKind, op.ID, &stored)
	})
	if err != nil {
		t.Fatal(err)
	}
	r2 := NewRunner(st, opts)
	r2.Register(Definition{Kind: "Build", Steps: steps})
	if err := r2.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r2.Shutdown(context.Background()) })
	return r2, op.ID
}

func TestObserveFirstSkipsApplyWhenGoalHolds(t *testing.T) {
	w := newWorld()
	w.exists["a"], w.exists["b"] = true, true
	r := testRunner(t, memStore(t), w, func() []Step { return []Step{w.step("a"), w.step("b", "a")} })
	op := waitEnd(t, r, submit(t, r, "t1").ID)
	if op.Status != Succeeded || !op.Noop {
		t.Fatalf("status %s noop %v, want SUCCEEDED noop", op.Status, op.Noop)
	}
	if w.count("a")+w.count("b") != 0 {
		t.Fatalf("Apply was called %d times for goals that already held", w.count("a")+w.count("b"))
	}
	if got, err := OutputOf[thingOutput](op, "b"); err != nil || got.ID != "b-id" {
		t.Fatalf("outputs of an observed phase: %+v, %v", got, err)
	}
}

func TestPhasesRunAsDAGWithIndependentPhasesConcurrently(t *testing.T) {
	w := newWorld()
	// a and b are independent: a's Apply waits until b's Apply has started,
	// which only happens if they run at the same time.
	w.entered["b"] = make(chan struct{})
	bStarted := w.entered["b"]
	w.block["a"] = make(chan struct{})
	go func() { <-bStarted; close(w.block["a"]) }()
	r := testRunner(t, memStore(t), w, func() []Step { return []Step{w.step("a"), w.step("b"), w.step("c", "a", "b")} })
	op := waitEnd(t, r, submit(t, r, "t1").ID)
	if op.Status != Succeeded || op.Noop {
		t.Fatalf("status %s noop %v", op.Status, op.Noop)
	}
	c := op.Phase("c")
	for _, dep := range []string{"a", "b"} {
		if op.Phase(dep).FinishedAt.After(*c.StartedAt) {
			t.Fatalf("c started before its dependency %s finished", dep)
		}
	}
	for _, name := range []string{"a", "b", "c"} {
		if p := op.Phase(name); p.Attempt != 1 || p.OutputFields()["requested"] != name {
			t.Fatalf("phase %s: attempt %d outputs %v", name, p.Attempt, p.OutputFields())
		}
	}
}

func TestCrashBetweenApplyAndWaitingResumesByObserving(t *testing.T) {
	for _, tc := range []struct {
		name        string
		applyLanded bool // whether the crashed Apply changed the world
		wantApplies int
	}{
		{"change landed", true, 1},
		{"change lost", false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			st1, err := store.Open(dir, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			w := newWorld()
			w.entered["a"] = make(chan struct{})
			entered := w.entered["a"]
			block := make(chan struct{})
			w.block["a"] = block
			r1 := NewRunner(st1, Options{Backoff: Backoff{Initial: time.Millisecond, Max: time.Millisecond}})
			steps := func(*Operation) ([]Step, error) { return []Step{w.step("a")}, nil }
			r1.Register(Definition{Kind: "Build", Steps: steps})
			op, err := r1.Submit(Request{Kind: "Build", Target: Ref{Kind: "THING", ID: "t"}})
			if err != nil {
				t.Fatal(err)
			}
			<-entered // Apply is running: RUNNING is stored, WAITING is not.
			if !tc.applyLanded {
				w.set("a", false, false)
			}
			st1.Close() // the "crash": nothing more reaches the store
			defer close(block)

			st2, err := store.Open(dir, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st2.Close()
			r2 := NewRunner(st2, Options{Backoff: Backoff{Initial: time.Millisecond, Max: time.Millisecond}})
			r2.Register(Definition{Kind: "Build", Steps: steps})
			stored, err := r2.Get(op.ID)
			if err != nil {
				t.Fatal(err)
			}
			if p := stored.Phase("a"); p.Status != PhaseRunning || !p.Applying || p.Attempt != 1 {
				t.Fatalf("stored before the crash: %+v", p)
			}
			w.mu.Lock()
			delete(w.block, "a")
			w.mu.Unlock()
			if err := r2.Start(); err != nil {
				t.Fatal(err)
			}
			defer r2.Shutdown(context.Background())
			end := waitEnd(t, r2, op.ID)
			if end.Status != Succeeded {
				t.Fatalf("status %s", end.Status)
			}
			if got := w.count("a"); got != tc.wantApplies {
				t.Fatalf("Apply called %d times, want %d", got, tc.wantApplies)
			}
			w.mu.Lock()
			tokens := w.tokens["a"]
			w.mu.Unlock()
			for _, tok := range tokens[1:] {
				if tok != tokens[0] {
					t.Fatalf("re-Apply after a crash used a new client token: %v", tokens)
				}
			}
		})
	}
}

func TestRetryRunsOnlyFailedPhases(t *testing.T) {
	w := newWorld()
	w.failApply["b"] = errs.New(errs.Upstream, "capacity error in us-west-2a")
	r := testRunner(t, memStore(t), w, func() []Step { return []Step{w.step("a"), w.step("b", "a"), w.step("c", "b")} })
	op := waitEnd(t, r, submit(t, r, "t1").ID)
	if op.Status != Failed || op.Phase("b").Status != PhaseFailed || op.Phase("c").Status != PhasePending {
		t.Fatalf("after failure: op %s b %s c %s", op.Status, op.Phase("b").Status, op.Phase("c").Status)
	}
	if op.Error == nil || op.Error.Code != "UPSTREAM" {
		t.Fatalf("operation error %+v", op.Error)
	}
	if _, err := r.Retry(op.ID); err != nil {
		t.Fatal(err)
	}
	op = waitEnd(t, r, op.ID)
	if op.Status != Succeeded {
		t.Fatalf("after retry: %s", op.Status)
	}
	if w.count("a") != 1 || w.count("b") != 2 || w.count("c") != 1 {
		t.Fatalf("applies a=%d b=%d c=%d, want 1 2 1", w.count("a"), w.count("b"), w.count("c"))
	}
	if op.Phase("b").Attempt != 2 {
		t.Fatalf("b attempt %d", op.Phase("b").Attempt)
	}
	if _, err := r.Retry(op.ID); errs.CodeOf(err) != errs.Precondition {
		t.Fatalf("retry of a succeeded operation: %v", err)
	}
}

func TestCancelStopsBetweenPhases(t *testing.T) {
	w := newWorld()
	w.pending["a"] = true // never becomes ready
	r := testRunner(t, memStore(t), w, func() []Step { return []Step{w.step("a"), w.step("b", "a")} })
	op := submit(t, r, "t1")
	waitPhase(t, r, op.ID, "a", PhaseWaiting)
	if _, err := r.Cancel(op.ID); err != nil {
		t.Fatal(err)
	}
	got := waitEnd(t, r, op.ID)
	if got.Status != Cancelled || got.Phase("a").Status != PhaseCancelled || got.Phase("b").Status != PhaseCancelled {
		t.Fatalf("after cancel: %s a=%s b=%s", got.Status, got.Phase("a").Status, got.Phase("b").Status)
	}
	// The target is free again.
	w.set("a", false, false)
	if end := waitEnd(t, r, submit(t, r, "t1").ID); end.Status != Succeeded {
		t.Fatalf("next operation on the target: %s", end.Status)
	}
}

// TestCancelAnswersAtOnceWhileApplyIsInFlight holds an Apply and cancels
// the operation: Cancel returns with the request recorded while the Apply
// is still held, and the operation ends CANCELLED, with the Apply's output
// stored, once the Apply returns.
func TestCancelAnswersAtOnceWhileApplyIsInFlight(t *testing.T) {
	w := newWorld()
	hold, entered := make(chan struct{}), make(chan struct{})
	w.block["a"], w.entered["a"] = hold, entered
	r := testRunner(t, memStore(t), w, func() []Step { return []Step{w.step("a"), w.step("b", "a")} })
	op := submit(t, r, "t1")
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("Apply never started")
	}

	answered := make(chan *Operation, 1)
	go func() {
		got, err := r.Cancel(op.ID)
		if err != nil {
			t.Error(err)
		}
		answered <- got
	}()
	var got *Operation
	select {
	case got = <-answered:
	case <-time.After(10 * time.Second):
		close(hold)
		t.Fatal("Cancel waited for the Apply in flight")
	}
	if got == nil || !got.CancelRequested || got.Status.Terminal() {
		t.Fatalf("Cancel answered %+v, want the request recorded on a running operation", got)
	}

	close(hold)
	end := waitEnd(t, r, op.ID)
	a := end.Phase("a")
	if end.Status != Cancelled || a.Status != PhaseCancelled || end.Phase("b").Status != PhaseCancelled {
		t.Fatalf("after the Apply returned: %s a=%s b=%s", end.Status, a.Status, end.Phase("b").Status)
	}
	if out, err := OutputOf[thingOutput](end, "a"); err != nil || out.Requested != "a" {
		t.Fatalf("output of the Apply in flight: %+v, %v", out, err)
	}
	if w.count("b") != 0 {
		t.Fatalf("b applied %d times after cancel", w.count("b"))
	}
}

// TestRefusedPhaseStateIsStoredAgainNotRestarted makes the store refuse a
// phase's end a few times: the runner stores it again with backoff, and
// the phase is not started over (Observed again) in the meantime.
func TestRefusedPhaseStateIsStoredAgainNotRestarted(t *testing.T) {
	w := newWorld()
	w.exists["a"] = true
	var mu sync.Mutex
	refusals, observed := 3, 0
	step := w.step("a")
	observe := step.Observe
	step.Observe = func(ctx context.Context, run *Run) (Observation, error) {
		mu.Lock()
		observed++
		mu.Unlock()
		return observe(ctx, run)
	}
	r := NewRunner(memStore(t), Options{Backoff: Backoff{Initial: time.Millisecond, Max: time.Millisecond}})
	r.Register(Definition{Kind: "Build", Steps: func(*Operation) ([]Step, error) { return []Step{step}, nil },
		Reflect: func(_ *store.Tx, op *Operation) error {
			mu.Lock()
			defer mu.Unlock()
			if op.Phase("a").Status == PhaseSucceeded && refusals > 0 {
				refusals--
				return errors.New("disk full")
			}
			return nil
		}})
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	end := waitEnd(t, r, submit(t, r, "t1").ID)
	mu.Lock()
	defer mu.Unlock()
	if end.Status != Succeeded || refusals != 0 || observed != 1 {
		t.Fatalf("status %s, refusals left %d, Observed %d times; want SUCCEEDED, 0, 1", end.Status, refusals, observed)
	}
}

func waitPhase(t *testing.T, r *Runner, id, phase string, want PhaseStatus) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		op, err := r.Wait(context.Background(), id, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if op.Phase(phase).Status == want {
			return
		}
	}
	t.Fatalf("phase %s never reached %s", phase, want)
}

func TestSecondOperationOnBusyTargetIsConflictNamingTheRunningOne(t *testing.T) {
	w := newWorld()
	w.pending["a"] = true
	r := testRunner(t, memStore(t), w, func() []Step { return []Step{w.step("a")} })
	first := submit(t, r, "t1")
	_, err := r.Submit(Request{Kind: "Build", Target: Ref{Kind: "THING", ID: "t1"}})
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.Conflict || e.Details["operationId"] != first.ID {
		t.Fatalf("want CONFLICT naming %s, got %v", first.ID, err)
	}
	// Another target is not blocked.
	w.set("a", true, false)
	if end := waitEnd(t, r, submit(t, r, "t2").ID); end.Status != Succeeded {
		t.Fatalf("other target: %s", end.Status)
	}
}

func TestIdempotencyKeyReturnsTheSameOperation(t *testing.T) {
	w := newWorld()
	r := testRunner(t, memStore(t), w, func() []Step { return []Step{w.step("a")} })
	req := Request{Kind: "Build", Target: Ref{Kind: "THING", ID: "x", Name: "one"}, RequestedBy: "alice", IdempotencyKey: "k1", Input: map[string]int{"n": 1}}
	first, err := r.Submit(req)
	if err != nil {
		t.Fatal(err)
	}
	waitEnd(t, r, first.ID)
	again, err := r.Submit(req)
	if err != nil || again.ID != first.ID {
		t.Fatalf("same key: %v %v, want operation %s", again, err, first.ID)
	}
	if w.count("a") != 1 {
		t.Fatalf("Apply ran %d times", w.count("a"))
	}
	other := req
	other.RequestedBy = "bob"
	if op, err := r.Submit(other); err != nil || op.ID == first.ID {
		t.Fatalf("another caller's key is its own: %v %v", op, err)
	}
	changedReq := req
	changedReq.Input = map[string]int{"n": 2}
	if _, err := r.Submit(changedReq); errs.CodeOf(err) != errs.Validation {
		t.Fatalf("same key, different request: %v", err)
	}
}

func TestRetryableErrorsAreRetriedWithinTheDeadline(t *testing.T) {
	w := newWorld()
	w.failApply["a"] = &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate exceeded"}
	r := testRunner(t, memStore(t), w, func() []Step { return []Step{w.step("a")} })
	op := waitEnd(t, r, submit(t, r, "t1").ID)
	if op.Status != Succeeded || w.count("a") != 2 {
		t.Fatalf("status %s after %d applies", op.Status, w.count("a"))
	}
}

func TestPhaseTimeoutFailsRetryably(t *testing.T) {
	w := newWorld()
	w.pending["a"] = true
	r := testRunner(t, memStore(t), w, func() []Step {
		s := w.step("a")
		s.Timeout = 20 * time.Millisecond
		return []Step{s}
	})
	op := waitEnd(t, r, submit(t, r, "t1").ID)
	if op.Status != Failed || op.Error.Code != "TIMEOUT" || !op.Error.Retryable {
		t.Fatalf("status %s error %+v", op.Status, op.Error)
	}
}

func TestShutdownLeavesOperationsToResume(t *testing.T) {
	dir := t.TempDir()
	w := newWorld()
	w.pending["a"] = true
	steps := func(*Operation) ([]Step, error) { return []Step{w.step("a")}, nil }
	op := stopWhileWaiting(t, dir, steps, "a", func(r *Runner) {
		if _, err := r.Submit(Request{Kind: "Build", Target: Ref{Kind: "THING", ID: "u"}}); errs.CodeOf(err) != errs.Unavailable {
			t.Fatalf("submit during shutdown: %v", err)
		}
	})

	st2, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	r2 := NewRunner(st2, Options{Backoff: Backoff{Initial: time.Millisecond, Max: time.Millisecond}})
	r2.Register(Definition{Kind: "Build", Steps: steps})
	if stored, _ := r2.Get(op.ID); stored.Status != Running {
		t.Fatalf("stored status after shutdown: %s", stored.Status)
	}
	w.set("a", true, false)
	if err := r2.Start(); err != nil {
		t.Fatal(err)
	}
	defer r2.Shutdown(context.Background())
	if end := waitEnd(t, r2, op.ID); end.Status != Succeeded {
		t.Fatalf("resumed: %s", end.Status)
	}
}

// TestRetryAddsPhasesANewerVersionDefines fails an operation whose
// definition then gains a phase between two others, as when a newer
// version of InstantStart resumes it: the retry adds the phase at its
// place, runs it, and re-runs none that succeeded.
func TestRetryAddsPhasesANewerVersionDefines(t *testing.T) {
	w := newWorld()
	w.failApply["b"] = errs.New(errs.Upstream, "capacity error in us-west-2a")
	var newer atomic.Bool
	r := testRunner(t, memStore(t), w, func() []Step {
		if newer.Load() {
			return []Step{w.step("a"), w.step("n", "a"), w.step("b", "n")}
		}
		return []Step{w.step("a"), w.step("b", "a")}
	})
	op := waitEnd(t, r, submit(t, r, "t1").ID)
	if op.Status != Failed || len(op.Phases) != 2 {
		t.Fatalf("before the upgrade: %s with %d phases", op.Status, len(op.Phases))
	}
	newer.Store(true)
	if _, err := r.Retry(op.ID); err != nil {
		t.Fatal(err)
	}
	op = waitEnd(t, r, op.ID)
	var names []string
	for _, p := range op.Phases {
		names = append(names, p.Name)
	}
	if op.Status != Succeeded || strings.Join(names, ",") != "a,n,b" || op.Phase("n").Status != PhaseSucceeded {
		t.Fatalf("after the retry: %s, phases %v", op.Status, names)
	}
	if deps := op.Phase("b").DependsOn; len(deps) != 1 || deps[0] != "n" {
		t.Fatalf("b depends on %v, want n", deps)
	}
	if w.count("a") != 1 || w.count("n") != 1 || w.count("b") != 2 {
		t.Fatalf("applies a=%d n=%d b=%d, want 1 1 2", w.count("a"), w.count("n"), w.count("b"))
	}
}

// TestABrokenPhaseKeepsWhatItSaw: a phase whose first look finds it
// Broken fails with the observation's error and keeps its output, as
// one that waited first would have.
func TestABrokenPhaseKeepsWhatItSaw(t *testing.T) {
	r := testRunner(t, memStore(t), newWorld(), func() []Step {
		return []Step{{Name: "a", Observe: func(context.Context, *Run) (Observation, error) {
			return Observation{State: Broken, Output: thingOutput{Requested: "half"}, Err: errs.New(errs.Upstream, "gave up half way")}, nil
		}}}
	})
	op := waitEnd(t, r, submit(t, r, "t1").ID)
	if op.Status != Failed || op.Error == nil || !strings.Contains(op.Error.Message, "gave up half way") {
		t.Fatalf("status %s error %+v", op.Status, op.Error)
	}
	got, err := OutputOf[thingOutput](op, "a")
	if err != nil || got.Requested != "half" {
		t.Fatalf("the phase's output is %+v, %v; want what the Broken observation saw", got, err)
	}
}

// TestAPhaseThatOnlyWaitedAppliesAfterARestart: a phase stored WAITING
// because Observe read Pending, never Applied, resumes after a restart
// and Applies when Observe then finds nothing, rather than waiting for a
// change it never asked for.
func TestAPhaseThatOnlyWaitedAppliesAfterARestart(t *testing.T) {
	dir := t.TempDir()
	w := newWorld()
	w.pending["a"] = true // something else's change, coming up
	steps := func(*Operation) ([]Step, error) { return []Step{w.step("a")}, nil }
	op := stopWhileWaiting(t, dir, steps, "a", nil)

	st2, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	w.set("a", false, false) // it went away while the process was down
	r2 := NewRunner(st2, Options{Backoff: Backoff{Initial: time.Millisecond, Max: time.Millisecond}})
	r2.Register(Definition{Kind: "Build", Steps: steps})
	if stored, _ := r2.Get(op.ID); stored.Phase("a").Applied {
		t.Fatal("a phase that only waited is stored as applied")
	}
	if err := r2.Start(); err != nil {
		t.Fatal(err)
	}
	defer r2.Shutdown(context.Background())
	if end := waitEnd(t, r2, op.ID); end.Status != Succeeded || w.count("a") != 1 {
		t.Fatalf("resumed: %s with %d Applies; want SUCCEEDED after one", end.Status, w.count("a"))
	}
}

// stopWhileWaiting runs an operation of steps on a store in dir until
// phase is WAITING, shuts the runner down, calls stopped (when set) with
// it, and closes the store, as a process that stops would.
func stopWhileWaiting(t *testing.T, dir string, steps func(*Operation) ([]Step, error), phase string, stopped func(*Runner)) *Operation {
	t.Helper()
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := NewRunner(st, Options{Backoff: Backoff{Initial: time.Millisecond, Max: time.Millisecond}})
	r.Register(Definition{Kind: "Build", Steps: steps})
	op, err := r.Submit(Request{Kind: "Build", Target: Ref{Kind: "THING", ID: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	waitPhase(t, r, op.ID, phase, PhaseWaiting)
	if err := r.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if stopped != nil {
		stopped(r)
	}
	return op
}
