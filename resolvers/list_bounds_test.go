package resolvers

import (
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
)

func TestListBoundsNamesTheLongList(t *testing.T) {
	type label struct{ Key string }
	type group struct {
		Name   string   `json:"name"`
		Labels []label  `json:"labels,omitempty"`
		Types  []string `json:"instanceTypes,omitempty"`
	}
	type input struct {
		Groups []*group `json:"instanceGroups"`
	}
	ok := &input{Groups: []*group{{Name: "a", Labels: make([]label, MaxListItems)}}}
	if err := checkListBounds(map[string]any{"input": ok, "ids": make([]string, MaxListItems)}); err != nil {
		t.Fatalf("lists of %d were refused: %v", MaxListItems, err)
	}
	long := &input{Groups: []*group{{Name: "a"}, {Name: "b", Labels: make([]label, MaxListItems+1)}}}
	e := errs.As(checkListBounds(map[string]any{"input": long}))
	if e.Code != errs.Validation || e.Field != "input.instanceGroups[1].labels" {
		t.Fatalf("got %+v; want VALIDATION on input.instanceGroups[1].labels", e)
	}
	e = errs.As(checkListBounds(map[string]any{"input": &input{Groups: []*group{{Name: "a", Types: make([]string, MaxListItems+1)}}}}))
	if e.Code != errs.Validation || e.Field != "input.instanceGroups[0].instanceTypes" {
		t.Fatalf("got %+v; want VALIDATION on input.instanceGroups[0].instanceTypes", e)
	}
	e = errs.As(checkListBounds(map[string]any{"nodeIds": make([]string, MaxListItems+1)}))
	if e.Code != errs.Validation || e.Field != "nodeIds" {
		t.Fatalf("got %+v; want VALIDATION on nodeIds", e)
	}
}
