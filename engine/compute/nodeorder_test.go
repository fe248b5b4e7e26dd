package compute_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/store"
)

// nodeStore is the compute service of an engine, and its store, holding
// cluster c1 with groups "a" (a1) and "a-b" (a2), cluster c2 with group "a"
// (b1), and n nodes in each group of c1 and one in c2, written as syncNodes
// writes them.
func nodeStore(t testing.TB, n int) (*compute.Service, *store.Store) {
	t.Helper()
	a := apptest.New(t, apptest.Options{})
	start := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	var nodes []*compute.Node
	for _, g := range []hyperpod.InstanceGroup{{ID: "a1", ClusterID: "c1", GroupSpec: hyperpod.GroupSpec{Name: "a"}}, {ID: "a2", ClusterID: "c1", GroupSpec: hyperpod.GroupSpec{Name: "a-b"}}, {ID: "b1", ClusterID: "c2", GroupSpec: hyperpod.GroupSpec{Name: "a"}}} {
		count := n
		if g.ClusterID == "c2" {
			count = 1
		}
		for i := range count {
			// Later nodes get smaller ids, so id order is not list order.
			launch := start.Add(time.Duration(i) * time.Second)
			nodes = append(nodes, &compute.Node{ID: fmt.Sprintf("i-%s-%05d", g.ID, 99999-i), ClusterID: g.ClusterID, GroupID: g.ID, GroupName: g.Name, LaunchTime: &launch})
		}
		if err := a.Store.Update(func(tx *store.Tx) error { return tx.Put(compute.GroupKind, g.ID, g) }); err != nil {
			t.Fatal(err)
		}
	}
	for part := range slices.Chunk(nodes, 1000) {
		err := a.Store.Update(func(tx *store.Tx) error {
			for _, node := range part {
				if err := compute.PutNode(tx, nil, node); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return a.Compute, a.Store
}

func pageIDs(p *store.Page[compute.Node]) []string {
	var out []string
	for _, n := range p.Items {
		out = append(out, n.ID)
	}
	return out
}

func nodeIDs(group string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("i-%s-%05d", group, 99999-i))
	}
	return out
}

// readAll pages through the list from its start, size at a time.
func readAll(t *testing.T, s *compute.Service, cluster, group string, size int) []string {
	t.Helper()
	var all []string
	after := ""
	for range 100 {
		p, err := s.NodesPage(cluster, group, store.PageRequest{First: size, After: after})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, pageIDs(p)...)
		if !p.HasNext {
			return all
		}
		after = compute.NodeCursor(p.Items[len(p.Items)-1])
	}
	t.Fatal("paging did not end")
	return nil
}

func TestNodesPageFollowsGroupAndLaunchOrder(t *testing.T) {
	s, _ := nodeStore(t, 5)
	// Group "a" before "a-b", each by launch time; c2's node is not c1's.
	want := append(nodeIDs("a1", 0, 5), nodeIDs("a2", 0, 5)...)
	if got := readAll(t, s, "c1", "", 3); !slices.Equal(got, want) {
		t.Fatalf("pages of 3 read %v, want %v", got, want)
	}
	if got := readAll(t, s, "c1", "a2", 2); !slices.Equal(got, nodeIDs("a2", 0, 5)) {
		t.Fatalf("group a2 read %v", got)
	}
	if got := readAll(t, s, "c1", "b1", 2); got != nil {
		t.Fatalf("another cluster's group listed %v", got)
	}
	all, err := s.Nodes("c1", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range all {
		ids = append(ids, n.ID)
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("Nodes listed %v, want %v", ids, want)
	}

	p, err := s.NodesPage("c1", "", store.PageRequest{First: 2, Count: true})
	if err != nil || p.Total != 10 || p.Decoded != 2 {
		t.Fatalf("a counted page: %+v, %v; want a total of 10 and 2 nodes decoded", p, err)
	}
}

func TestNodesPageCursors(t *testing.T) {
	s, st := nodeStore(t, 5)
	first, err := s.NodesPage("c1", "", store.PageRequest{First: 3})
	if err != nil {
		t.Fatal(err)
	}
	cursor := compute.NodeCursor(first.Items[2])

	// The node at the cursor goes between two pages: the next page starts
	// past its place all the same.
	err = st.Update(func(tx *store.Tx) error { return compute.DeleteNode(tx, first.Items[2]) })
	if err != nil {
		t.Fatal(err)
	}
	next, err := s.NodesPage("c1", "", store.PageRequest{First: 3, After: cursor})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{nodeIDs("a1", 3, 4)[0], nodeIDs("a1", 4, 5)[0], nodeIDs("a2", 0, 1)[0]}; !slices.Equal(pageIDs(next), want) {
		t.Fatalf("after a deleted node's cursor: %v, want %v", pageIDs(next), want)
	}

	// A cursor of the whole list, used on one group's list: before the
	// group starts it, past the group ends it.
	inA2, err := s.NodesPage("c1", "a2", store.PageRequest{First: 2, After: cursor})
	if err != nil || !slices.Equal(pageIDs(inA2), nodeIDs("a2", 0, 2)) {
		t.Fatalf("group a2 after a cursor in a1: %v, %v", pageIDs(inA2), err)
	}
	inA1, err := s.NodesPage("c1", "a1", store.PageRequest{First: 2, After: compute.NodeCursor(next.Items[2]), Count: true})
	if err != nil || len(inA1.Items) != 0 || inA1.HasNext || inA1.Total != 4 {
		t.Fatalf("group a1 after a cursor in a2: %+v, %v; want an empty last page, 4 in all", inA1, err)
	}

	for _, bad := range []string{"i-a1-99999", "not base64!", compute.NodeCursor(&compute.Node{ID: "x"})[:2], string(make([]byte, 600))} {
		_, err := s.NodesPage("c1", "", store.PageRequest{First: 3, After: bad})
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != errs.Validation || e.Field != "after" {
			t.Fatalf("cursor %.20q: %v, want a VALIDATION error on after", bad, err)
		}
	}
}

// TestNodeIndexFollowsChanges moves a node's entry when its launch time
// changes.
func TestNodeIndexFollowsChanges(t *testing.T) {
	s, st := nodeStore(t, 2)
	nodes, _ := s.Nodes("c1", "a1")
	moved := *nodes[0]
	later := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	moved.LaunchTime = &later
	if err := st.Update(func(tx *store.Tx) error { return compute.PutNode(tx, nodes[0], &moved) }); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s, "c1", "a1", 5); !slices.Equal(got, []string{nodes[1].ID, nodes[0].ID}) {
		t.Fatalf("after a relaunch the group reads %v", got)
	}

}

// TestIndexingAStoreFromBeforeTheIndex builds the index of a store that has
// more nodes than one indexing batch, and none of their entries.
func TestIndexingAStoreFromBeforeTheIndex(t *testing.T) {
	s, st := nodeStore(t, 700)
	err := st.Update(func(tx *store.Tx) error {
		if err := tx.DeleteIndex(compute.MetaIndex, compute.NodeOrderBuilt); err != nil {
			return err
		}
		return tx.ScanIndex(compute.NodeOrderIndex, "", func(key, _ string) (bool, error) {
			return true, tx.DeleteIndex(compute.NodeOrderIndex, key)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		p, err := s.NodesPage("c1", "", store.PageRequest{First: 1, Count: true})
		if err != nil {
			t.Fatal(err)
		}
		return p.Total
	}
	if n := count(); n != 0 {
		t.Fatalf("with no index the list counts %d nodes", n)
	}
	if err := s.IndexNodes(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1400 {
		t.Fatalf("after indexing the list counts %d nodes, want 1400", n)
	}
	if got := readAll(t, s, "c1", "a2", 200); !slices.Equal(got, nodeIDs("a2", 0, 700)) {
		t.Fatalf("after indexing group a2 reads %d nodes out of order", len(got))
	}
}

// BenchmarkNodesPage reads the middle page of 50 out of 10,000 nodes of a
// cluster: it costs the page, not the cluster (decoded/op is 50). "every
// node" is the whole read that each page cost before the index.
func BenchmarkNodesPage(b *testing.B) {
	s, _ := nodeStore(b, 5000)
	mid, err := s.NodesPage("c1", "", store.PageRequest{First: 1, After: compute.NodeCursor(&compute.Node{GroupName: "a", GroupID: "a1", ID: "i"})})
	if err != nil {
		b.Fatal(err)
	}
	after := compute.NodeCursor(mid.Items[0])
	b.Run("50 after 5000", func(b *testing.B) {
		decoded := 0
		for b.Loop() {
			p, err := s.NodesPage("c1", "", store.PageRequest{First: 50, After: after})
			if err != nil || len(p.Items) != 50 {
				b.Fatalf("%d nodes, %v", len(p.Items), err)
			}
			decoded = p.Decoded
		}
		b.ReportMetric(float64(decoded), "decoded/op")
	})
	b.Run("every node", func(b *testing.B) {
		for b.Loop() {
			all, err := s.Nodes("c1", "")
			if err != nil || len(all) != 10000 {
				b.Fatalf("%d nodes, %v", len(all), err)
			}
		}
		b.ReportMetric(10000, "decoded/op")
	})
}
