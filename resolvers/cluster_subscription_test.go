package resolvers

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/graph/model"
)

// newClusterResolver is newTestResolver with the cluster service.
func newClusterResolver(t *testing.T) *Resolver {
	t.Helper()
	r := newTestResolver(t)
	r.Clusters = cluster.New(r.Store, r.Ops, nil, cluster.Options{})
	return r
}

// clusterAt is a cluster record in status, saying msg.
func clusterAt(status hyperpod.ClusterStatus, msg string) hyperpod.Cluster {
	return hyperpod.Cluster{ID: "c-1", Name: "alpha", Status: status, StatusMessage: msg,
		CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// states renders what a clusterUpdated stream sent as "STATUS msg" lines.
func states(got []*model.Cluster) []string {
	out := make([]string, 0, len(got))
	for _, c := range got {
		out = append(out, fmt.Sprintf("%s %s", c.Status, deref(c.StatusMessage)))
	}
	return out
}

func TestClusterUpdatedCatchesUpAfterFallingBehind(t *testing.T) {
	r := newClusterResolver(t)
	c := clusterAt(hyperpod.ClusterCreating, "step 0")
	put(t, r.Store, cluster.RecordKind, c.ID, c)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := r.Subscription().ClusterUpdated(ctx, c.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing reads ch while four rings' worth of changes are written.
	const updates = 4 * testRing
	for i := 1; i <= updates; i++ {
		c.StatusMessage = fmt.Sprintf("step %d", i)
		if i == updates {
			c.Status = hyperpod.ClusterDeleted
		}
		put(t, r.Store, cluster.RecordKind, c.ID, c)
	}
	got := states(drain(t, ch))
	if len(got) < 2 || got[0] != "CREATING step 0" || got[len(got)-1] != fmt.Sprintf("DELETED step %d", updates) {
		t.Fatalf("states = %q, want CREATING step 0 first and DELETED step %d last", got, updates)
	}
	var prev int
	for i, s := range got[1:] {
		var n int
		if _, err := fmt.Sscanf(s, "%s step %d", new(string), &n); err != nil || n <= prev {
			t.Fatalf("state %d (%q) does not follow step %d: %v", i+1, s, prev, err)
		}
		prev = n
	}
}

func TestClusterUpdatedReplaysAfterTheCursor(t *testing.T) {
	r := newClusterResolver(t)
	before := store.Cursor(r.Store.LastSequence())
	c := clusterAt(hyperpod.ClusterCreating, "")
	put(t, r.Store, cluster.RecordKind, c.ID, c)
	c.Status = hyperpod.ClusterDeleting
	put(t, r.Store, cluster.RecordKind, c.ID, c)
	afterDeleting := store.Cursor(r.Store.LastSequence())
	c.Status = hyperpod.ClusterDeleted
	put(t, r.Store, cluster.RecordKind, c.ID, c)
	afterDeleted := store.Cursor(r.Store.LastSequence())

	// The cluster is deleted: each stream ends once it has replayed the log.
	for _, tc := range []struct {
		name  string
		since *string
		want  []string
	}{
		{"from before its creation", &before, []string{"CREATING ", "DELETING ", "DELETED "}},
		{"from before its deletion", &afterDeleting, []string{"DELETED "}},
		{"from after its deletion", &afterDeleted, []string{}},
		{"without a cursor", nil, []string{"DELETED "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, err := r.Subscription().ClusterUpdated(t.Context(), c.ID, tc.since)
			if err != nil {
				t.Fatal(err)
			}
			if got := states(drain(t, ch)); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("states = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestClusterUpdatedEndsWhenTheRecordIsRemoved(t *testing.T) {
	r := newClusterResolver(t)
	c := clusterAt(hyperpod.ClusterCreating, "")
	put(t, r.Store, cluster.RecordKind, c.ID, c)
	ch, err := r.Subscription().ClusterUpdated(t.Context(), c.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Store.Update(func(tx *store.Tx) error { return tx.Delete(cluster.RecordKind, c.ID) }); err != nil {
		t.Fatal(err)
	}
	if got := states(drain(t, ch)); fmt.Sprint(got) != fmt.Sprint([]string{"CREATING "}) {
		t.Fatalf("states = %q, want the CREATING cluster only", got)
	}
}

func TestClusterUpdatedRefusesBeforeStreaming(t *testing.T) {
	r := newClusterResolver(t)
	put(t, r.Store, cluster.RecordKind, "c-1", clusterAt(hyperpod.ClusterCreating, ""))
	bad := "yesterday"
	for _, tc := range []struct {
		name  string
		id    string
		since *string
		want  errs.Code
	}{
		{"unknown id", "missing", nil, errs.NotFound},
		{"unknown id with a cursor", "missing", &bad, errs.Validation},
		{"bad cursor", "c-1", &bad, errs.Validation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := r.Subscription().ClusterUpdated(t.Context(), tc.id, tc.since); errs.CodeOf(err) != tc.want {
				t.Fatalf("err = %v, want %s", err, tc.want)
			}
		})
	}
}

func TestClusterUpdatedFromAnExpiredCursorIsCursorExpired(t *testing.T) {
	st, err := store.Open(t.TempDir(), store.Options{InMemory: true, EventRing: testRing, EventRetention: store.EventRetention{MaxCount: 2}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := &Resolver{Store: st, Ops: ops.NewRunner(st, ops.Options{})}
	r.Clusters = cluster.New(st, r.Ops, nil, cluster.Options{})
	c := clusterAt(hyperpod.ClusterCreating, "")
	for i := range 5 {
		c.StatusMessage = fmt.Sprint(i)
		put(t, st, cluster.RecordKind, c.ID, c)
	}
	if _, err := st.PruneEvents(time.Now()); err != nil {
		t.Fatal(err)
	}
	first := "1"
	if _, err := r.Subscription().ClusterUpdated(t.Context(), c.ID, &first); errs.CodeOf(err) != errs.CursorExpired {
		t.Fatalf("err = %v, want CURSOR_EXPIRED", err)
	}
}
