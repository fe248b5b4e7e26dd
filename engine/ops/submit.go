package ops

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// Store indexes kept by the runner.
const (
	indexLock     = "lock"      // <target kind>/<target id> -> operation id
	indexIdem     = "idem"      // <caller>\x00<key> -> request hash \x00 operation id
	indexByTarget = "op-target" // <target kind>/<target id>/<operation id> -> ""
	// indexByCluster lists the operations about a cluster, whatever their
	// target: <cluster id>/<operation id> -> "".
	indexByCluster = "op-cluster"
)

// Request asks for a new operation.
type Request struct {
	Kind   string
	Target Ref
	// ClusterID is the cluster the operation is about (its target, or the
	// cluster its target belongs to): the operation is listed among the
	// cluster's (Filter.ClusterID). When empty it is the target, when that
	// is a CLUSTER, else the clusterId the Input carries.
	ClusterID      string
	RequestedBy    string
	IdempotencyKey string
	// Input is stored with the operation (JSON) and read back by the
	// definition's Steps, so the operation can be resumed after a restart.
	Input any
	// Fingerprint identifies the request as the client sent it, for the
	// idempotency check (nil = Input). Pass the raw request when Input has
	// defaults filled in from the world, so a retry matches before any check.
	Fingerprint any
	// Noop marks a request that the caller found already satisfied: the
	// operation is stored SUCCEEDED with noop set, and nothing runs.
	Noop bool
	// Prepare runs in the transaction that stores the operation, after the
	// lock and idempotency checks (e.g. to reserve a name and create the
	// target's record). An error aborts the whole request.
	Prepare func(tx *store.Tx, op *Operation) error
}

// maxIdempotencyKeyLength bounds an idempotency key, in characters. A key
// is part of a store key, and the store bounds those; a UUID or a ULID fits
// with room to spare.
const maxIdempotencyKeyLength = 256

// checkIdempotencyKey refuses a key that is too long or holds characters
// that are not printable: a VALIDATION error on the field idempotencyKey.
func checkIdempotencyKey(key string) error {
	if !utf8.ValidString(key) {
		return errs.Field("idempotencyKey", "the idempotency key is not valid UTF-8; use printable characters, such as a UUID")
	}
	if n := utf8.RuneCountInString(key); n > maxIdempotencyKeyLength {
		return errs.Field("idempotencyKey", "the idempotency key is %d characters long; the most allowed is %d: use a shorter key, such as a UUID", n, maxIdempotencyKeyLength)
	}
	for i, c := range []rune(key) {
		if !unicode.IsPrint(c) {
			return errs.Field("idempotencyKey", "character %d of the idempotency key is %U, which is not printable; use printable characters only, such as a UUID", i+1, c)
		}
	}
	return nil
}

// Submit stores a new operation and starts it, returning at once. The same
// idempotency key from the same caller returns the first operation; a second
// operation on a target that has one running is a CONFLICT naming it.
func (r *Runner) Submit(req Request) (*Operation, error) {
	if err := checkIdempotencyKey(req.IdempotencyKey); err != nil {
		return nil, err
	}
	if err := r.acceptingWork(); err != nil {
		return nil, err
	}
	def := r.defs[req.Kind]
	if def == nil {
		return nil, fmt.Errorf("operation kind %q is not registered", req.Kind)
	}
	input, err := json.Marshal(req.Input)
	if err != nil {
		return nil, fmt.Errorf("encode %s input: %w", req.Kind, err)
	}
	hash, err := requestHash(req)
	if err != nil {
		return nil, err
	}
	op := &Operation{
		ID: r.ids.NewID(), Kind: req.Kind, Target: req.Target, ClusterID: req.ClusterID, RequestedBy: req.RequestedBy,
		IdempotencyKey: req.IdempotencyKey, Status: Queued, StatusQuery: def.StatusQuery, Input: input,
	}
	var existing *Operation
	err = r.store.Update(func(tx *store.Tx) error {
		op.CreatedAt = tx.Now()
		if req.IdempotencyKey != "" {
			prior, err := r.byIdempotencyKey(tx, req.RequestedBy, req.IdempotencyKey, hash)
			if err != nil || prior != nil {
				existing = prior
				return err
			}
		}
		if err := r.lock(tx, op); err != nil {
			return err
		}
		if req.Prepare != nil {
			if err := req.Prepare(tx, op); err != nil {
				return err
			}
		}
		if op.ClusterID == "" {
			op.ClusterID = clusterOf(op)
		}
		if err := r.plan(op, def); err != nil {
			return err
		}
		if req.Noop {
			op.Status, op.Noop = Succeeded, true
			now := tx.Now()
			op.StartedAt, op.FinishedAt = &now, &now
			for _, p := range op.Phases {
				p.Status, p.Message = PhaseSkipped, "already as requested"
			}
			if err := tx.DeleteIndex(indexLock, lockKey(op.Target)); err != nil {
				return err
			}
		}
		if req.IdempotencyKey != "" {
			if err := tx.PutIndex(indexIdem, idemKey(req.RequestedBy, req.IdempotencyKey), hash+"\x00"+op.ID); err != nil {
				return err
			}
		}
		if err := tx.PutIndex(indexByTarget, lockKey(op.Target)+"/"+op.ID, ""); err != nil {
			return err
		}
		if op.ClusterID != "" {
			if err := tx.PutIndex(indexByCluster, op.ClusterID+"/"+op.ID, ""); err != nil {
				return err
			}
		}
		return r.save(tx, op)
	})
	if err != nil {
		return nil, err
	}
	if existing != nil {
		return existing, nil
	}
	r.observer.OperationStatus(op.Kind, op.Status)
	if !op.Status.Terminal() {
		r.launch(op.ID)
	}
	return op, nil
}

// plan fills op.Phases from the definition's steps.
func (r *Runner) plan(op *Operation, def *Definition) error {
	steps, err := def.Steps(op)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, st := range steps {
		for _, d := range st.DependsOn {
			if !seen[d] {
				return fmt.Errorf("%s: phase %q depends on %q, which is not an earlier phase", op.Kind, st.Name, d)
			}
		}
		seen[st.Name] = true
		op.Phases = append(op.Phases, &Phase{Name: st.Name, Title: st.Title, DependsOn: st.DependsOn, Status: PhasePending, Recheck: st.Recheck})
	}
	return nil
}

// replan brings the phases of an operation stored by an older version of
// InstantStart in line with the definition's steps, when it resumes or is
// retried: a step it lacks becomes a pending phase at its place in the
// steps' order, and a phase that has not succeeded takes its step's
// current title and dependencies. Phases that ended keep what they did.
func replan(op *Operation, steps []Step) {
	stored := make(map[string]*Phase, len(op.Phases))
	for _, p := range op.Phases {
		stored[p.Name] = p
	}
	var phases []*Phase
	for _, st := range steps {
		p := stored[st.Name]
		switch {
		case p == nil:
			p = &Phase{Name: st.Name, Title: st.Title, DependsOn: st.DependsOn, Status: PhasePending, Recheck: st.Recheck,
				Message: "added by a newer version of InstantStart"}
		case !p.Status.done():
			p.Title, p.DependsOn, p.Recheck = st.Title, st.DependsOn, st.Recheck
		}
		delete(stored, st.Name)
		phases = append(phases, p)
	}
	// A stored phase the steps no longer have stays, after the others: the
	// runner says it is unknown if it still has work.
	for _, p := range op.Phases {
		if stored[p.Name] != nil {
			phases = append(phases, p)
		}
	}
	op.Phases = phases
}

func (r *Runner) byIdempotencyKey(tx *store.Tx, caller, key, hash string) (*Operation, error) {
	v, err := tx.GetIndex(indexIdem, idemKey(caller, key))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	priorHash, id, _ := strings.Cut(v, "\x00")
	if priorHash != hash {
		return nil, errs.Field("idempotencyKey", "idempotency key %q was already used for a different request (operation %s); use a new key for a new request", key, id)
	}
	var op Operation
	if err := tx.Get(recordKind, id, &op); err != nil {
		return nil, fmt.Errorf("load operation %s of idempotency key: %w", id, err)
	}
	return &op, nil
}

// lock makes op the one running operation of its target.
func (r *Runner) lock(tx *store.Tx, op *Operation) error {
	key := lockKey(op.Target)
	holder, err := tx.GetIndex(indexLock, key)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return err
	case holder != op.ID:
		var running Operation
		if err := tx.Get(recordKind, holder, &running); err == nil && !running.Status.Terminal() {
			return errs.New(errs.Conflict, "%s %s is busy with operation %s (%s, %s); wait for it to end (waitOperation) or cancel it (cancelOperation), then try again",
				strings.ToLower(op.Target.Kind), targetLabel(op.Target), running.ID, running.Kind, running.Status).
				WithDetail("operationId", running.ID)
		}
	}
	return tx.PutIndex(indexLock, key, op.ID)
}

func (r *Runner) unlock(tx *store.Tx, op *Operation) error {
	key := lockKey(op.Target)
	holder, err := tx.GetIndex(indexLock, key)
	if errors.Is(err, store.ErrNotFound) || (err == nil && holder != op.ID) {
		return nil
	}
	if err != nil {
		return err
	}
	return tx.DeleteIndex(indexLock, key)
}

func targetLabel(t Ref) string {
	if t.Name != "" {
		return fmt.Sprintf("%q (%s)", t.Name, t.ID)
	}
	return t.ID
}

func lockKey(t Ref) string              { return t.Kind + "/" + t.ID }
func idemKey(caller, key string) string { return caller + "\x00" + key }

func requestHash(req Request) (string, error) {
	h := sha256.New()
	h.Write([]byte(req.Kind + "\x00"))
	fingerprint := req.Fingerprint
	if fingerprint == nil {
		// Without a fingerprint the request is its target and input. A new
		// resource's generated id is not part of it; its name is.
		fingerprint = req.Input
		h.Write([]byte(req.Target.Kind + "\x00"))
		if req.Target.Name != "" {
			h.Write([]byte(req.Target.Name))
		} else {
			h.Write([]byte(req.Target.ID))
		}
		h.Write([]byte{0})
	}
	raw, err := json.Marshal(fingerprint)
	if err != nil {
		return "", fmt.Errorf("encode %s request: %w", req.Kind, err)
	}
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Replay returns the operation an earlier request with the same caller and
// idempotency key made, or nil when the key is new. Call it before checks
// that read the world, so a retried request gets its operation back even
// when the world has changed since (the cluster it created now exists). A
// key reused for a different request is a VALIDATION error.
func (r *Runner) Replay(req Request) (*Operation, error) {
	if req.IdempotencyKey == "" {
		return nil, nil
	}
	if err := checkIdempotencyKey(req.IdempotencyKey); err != nil {
		return nil, err
	}
	hash, err := requestHash(req)
	if err != nil {
		return nil, err
	}
	var op *Operation
	err = r.store.View(func(tx *store.Tx) error {
		op, err = r.byIdempotencyKey(tx, req.RequestedBy, req.IdempotencyKey, hash)
		return err
	})
	return op, err
}
