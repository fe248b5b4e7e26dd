package ops

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/store"
)

func clusterOps(t *testing.T, r *Runner, cluster string) []string {
	t.Helper()
	page, err := r.List(Filter{ClusterID: cluster}, store.PageRequest{First: 50})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, op := range page.Items {
		ids = append(ids, op.ID)
	}
	slices.Sort(ids)
	return ids
}

// A cluster's operations are those on it and on its resources: named by
// the request, else read off a CLUSTER target or the input's clusterId;
// operations stored before they named their cluster are indexed at start.
func TestAClustersOperationsAreThoseAboutIt(t *testing.T) {
	st := memStore(t)
	// Operations stored before operations named their cluster.
	var ids store.IDs
	now := time.Now().UTC()
	old := []*Operation{
		{ID: ids.NewID(), Kind: "CreateCluster", Target: Ref{Kind: "CLUSTER", ID: "c1"}},
		{ID: ids.NewID(), Kind: "AddStorage", Target: Ref{Kind: "STORAGE", ID: "s1"}, Input: []byte(`{"clusterId":"c1","bucket":"b"}`)},
		{ID: ids.NewID(), Kind: "SubmitTrainingJob", Target: Ref{Kind: "JOB", ID: "j1"}, Input: []byte(`{"clusterId":"c2"}`)},
		{ID: ids.NewID(), Kind: "CreateToken", Target: Ref{Kind: "TOKEN", ID: "t1"}},
	}
	if err := st.Update(func(tx *store.Tx) error {
		for _, op := range old {
			op.Status, op.CreatedAt, op.UpdatedAt = Succeeded, now, now
			if err := tx.Put(recordKind, op.ID, op); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(st, Options{Backoff: Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond}})
	r.Register(Definition{Kind: "Build", StatusQuery: "thing", Steps: func(*Operation) ([]Step, error) {
		return []Step{{Name: "done", Observe: func(context.Context, *Run) (Observation, error) { return Observation{State: Done}, nil }}}, nil
	}})
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	named, err := r.Submit(Request{Kind: "Build", Target: Ref{Kind: "JOB", ID: "j2"}, ClusterID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	fromInput, err := r.Submit(Request{Kind: "Build", Target: Ref{Kind: "ENDPOINT", ID: "e1"}, Input: map[string]string{"clusterId": "c2"}})
	if err != nil {
		t.Fatal(err)
	}
	want1 := []string{old[0].ID, old[1].ID, named.ID}
	slices.Sort(want1)
	if got := clusterOps(t, r, "c1"); !slices.Equal(got, want1) {
		t.Fatalf("c1's operations %v; want %v (its create, its storage's, the job named with it)", got, want1)
	}
	want2 := []string{old[2].ID, fromInput.ID}
	slices.Sort(want2)
	if got := clusterOps(t, r, "c2"); !slices.Equal(got, want2) {
		t.Fatalf("c2's operations %v; want %v", got, want2)
	}
	if named.ClusterID != "c1" || fromInput.ClusterID != "c2" {
		t.Fatalf("stored clusters %q, %q; want c1, c2", named.ClusterID, fromInput.ClusterID)
	}
	// A second start finds the index built and lists nothing twice.
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	if got := clusterOps(t, r, "c1"); len(got) != 3 {
		t.Fatalf("after a second start c1 has %d operations; want 3", len(got))
	}
}
