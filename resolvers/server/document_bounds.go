package server

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/instantstart/instantstart/engine/errs"
)

// Bounds of one GraphQL document, far above what the UI, GraphiQL or a
// script sends. gqlparser's validation compares fields pairwise, so its cost
// grows with the square of a document's size: these bounds are checked
// first, in one linear pass, so that validation only ever sees documents
// small enough to be cheap.
const (
	maxTokens     = 15000 // names, punctuation, values and comments
	maxOperations = 64
	maxFragments  = 100 // fragment definitions
	maxSpreads    = 500 // fragment spreads and inline fragments, counting expansions
	maxArguments  = 32  // on one field or directive
	maxDirectives = 8   // at one location
	maxVariables  = 64  // of one operation
	saturated     = math.MaxInt32
)

// documentBounds refuses a GraphQL document that is too large to validate
// cheaply, before gqlgen's executor parses and validates it: too many
// tokens, operations, fragments, arguments, directives or variables, too
// many fields counting every fragment where it is spread (the same bound as
// the complexity limit), or nested too deep. It also refuses a document of
// several operations that does not say which one to run. A document already
// in the executor's query cache passed these checks and pays for none of
// them again.
type documentBounds struct {
	cache     graphql.Cache[*ast.QueryDocument]
	maxDepth  int
	maxFields int
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = documentBounds{}

// ExtensionName names the extension in gqlgen's stats.
func (documentBounds) ExtensionName() string { return "DocumentBounds" }

// Validate accepts any schema: the bounds concern documents only.
func (documentBounds) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters checks the document of params; it changes
// nothing in them.
func (b documentBounds) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	if params.Query == "" {
		return nil // the executor says that no operation was sent
	}
	if b.cache != nil {
		if doc, ok := b.cache.Get(ctx, params.Query); ok {
			return pickOperation(doc, params.OperationName)
		}
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: params.Query}, maxTokens)
	if err != nil {
		// The parser stops at its token and nesting limits without saying
		// how far over them the query is: count that, once.
		tokens, nesting := countTokens(params.Query)
		if tokens > maxTokens {
			return refuse(errs.Limit, nil, "the query has %s tokens (names, punctuation, values and comments); the most allowed is %d: ask for less in one request", countText(tokens), maxTokens)
		}
		if nesting >= parser.MaxNestingDepth {
			return refuse(errs.Limit, nil, "the query is nested %d levels deep; the most allowed is %d: ask for less at once", nesting, b.maxDepth)
		}
		gqlErr, ok := err.(*gqlerror.Error)
		if !ok {
			gqlErr = gqlerror.Wrap(err)
		}
		errcode.Set(gqlErr, errcode.ParseFailed)
		return gqlErr
	}
	if e := pickOperation(doc, params.OperationName); e != nil {
		return e
	}
	return b.measure(doc)
}

// pickOperation refuses a document whose operation to run is ambiguous or
// absent. A document with no operation at all is left to the executor.
func pickOperation(doc *ast.QueryDocument, name string) *gqlerror.Error {
	ops := doc.Operations
	switch {
	case len(ops) == 0:
		return nil
	case name == "" && len(ops) > 1:
		return refuse(errs.Validation, nil, "the document has %d operations; pass operationName to say which one to run", len(ops))
	case name != "" && ops.ForName(name) == nil:
		var names []string
		for _, op := range ops {
			if op.Name != "" && len(names) < 5 {
				names = append(names, fmt.Sprintf("%q", op.Name))
			}
		}
		if len(names) == 0 {
			return refuse(errs.Validation, nil, "the document has no operation named %q and no named operation at all; name the operation, or leave operationName out", name)
		}
		return refuse(errs.Validation, nil, "the document has no operation named %q; pass the name of one of its operations as operationName (%s)", name, strings.Join(names, ", "))
	}
	return nil
}

// fragmentState tracks a fragment definition through the measuring pass.
type fragmentState int8

const (
	unvisited fragmentState = iota
	visiting                // on the current path: spreading it again is a cycle
	measured
)

// fragmentSize is what spreading a fragment adds: its fields and fragment
// uses counting expansions, and its depth.
type fragmentSize struct {
	def                    *ast.FragmentDefinition
	state                  fragmentState
	fields, spreads, depth int
}

// measurer is one pass over a document: every selection set is read once,
// and a fragment's size is computed once and reused wherever it is spread.
type measurer struct {
	fragments map[string]*fragmentSize
	path      []string // fragments being measured, outermost first
}

// measure applies the bounds to a parsed document.
func (b documentBounds) measure(doc *ast.QueryDocument) *gqlerror.Error {
	if n := len(doc.Operations); n > maxOperations {
		return refuse(errs.Limit, nil, "the document has %d operations; the most allowed is %d: send only the operations you run", n, maxOperations)
	}
	if n := len(doc.Fragments); n > maxFragments {
		return refuse(errs.Limit, nil, "the document defines %d fragments; the most allowed is %d: remove the ones its operations do not use", n, maxFragments)
	}
	m := &measurer{fragments: make(map[string]*fragmentSize, len(doc.Fragments))}
	for _, f := range doc.Fragments {
		if _, dup := m.fragments[f.Name]; !dup { // validation reports duplicates
			m.fragments[f.Name] = &fragmentSize{def: f}
		}
	}
	var fields, spreads, deepest int
	var deepestOp *ast.OperationDefinition
	for _, op := range doc.Operations {
		if n := len(op.VariableDefinitions); n > maxVariables {
			return refuse(errs.Limit, op.Position, "the operation %s declares %d variables; the most allowed is %d", operationLabel(op), n, maxVariables)
		}
		if e := checkDirectives(op.Directives, op.Position, "the operation "+operationLabel(op)); e != nil {
			return e
		}
		for _, v := range op.VariableDefinitions {
			if e := checkDirectives(v.Directives, v.Position, "the variable $"+v.Variable); e != nil {
				return e
			}
		}
		f, s, d, e := m.selections(op.SelectionSet)
		if e != nil {
			return e
		}
		fields, spreads = satAdd(fields, f), satAdd(spreads, s)
		if d > deepest {
			deepest, deepestOp = d, op
		}
	}
	for _, f := range doc.Fragments {
		if st := m.fragments[f.Name]; st.def == f && st.state == unvisited {
			// Validation would refuse it too, but only after walking it.
			return refuse(errs.Validation, f.Position, "the fragment %q is never used; remove it or spread it in an operation", f.Name)
		}
	}
	if deepest > b.maxDepth {
		return refuse(errs.Limit, deepestOp.Position, "the operation %s is nested %s levels deep; the most allowed is %d: ask for less at once", operationLabel(deepestOp), countText(deepest), b.maxDepth)
	}
	if fields > b.maxFields {
		return refuse(errs.Limit, nil, "the document selects %s fields, counting each fragment everywhere it is spread; the most allowed is %d: ask for fewer fields, or send only the operation you run", countText(fields), b.maxFields)
	}
	if spreads > maxSpreads {
		return refuse(errs.Limit, nil, "the document uses fragments %s times, counting those inside fragments everywhere they are spread; the most allowed is %d", countText(spreads), maxSpreads)
	}
	return nil
}

// selections measures a selection set: its fields and fragment uses
// counting expansions, and its depth in fields (a leaf field is one level).
func (m *measurer) selections(set ast.SelectionSet) (fields, spreads, depth int, err *gqlerror.Error) {
	for _, sel := range set {
		var f, s, d int
		switch sel := sel.(type) {
		case *ast.Field:
			if n := len(sel.Arguments); n > maxArguments {
				return 0, 0, 0, refuse(errs.Limit, sel.Position, "the field %q has %d arguments; the most allowed is %d", sel.Name, n, maxArguments)
			}
			if err := checkDirectives(sel.Directives, sel.Position, fmt.Sprintf("the field %q", sel.Name)); err != nil {
				return 0, 0, 0, err
			}
			if f, s, d, err = m.selections(sel.SelectionSet); err != nil {
				return 0, 0, 0, err
			}
			f, d = satAdd(f, 1), satAdd(d, 1)
		case *ast.InlineFragment:
			if err := checkDirectives(sel.Directives, sel.Position, "an inline fragment"); err != nil {
				return 0, 0, 0, err
			}
			if f, s, d, err = m.selections(sel.SelectionSet); err != nil {
				return 0, 0, 0, err
			}
			s = satAdd(s, 1)
		case *ast.FragmentSpread:
			if err := checkDirectives(sel.Directives, sel.Position, "the spread of "+sel.Name); err != nil {
				return 0, 0, 0, err
			}
			size, err := m.fragment(sel)
			if err != nil {
				return 0, 0, 0, err
			}
			if size != nil { // an unknown fragment: validation reports it
				f, s, d = size.fields, size.spreads, size.depth
			}
			s = satAdd(s, 1)
		}
		fields, spreads, depth = satAdd(fields, f), satAdd(spreads, s), max(depth, d)
	}
	return fields, spreads, depth, nil
}

// fragment measures the fragment a spread names, once, refusing a cycle.
func (m *measurer) fragment(spread *ast.FragmentSpread) (*fragmentSize, *gqlerror.Error) {
	size := m.fragments[spread.Name]
	switch {
	case size == nil, size.state == measured:
		return size, nil
	case size.state == visiting:
		cycle := append(m.path[indexOf(m.path, spread.Name):], spread.Name)
		return nil, refuse(errs.Validation, spread.Position, "the fragment %q spreads itself (%s); a fragment cannot contain itself", spread.Name, strings.Join(cycle, " → "))
	}
	size.state = visiting
	m.path = append(m.path, spread.Name)
	if err := checkDirectives(size.def.Directives, size.def.Position, "the fragment "+size.def.Name); err != nil {
		return nil, err
	}
	f, s, d, err := m.selections(size.def.SelectionSet)
	if err != nil {
		return nil, err
	}
	m.path = m.path[:len(m.path)-1]
	size.fields, size.spreads, size.depth, size.state = f, s, d, measured
	return size, nil
}

// checkDirectives bounds the directives at one location and their arguments.
func checkDirectives(list ast.DirectiveList, pos *ast.Position, where string) *gqlerror.Error {
	if n := len(list); n > maxDirectives {
		return refuse(errs.Limit, pos, "%s has %d directives; the most allowed is %d", where, n, maxDirectives)
	}
	for _, d := range list {
		if n := len(d.Arguments); n > maxArguments {
			return refuse(errs.Limit, d.Position, "the directive @%s has %d arguments; the most allowed is %d", d.Name, n, maxArguments)
		}
	}
	return nil
}

// countTokens counts the tokens of a query as the parser reads them,
// comments included, and the deepest nesting of braces and brackets,
// stopping at the first token the lexer cannot read.
func countTokens(query string) (tokens, nesting int) {
	lx := lexer.New(&ast.Source{Input: query})
	level := 0
	for {
		tok, err := lx.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			return tokens, nesting
		}
		tokens++
		switch tok.Kind {
		case lexer.BraceL, lexer.BracketL:
			level++
			nesting = max(nesting, level)
		case lexer.BraceR, lexer.BracketR:
			level--
		}
	}
}

// refuse is a document-level refusal with an engine code, which the error
// presenter shows as is. gqlgen answers it like a validation failure (HTTP
// 422): nothing of the document ran.
func refuse(code errs.Code, pos *ast.Position, format string, args ...any) *gqlerror.Error {
	e := errs.New(code, format, args...)
	out := &gqlerror.Error{Message: e.Message, Err: e}
	if pos != nil {
		out.Locations = []gqlerror.Location{{Line: pos.Line, Column: pos.Column}}
	}
	errcode.Set(out, errcode.ValidationFailed)
	return out
}

func operationLabel(op *ast.OperationDefinition) string {
	if op.Name == "" {
		return "(anonymous)"
	}
	return fmt.Sprintf("%q", op.Name)
}

// satAdd adds two non-negative counts, stopping at saturated: fragments
// that spread one another twice over double the count at every level.
func satAdd(a, b int) int { return min(a+b, saturated) }

// countText writes a count, saying "more than" for a saturated one.
func countText(n int) string {
	if n >= saturated {
		return fmt.Sprintf("more than %d", saturated-1)
	}
	return fmt.Sprint(n)
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return 0
}
