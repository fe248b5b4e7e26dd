package compute_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/store"
)

// TestGroupsPageReadsOnlyItsPage stores 30 groups of cluster a, with a
// group of cluster b and a deleted one of a between each, and pages through
// a's live groups: each page is in creation order, matches Groups, and
// decodes no record past the one after the page.
func TestGroupsPageReadsOnlyItsPage(t *testing.T) {
	a := apptest.New(t, apptest.Options{})
	var ids store.IDs
	err := a.Store.Update(func(tx *store.Tx) error {
		for i := range 30 {
			for _, g := range []hyperpod.InstanceGroup{
				{ClusterID: "a", GroupSpec: hyperpod.GroupSpec{Name: fmt.Sprintf("g%02d", i)}, Status: hyperpod.GroupInService},
				{ClusterID: "b", GroupSpec: hyperpod.GroupSpec{Name: fmt.Sprintf("b%02d", i)}, Status: hyperpod.GroupInService},
				{ClusterID: "a", GroupSpec: hyperpod.GroupSpec{Name: fmt.Sprintf("gone%02d", i)}, Status: hyperpod.GroupDeleted},
			} {
				g.ID = ids.NewID()
				if err := tx.Put(compute.GroupKind, g.ID, &g); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all, err := a.Compute.Groups("a", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 30 {
		t.Fatalf("Groups returned %d groups; want 30", len(all))
	}
	var paged []string
	after := ""
	for range 10 {
		page, err := a.Compute.GroupsPage("a", store.PageRequest{First: 7, After: after})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range page.Items {
			paged = append(paged, g.Name)
		}
		// Three records stand for each live group of a: a page of 7 and
		// the one that shows a next page are read past at most 8*3.
		if page.Decoded > 8*3 {
			t.Fatalf("a page of %d decoded %d records; want at most %d", len(page.Items), page.Decoded, 8*3)
		}
		if !page.HasNext {
			break
		}
		after = page.Items[len(page.Items)-1].ID
	}
	var want []string
	for _, g := range all {
		want = append(want, g.Name)
	}
	if !slices.Equal(paged, want) {
		t.Fatalf("pages gave %v; want Groups' order %v", paged, want)
	}
}
