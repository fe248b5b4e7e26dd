package resolvers

import (
	"testing"

	"github.com/instantstart/instantstart/engine/errs"

	"github.com/instantstart/instantstart/graph"
	"github.com/vektah/gqlparser/v2/ast"
	"regexp"
	"strconv"
	"strings"
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

// TestEveryListArgumentDocumentsItsMaximum: each list a client may send,
// an argument or a field of an input, says in its description how many
// items it takes at most ("at most N"), and N is no more than what
// checkListBounds enforces.
func TestEveryListArgumentDocumentsItsMaximum(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: &Resolver{}}).Schema()
	atMost := regexp.MustCompile(`(?i)at most ([0-9,]+)`)
	check := func(where string, v *ast.ArgumentDefinition) {
		if v.Type.Elem == nil {
			return
		}
		m := atMost.FindStringSubmatch(v.Description)
		if m == nil {
			t.Errorf("%s is a list whose description says no maximum; add \"At most %d items.\" (or fewer, if the engine allows fewer)", where, MaxListItems)
			return
		}
		if n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); err != nil || n > MaxListItems {
			t.Errorf("%s documents at most %s items, more than the %d enforced", where, m[1], MaxListItems)
		}
	}
	for _, typ := range schema.Types {
		switch {
		case typ.Kind == ast.InputObject:
			for _, f := range typ.Fields {
				check(typ.Name+"."+f.Name, &ast.ArgumentDefinition{Type: f.Type, Description: f.Description})
			}
		case typ.Kind == ast.Object && !strings.HasPrefix(typ.Name, "__"):
			for _, f := range typ.Fields {
				for _, a := range f.Arguments {
					check(typ.Name+"."+f.Name+"("+a.Name+")", a)
				}
			}
		}
	}
}
