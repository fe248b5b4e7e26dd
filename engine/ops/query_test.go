package ops

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/store"
)

// seedOperations stores n finished operations as Submit would have keyed
// them, spread over ten clusters, every tenth one FAILED, and returns their
// ids oldest first.
func seedOperations(tb testing.TB, n int) (*Runner, []string) {
	tb.Helper()
	st, err := store.Open("", store.Options{InMemory: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	var ids store.IDs
	all := make([]string, 0, n)
	now := time.Now().UTC()
	for start := 0; start < n; start += 500 {
		err := st.Update(func(tx *store.Tx) error {
			for i := start; i < min(start+500, n); i++ {
				op := &Operation{ID: ids.NewID(), Kind: "CreateCluster", Target: Ref{Kind: "CLUSTER", ID: fmt.Sprintf("c%d", i%10)},
					RequestedBy: "admin", Status: Succeeded, StatusQuery: "cluster", CreatedAt: now, UpdatedAt: now}
				if i%10 == 3 {
					op.Status = Failed
				}
				for _, name := range []string{"network", "iam", "eks", "addons", "subnet", "hyperpod"} {
					op.Phases = append(op.Phases, &Phase{Name: name, Title: "Make the " + name, Status: PhaseSucceeded})
				}
				if err := tx.Put(recordKind, op.ID, op); err != nil {
					return err
				}
				if err := tx.PutIndex(indexByTarget, lockKey(op.Target)+"/"+op.ID, ""); err != nil {
					return err
				}
				all = append(all, op.ID)
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return NewRunner(st, Options{}), all
}

func TestListReadsOnlyThePage(t *testing.T) {
	r, all := seedOperations(t, 2000)
	newest := slices.Clone(all)
	slices.Reverse(newest)
	oneCluster := func(ids []string, cluster int) []string {
		var out []string
		for _, id := range ids {
			if i := slices.Index(all, id); i%10 == cluster {
				out = append(out, id)
			}
		}
		return out
	}
	failedOf3 := oneCluster(newest, 3)
	cases := []struct {
		name       string
		filter     Filter
		req        store.PageRequest
		want       []string
		hasNext    bool
		total      int
		maxDecoded int
	}{
		{"the newest page", Filter{}, store.PageRequest{First: 20}, newest[:20], true, 0, 20},
		{"a page in the middle", Filter{}, store.PageRequest{First: 20, After: newest[999]}, newest[1000:1020], true, 0, 20},
		{"the oldest page", Filter{}, store.PageRequest{First: 20, After: newest[1989]}, newest[1990:], false, 0, 10},
		{"counted without decoding", Filter{}, store.PageRequest{First: 20, Count: true}, newest[:20], true, 2000, 20},
		{"one target", Filter{TargetKind: "CLUSTER", TargetID: "c7"}, store.PageRequest{First: 20, After: oneCluster(newest, 7)[4]},
			oneCluster(newest, 7)[5:25], true, 0, 21},
		{"one target, counted", Filter{TargetKind: "CLUSTER", TargetID: "c7"}, store.PageRequest{First: 20, Count: true},
			oneCluster(newest, 7)[:20], true, 200, 21 + 200},
		{"by status", Filter{Statuses: []Status{Failed}}, store.PageRequest{First: 5}, failedOf3[:5], true, 0, 57},
		{"by target and status", Filter{TargetKind: "CLUSTER", TargetID: "c3", Statuses: []Status{Failed}}, store.PageRequest{First: 5, After: failedOf3[194], Count: true},
			failedOf3[195:], false, 200, 5 + 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page, err := r.List(c.filter, c.req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, op := range page.Items {
				got = append(got, op.ID)
			}
			if !slices.Equal(got, c.want) || page.HasNext != c.hasNext || page.Total != c.total {
				t.Fatalf("got %d operations (hasNext %v, total %d), want %d (hasNext %v, total %d)", len(got), page.HasNext, page.Total, len(c.want), c.hasNext, c.total)
			}
			if page.Decoded > c.maxDecoded {
				t.Fatalf("the page decoded %d operations, want at most %d", page.Decoded, c.maxDecoded)
			}
		})
	}
}

// TestListPagesThroughEveryOperationOnce follows endCursor as a client
// does and sees every operation once, newest first.
func TestListPagesThroughEveryOperationOnce(t *testing.T) {
	r, all := seedOperations(t, 450)
	var seen []string
	after := ""
	for {
		page, err := r.List(Filter{}, store.PageRequest{First: 200, After: after})
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range page.Items {
			seen = append(seen, op.ID)
		}
		if !page.HasNext {
			break
		}
		after = page.Items[len(page.Items)-1].ID
	}
	slices.Reverse(all)
	if !slices.Equal(seen, all) {
		t.Fatalf("paging saw %d operations, want all %d newest first", len(seen), len(all))
	}
}

// BenchmarkListPage reads pages of 20 out of 10,000 operations. A page
// costs what a page costs: compare decoded/op of the pages with the whole
// read, which is what every page cost before.
func BenchmarkListPage(b *testing.B) {
	r, all := seedOperations(b, 10000)
	cases := []struct {
		name   string
		filter Filter
		req    store.PageRequest
	}{
		{"first 20", Filter{}, store.PageRequest{First: 20}},
		{"first 20 after 5000", Filter{}, store.PageRequest{First: 20, After: all[5000]}},
		{"first 20 with totalCount", Filter{}, store.PageRequest{First: 20, Count: true}},
		{"first 20 of one cluster", Filter{TargetKind: "CLUSTER", TargetID: "c4"}, store.PageRequest{First: 20}},
		{"first 20 FAILED", Filter{Statuses: []Status{Failed}}, store.PageRequest{First: 20}},
		{"every operation", Filter{}, store.PageRequest{First: 10000, Count: true}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			decoded := 0
			for b.Loop() {
				page, err := r.List(c.filter, c.req)
				if err != nil {
					b.Fatal(err)
				}
				decoded = page.Decoded
			}
			b.ReportMetric(float64(decoded), "decoded/op")
		})
	}
}
