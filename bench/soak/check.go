package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// The invariants a run checks, as the report names them.
const (
	invLost       = "lost"       // an operation asked for and acknowledged that could not be followed to its end
	invDuplicated = "duplicated" // something made twice: a resource in the world, a record, an operation for one key
	invLeaked     = "leaked"     // something left after the clean-up: a resource in the world, a live record
	invStuck      = "stuck"      // an operation or a record left in a non-terminal status
	invFailed     = "failed"     // an operation FAILED (after its retries) or CANCELLED, or a request refused
)

var invariants = []string{invLost, invDuplicated, invLeaked, invStuck, invFailed}

// finding is one broken invariant.
type finding struct {
	invariant, what string
}

type clusterRec struct {
	ID, Name, Status string
}

type record struct {
	ID, Name, Kind, Status string
	S3                     *struct{ Name string }
	Fsx                    *struct{ Name string }
}

type workloads struct {
	Storages, Jobs, Endpoints, Models []record
}

// clusters lists every cluster, deleted ones too.
func (r *run) clusters(ctx context.Context) ([]clusterRec, error) {
	var all []clusterRec
	var after *string
	for {
		var out struct {
			Clusters struct {
				Edges    []struct{ Node clusterRec }
				PageInfo struct {
					HasNextPage bool
					EndCursor   *string
				}
			}
		}
		err := r.query(ctx, `query($after: String) { clusters(filter: {includeDeleted: true}, first: 200, after: $after) {
			edges { node { id name status } } pageInfo { hasNextPage endCursor } } }`, map[string]any{"after": after}, &out)
		if err != nil {
			return nil, err
		}
		for _, e := range out.Clusters.Edges {
			all = append(all, e.Node)
		}
		if !out.Clusters.PageInfo.HasNextPage {
			return all, nil
		}
		after = out.Clusters.PageInfo.EndCursor
	}
}

// records reads a cluster's storage, jobs, endpoints and models (a lane
// makes far fewer than a page of each). The models of a cluster without a
// shared bucket are none: models lists them from the bucket, and refuses
// with PRECONDITION when there is none.
func (r *run) records(ctx context.Context, cluster string) (*workloads, error) {
	type list struct{ Edges []struct{ Node record } }
	nodes := func(l list) []record {
		var rs []record
		for _, e := range l.Edges {
			rs = append(rs, e.Node)
		}
		return rs
	}
	var out struct{ Storages, Jobs, Endpoints list }
	err := r.query(ctx, `query($c: ID!) {
		storages(clusterId: $c, first: 200) { edges { node { id kind status s3 { name } fsx { name } } } }
		jobs(clusterId: $c, first: 200) { edges { node { id name status } } }
		endpoints(clusterId: $c, first: 200) { edges { node { id name status } } } }`, map[string]any{"c": cluster}, &out)
	if err != nil {
		return nil, err
	}
	var models struct{ Models list }
	err = r.query(ctx, `query($c: ID!) { models(clusterId: $c, first: 200) { edges { node { id name status } } } }`, map[string]any{"c": cluster}, &models)
	var ge *gqlError
	if err != nil && !(errors.As(err, &ge) && ge.Extensions.Code == "PRECONDITION") {
		return nil, err
	}
	return &workloads{Storages: nodes(out.Storages), Jobs: nodes(out.Jobs), Endpoints: nodes(out.Endpoints), Models: nodes(models.Models)}, nil
}

// operations lists every operation the server holds.
func (r *run) operations(ctx context.Context) ([]operation, error) {
	var all []operation
	var after *string
	for {
		var out struct {
			Operations struct {
				Edges    []struct{ Node operation }
				PageInfo struct {
					HasNextPage bool
					EndCursor   *string
				}
			}
		}
		err := r.query(ctx, `query($after: String) { operations(first: 200, after: $after) {
			edges { node { `+opFields+` } } pageInfo { hasNextPage endCursor } } }`, map[string]any{"after": after}, &out)
		if err != nil {
			return nil, err
		}
		for _, e := range out.Operations.Edges {
			all = append(all, e.Node)
		}
		if !out.Operations.PageInfo.HasNextPage {
			return all, nil
		}
		after = out.Operations.PageInfo.EndCursor
	}
}

// Terminal statuses of the records once their cluster is deleted; any
// other is stuck (an operation that never ended) or leaked (a live
// record of a deleted cluster).
var (
	recordDone = map[string][]string{
		"cluster":  {"DELETED"},
		"storage":  {"DELETED"},
		"job":      {"SUCCEEDED", "FAILED", "DELETED"},
		"endpoint": {"DELETED"},
		"model":    {"READY", "FAILED", "CANCELLED", "PRESENT", "DELETED"},
	}
	recordMoving = map[string][]string{
		"cluster":  {"CREATING", "IMPORTING", "DELETING"},
		"storage":  {"CREATING", "DELETING"},
		"job":      {"PENDING", "RUNNING", "RESTARTING"},
		"endpoint": {"PENDING", "DEPLOYING", "DELETING"},
		"model":    {"DOWNLOADING"},
	}
)

// recordFinding is what a record in status says, if anything is wrong.
func recordFinding(kind, cluster string, rec record) *finding {
	if slices.Contains(recordDone[kind], rec.Status) {
		return nil
	}
	inv := invLeaked
	if slices.Contains(recordMoving[kind], rec.Status) {
		inv = invStuck
	}
	return &finding{inv, fmt.Sprintf("%s %s (%s) of cluster %s is %s", kind, rec.Name, rec.ID, cluster, rec.Status)}
}

// check reads the server and the world after the clean-up and builds the
// report.
func (r *run) check(ctx context.Context, baseline []string) (*Report, error) {
	rep := &Report{Seed: r.opts.Seed, Kills: r.kills, Resent: r.c.resent.Load(), Kinds: map[string]*kindCount{}}
	add := func(inv, format string, args ...any) {
		rep.Findings = append(rep.Findings, finding{inv, fmt.Sprintf(format, args...)})
	}
	mine := map[string]bool{}
	for _, rec := range r.ledger.all() {
		k := rep.kind(rec.Kind)
		k.Asked++
		rep.Ops++
		k.Retried += rec.Retries
		rep.Resubmits += rec.Resubmits
		mine[rec.OpID] = true
		switch {
		case rec.Lost != "":
			k.Lost++
			add(invLost, "%s %s (key %s): %s", rec.Kind, rec.OpID, rec.Key, rec.Lost)
		case rec.Refused != nil:
			k.Refused++
			add(invFailed, "%s (key %s) refused: %s", rec.Kind, rec.Key, rec.Refused.Error())
		case rec.Stuck:
			k.Stuck++
			add(invStuck, "%s %s (key %s) still %s after %s", rec.Kind, rec.OpID, rec.Key, rec.Status, r.opts.OpTimeout)
		case rec.Status == "SUCCEEDED":
			k.Succeeded++
		default:
			k.Failed++
			msg := ""
			if rec.Error != nil {
				msg = fmt.Sprintf(": %s (retryable %v): %s", rec.Error.Code, rec.Error.Retryable, rec.Error.Message)
			}
			add(invFailed, "%s %s (key %s) ended %s after %d retries%s%s", rec.Kind, rec.OpID, rec.Key, rec.Status, rec.Retries, msg, r.phases(ctx, rec.OpID))
		}
	}

	ops, err := r.operations(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the operations: %w", err)
	}
	byKey := map[string][]string{}
	for _, op := range ops {
		if op.IdempotencyKey != "" {
			byKey[op.IdempotencyKey] = append(byKey[op.IdempotencyKey], op.ID)
		}
		switch {
		case !terminal(op.Status):
			add(invStuck, "operation %s %s of %s %s is %s", op.ID, op.Kind, op.Target.Kind, op.Target.Name, op.Status)
		case op.Status != "SUCCEEDED" && !mine[op.ID]:
			msg := ""
			if op.Error != nil {
				msg = ": " + op.Error.Code + ": " + op.Error.Message
			}
			add(invFailed, "operation %s %s of %s %s, which the soak did not ask for, ended %s%s%s", op.ID, op.Kind, op.Target.Kind, op.Target.Name, op.Status, msg, r.phases(ctx, op.ID))
		}
	}
	rep.Operations = len(ops)
	for key, ids := range byKey {
		if len(ids) > 1 {
			add(invDuplicated, "idempotency key %s has %d operations: %s", key, len(ids), strings.Join(ids, ", "))
		}
	}

	clusters, err := r.clusters(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the clusters: %w", err)
	}
	names := map[string]int{}
	for _, c := range clusters {
		rep.Clusters++
		if names[c.Name]++; names[c.Name] == 2 {
			add(invDuplicated, "two clusters named %s", c.Name)
		}
		if f := recordFinding("cluster", c.Name, record{ID: c.ID, Name: c.Name, Status: c.Status}); f != nil {
			rep.Findings = append(rep.Findings, *f)
		}
		w, err := r.records(ctx, c.ID)
		if err != nil {
			return nil, fmt.Errorf("read the records of cluster %s: %w", c.Name, err)
		}
		for kind, recs := range map[string][]record{"storage": w.Storages, "job": w.Jobs, "endpoint": w.Endpoints, "model": w.Models} {
			seen := map[string]int{}
			for _, rec := range recs {
				name := rec.Name
				if rec.S3 != nil {
					name = "s3 " + rec.S3.Name
				} else if rec.Fsx != nil {
					name = "fsx " + rec.Fsx.Name
				}
				if seen[name]++; seen[name] == 2 {
					add(invDuplicated, "two %ss named %s in cluster %s", kind, name, c.Name)
				}
				rec.Name = name
				if f := recordFinding(kind, c.Name, rec); f != nil {
					rep.Findings = append(rep.Findings, *f)
				}
			}
		}
	}

	world, err := r.inventory(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the world: %w", err)
	}
	leaked, buckets := leftovers(baseline, world, r.keptBucket)
	for _, line := range leaked {
		add(invLeaked, "%s", line)
	}
	for _, b := range slices.Sorted(maps.Keys(buckets)) {
		rep.Buckets = append(rep.Buckets, fmt.Sprintf("%s (%d objects)", b, buckets[b]))
	}
	r.scan(ctx, "after the clean-up")
	r.scanMu.Lock()
	for _, what := range r.twice {
		add(invDuplicated, "made twice in the world: %s", what)
	}
	r.scanMu.Unlock()

	var calls map[string]map[string]int
	if err := r.c.sim(ctx, http.MethodGet, "/sim/calls", nil, http.StatusOK, &calls); err != nil {
		return nil, fmt.Errorf("read the call counters: %w", err)
	}
	rep.Calls = calls
	slices.SortFunc(rep.Findings, func(a, b finding) int {
		return strings.Compare(a.invariant+a.what, b.invariant+b.what)
	})
	return rep, nil
}

// phases describes the phases of an operation that did not succeed, for a
// finding: where it stopped, after how many attempts, with what message.
func (r *run) phases(ctx context.Context, id string) string {
	var out struct {
		Operation struct {
			Phases []struct {
				Name, Status, Message string
				Attempt               int
				StartedAt, FinishedAt string
			}
		}
	}
	err := r.query(ctx, `query($id: ID!) { operation(id: $id) { phases { name status message attempt startedAt finishedAt } } }`, map[string]any{"id": id}, &out)
	if err != nil {
		return "; its phases could not be read: " + err.Error()
	}
	var parts []string
	for _, p := range out.Operation.Phases {
		if p.Status == "SUCCEEDED" || p.Status == "SKIPPED" || p.Status == "PENDING" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (attempt %d, %s to %s): %s", p.Name, p.Status, p.Attempt, p.StartedAt, p.FinishedAt, p.Message))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; phases: " + strings.Join(parts, "; ")
}

// leftovers compares the world's inventory after the clean-up with the
// one before the run: what is new but the kept buckets (those the lanes
// asked for, kept) and their objects is leaked. It returns the leaked
// lines and the kept buckets with their object counts.
func leftovers(before, after []string, kept func(bucket string) bool) (leaked []string, buckets map[string]int) {
	buckets = map[string]int{}
	was := map[string]bool{}
	for _, line := range before {
		was[line] = true
	}
	for _, line := range after {
		if was[line] {
			continue
		}
		if name, ok := strings.CutPrefix(line, "s3 bucket "); ok && kept(name) {
			buckets[name] += 0
			continue
		}
		if key, ok := strings.CutPrefix(line, "s3 object "); ok {
			if bucket, _, _ := strings.Cut(key, "/"); kept(bucket) {
				buckets[bucket]++
				continue
			}
		}
		leaked = append(leaked, line)
	}
	return leaked, buckets
}
