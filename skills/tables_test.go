package skills_test

import (
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/instantstart/instantstart/graph"
	"github.com/instantstart/instantstart/skills"
)

// table is one markdown table: its header cells and the cells of each row.
type table struct {
	header []string
	rows   [][]string
}

// tables returns the markdown tables of text.
func tables(text string) []table {
	var out []table
	var cur *table
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			cur = nil
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case cur == nil:
			out = append(out, table{header: cells})
			cur = &out[len(out)-1]
		case strings.Trim(strings.Join(cells, ""), "-: ") == "":
			// the line under the header
		default:
			cur.rows = append(cur.rows, cells)
		}
	}
	return out
}

// tableOf returns the table of file whose first header cell is first.
func tableOf(t *testing.T, file, first string) table {
	t.Helper()
	raw, err := fs.ReadFile(skills.FS, file)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables(string(raw)) {
		if len(tb.header) > 0 && tb.header[0] == first {
			return tb
		}
	}
	t.Fatalf("%s has no table whose first column is %q", file, first)
	return table{}
}

// codeIn returns the code spans of a table cell, e.g. `a`, `b` -> [a b].
func codeIn(cell string) []string {
	var out []string
	for _, m := range inlineCode.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// sameSet reports, for a table column and what the schema has, the names
// the column lacks and the names the schema does not have.
func sameSet(t *testing.T, what string, listed, want []string) {
	t.Helper()
	have := map[string]bool{}
	for _, n := range listed {
		if have[n] {
			t.Errorf("%s lists %s twice", what, n)
		}
		have[n] = true
	}
	for _, n := range want {
		if !have[n] {
			t.Errorf("%s lacks %s, which the schema has", what, n)
		}
		delete(have, n)
	}
	for _, n := range slices.Sorted(maps.Keys(have)) {
		t.Errorf("%s lists %s, which the schema does not have", what, n)
	}
}

func schemaDoc() *ast.Schema { return graph.NewExecutableSchema(graph.Config{}).Schema() }

// area is the schema file that defines a field: "node" for
// schema/node.graphqls.
func area(f *ast.FieldDefinition) string {
	return strings.TrimSuffix(path.Base(f.Position.Src.Name), ".graphqls")
}

// TestToolTableListsEveryTool fails when the guide's table of tools falls
// behind the schema: each area's row must list exactly the Query fields
// (read-only tools) and Mutation fields of schema/<area>.graphqls.
func TestToolTableListsEveryTool(t *testing.T) {
	s := schemaDoc()
	type tools struct{ readOnly, mutating []string }
	want := map[string]*tools{}
	for _, root := range []*ast.Definition{s.Query, s.Mutation} {
		for _, f := range root.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			a := area(f)
			if want[a] == nil {
				want[a] = &tools{}
			}
			if root == s.Query {
				want[a].readOnly = append(want[a].readOnly, snakeCase(f.Name))
			} else {
				want[a].mutating = append(want[a].mutating, snakeCase(f.Name))
			}
		}
	}
	tb := tableOf(t, guide, "area")
	seen := map[string]bool{}
	for _, row := range tb.rows {
		if len(row) != 3 {
			t.Errorf("%s: tool table row %q has %d cells, want 3", guide, row, len(row))
			continue
		}
		a := row[0]
		if seen[a] {
			t.Errorf("%s: tool table has area %s twice", guide, a)
		}
		seen[a] = true
		w := want[a]
		if w == nil {
			t.Errorf("%s: tool table has area %s, but no schema/%s.graphqls defines a query or mutation", guide, a, a)
			continue
		}
		sameSet(t, guide+" row "+a+", read-only tools,", codeIn(row[1]), w.readOnly)
		sameSet(t, guide+" row "+a+", tools that change something,", codeIn(row[2]), w.mutating)
	}
	for _, a := range slices.Sorted(maps.Keys(want)) {
		if !seen[a] {
			t.Errorf("%s: tool table has no row for %s (tools %v %v)", guide, a, want[a].readOnly, want[a].mutating)
		}
	}
}

// TestFeatureTableListsEveryFeature fails when a feature is added to the
// schema (FeatureName, and its field of UpdateClusterFeaturesInput) and not
// to the guide's table of features, or the feature playbook does not show
// how to turn it on.
func TestFeatureTableListsEveryFeature(t *testing.T) {
	s := schemaDoc()
	enum, input := s.Types["FeatureName"], s.Types["UpdateClusterFeaturesInput"]
	if enum == nil || input == nil {
		t.Fatal("the schema has no FeatureName enum or no UpdateClusterFeaturesInput")
	}
	var features, fields []string
	for _, v := range enum.EnumValues {
		features = append(features, v.Name)
	}
	for _, f := range input.Fields {
		fields = append(fields, f.Name)
	}

	tb := tableOf(t, guide, "feature")
	var listed, listedFields []string
	for _, row := range tb.rows {
		if len(row) != 3 || len(codeIn(row[0])) != 1 || len(codeIn(row[1])) != 1 {
			t.Errorf("%s: feature table row %q: want `FEATURE` | `inputField` | what it is", guide, row)
			continue
		}
		listed = append(listed, codeIn(row[0])[0])
		listedFields = append(listedFields, codeIn(row[1])[0])
	}
	sameSet(t, guide+"'s feature table", listed, features)
	sameSet(t, guide+"'s feature table, input fields,", listedFields, fields)

	var playbook string
	for _, p := range playbooks(t) {
		if p.file == "enable-features.md" {
			playbook = p.body
		}
	}
	shown := codeTokens(playbook)
	for _, f := range fields {
		if !slices.Contains(shown, f) {
			t.Errorf("enable-features.md shows no call with %s: add how to turn that feature on", f)
		}
	}
}

// TestCapacityTypesAreOffered fails when the agent's prompt or the
// create-cluster playbook leaves out a capacity type the schema has (an
// agent that is never told of training plans never offers one).
func TestCapacityTypesAreOffered(t *testing.T) {
	enum := schemaDoc().Types["CapacityType"]
	if enum == nil {
		t.Fatal("the schema has no CapacityType enum")
	}
	for _, file := range []string{"hypd-inst-agent.json", "create-cluster.md"} {
		raw, err := fs.ReadFile(skills.FS, file)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range enum.EnumValues {
			if !strings.Contains(string(raw), v.Name) {
				t.Errorf("%s never names capacity type %s", file, v.Name)
			}
		}
	}
}
