package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/graph"
	"github.com/instantstart/instantstart/resolvers"
)

// boundedExecutor is an executor of the real schema with the document
// bounds the server gives it, sharing cache; it only parses and validates,
// so it needs no resolvers behind it.
func boundedExecutor(cache graphql.Cache[*ast.QueryDocument]) *executor.Executor {
	exec := executor.New(graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}}))
	exec.SetQueryCache(cache)
	exec.Use(documentBounds{cache: cache, maxDepth: DefaultLimits.MaxDepth, maxFields: maxComplexity})
	return exec
}

// prepare runs the executor's parse, bounds and validation of a document.
func prepare(exec *executor.Executor, query, operationName string) gqlerror.List {
	ctx := graphql.StartOperationTrace(context.Background())
	_, list := exec.CreateOperationContext(ctx, &graphql.RawParams{Query: query, OperationName: operationName})
	return list
}

// codeOf is the engine code a refusal of the bounds carries, "" for none.
func codeOf(list gqlerror.List) errs.Code {
	if len(list) == 0 {
		return ""
	}
	return errs.CodeOf(list[0])
}

// repeated is a query selecting the field version n times, each under its
// own alias when aliased.
func repeated(n int, aliased bool) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if aliased {
			fmt.Fprintf(&b, " v%d: version", i)
		} else {
			b.WriteString(" version")
		}
	}
	b.WriteString(" }")
	return b.String()
}

// spreads is a query spreading n fragments, each selecting one field.
func spreads(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " ...F%d", i)
	}
	b.WriteString(" }\n")
	for i := range n {
		fmt.Fprintf(&b, "fragment F%d on Query { version }\n", i)
	}
	return b.String()
}

// nested is a query of depth levels of the field name, one inside another.
func nested(name string, depth int) string {
	return strings.Repeat("{ "+name+" ", depth) + strings.Repeat("}", depth)
}

func TestDocumentBounds(t *testing.T) {
	exec := boundedExecutor(lru.New[*ast.QueryDocument](queryCacheSize))
	introspection := `query IntrospectionQuery { __schema { queryType { name } mutationType { name } subscriptionType { name }
		types { ...FullType } directives { name description locations args { ...InputValue } } } }
	fragment FullType on __Type { kind name description specifiedByURL
		fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
		inputFields { ...InputValue } interfaces { ...TypeRef }
		enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } }
	fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
	fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name
		ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } }`
	manyVariables := "query("
	for i := range maxVariables + 1 {
		manyVariables += fmt.Sprintf("$v%d: Int ", i)
	}
	manyVariables += ") { version }"
	tests := []struct {
		name, query, operationName string
		code                       errs.Code // "" when the document is accepted
		says                       string
	}{
		{name: "a small query", query: "{ version operations(first: 5) { totalCount } }"},
		{name: "GraphiQL's introspection", query: introspection},
		{name: "fields at the limit", query: repeated(maxComplexity, true)},
		{name: "one field over", query: repeated(maxComplexity+1, true), code: errs.Limit, says: "501 fields"},
		{name: "repeated fields", query: repeated(3000, false), code: errs.Limit, says: "3000 fields"},
		{name: "fields through fragments", query: "{ ...A ...A }\nfragment A on Query { ...B ...B }\nfragment B on Query {" + strings.Repeat(" version", 200) + " }",
			code: errs.Limit, says: "800 fields"},
		{name: "too many tokens", query: repeated(maxTokens, false), code: errs.Limit, says: "15002 tokens"},
		{name: "the real depth", query: nested("a", 202), code: errs.Limit, says: "202 levels"},
		{name: "deeper than the parser reads", query: nested("a", 1200), code: errs.Limit, says: "1200 levels"},
		{name: "depth through fragments", query: "{ ...A }\nfragment A on Query { a { ...B } }\nfragment B on Query " + nested("b", 20),
			code: errs.Limit, says: "21 levels"},
		{name: "a fragment cycle", query: "{ ...A }\nfragment A on Query { ...B }\nfragment B on Query { ...A }",
			code: errs.Validation, says: "A → B → A"},
		{name: "an unused fragment", query: "{ version }\nfragment A on Query { version }", code: errs.Validation, says: `"A" is never used`},
		{name: "fragment uses", query: "{" + strings.Repeat(" ...A", 200) + " }\nfragment A on Query { ... on Query { ... on Query { version } } }",
			code: errs.Limit, says: "600 times"},
		{name: "fragment definitions", query: spreads(maxFragments + 1), code: errs.Limit, says: "101 fragments"},
		{name: "operations", query: strings.Repeat("query Q { version } ", maxOperations+1), operationName: "Q", code: errs.Limit, says: "65 operations"},
		{name: "several operations and no name", query: "query A { version } query B { version }", code: errs.Validation, says: "pass operationName"},
		{name: "arguments", query: "{ operations(" + strings.Repeat("first: 1 ", maxArguments+1) + ") { totalCount } }", code: errs.Limit, says: "33 arguments"},
		{name: "directives", query: "{ version" + strings.Repeat(" @skip(if: false)", maxDirectives+1) + " }", code: errs.Limit, says: "9 directives"},
		{name: "variables", query: manyVariables, code: errs.Limit, says: "65 variables"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := prepare(exec, tt.query, tt.operationName)
			if tt.code == "" {
				if len(list) > 0 {
					t.Fatalf("refused: %v", list)
				}
				return
			}
			if got := codeOf(list); got != tt.code || !strings.Contains(list[0].Message, tt.says) {
				t.Fatalf("got %s %v, want %s saying %q", got, list, tt.code, tt.says)
			}
		})
	}
}

func TestCachedDocumentsAreNotMeasuredAgain(t *testing.T) {
	cache := lru.New[*ast.QueryDocument](10)
	b := documentBounds{cache: cache, maxDepth: 1, maxFields: 1}
	query := "{ version operations { totalCount } }"
	if err := b.MutateOperationParameters(context.Background(), &graphql.RawParams{Query: query}); err == nil {
		t.Fatal("a document over the bounds was accepted")
	}
	// Only a document that passed once reaches the cache; from there it
	// is not measured again, but an ambiguous operation is still refused.
	cache.Add(context.Background(), query, &ast.QueryDocument{Operations: ast.OperationList{{}}})
	if err := b.MutateOperationParameters(context.Background(), &graphql.RawParams{Query: query}); err != nil {
		t.Fatalf("a cached document was measured again: %v", err)
	}
	cache.Add(context.Background(), query, &ast.QueryDocument{Operations: ast.OperationList{{Name: "A"}, {Name: "B"}}})
	if err := b.MutateOperationParameters(context.Background(), &graphql.RawParams{Query: query}); errs.CodeOf(err) != errs.Validation {
		t.Fatalf("a cached document of two operations without operationName: %v", err)
	}
}

// BenchmarkDocumentValidation runs the executor's whole parse, bound and
// validation path on documents of growing size: repeated fields, aliased
// fields, and fragment spreads. Without the bounds the cost of repeated
// fields grows with the square of their number (gqlparser compares them
// pairwise); with them it grows linearly, and a document past a bound is
// refused after a linear pass. Compare ns/op across the sizes.
func BenchmarkDocumentValidation(b *testing.B) {
	// No cache: every run pays for the whole path.
	exec := boundedExecutor(graphql.NoCache[*ast.QueryDocument]{})
	shapes := []struct {
		name  string
		build func(int) string
	}{
		{"fields", func(n int) string { return repeated(n, false) }},
		{"aliases", func(n int) string { return repeated(n, true) }},
		{"spreads", spreads},
	}
	for _, shape := range shapes {
		for _, n := range []int{250, 1000, 2000, 4000, 8000, 16000} {
			query := shape.build(n)
			b.Run(fmt.Sprintf("%s=%d", shape.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(query)))
				for b.Loop() {
					prepare(exec, query, "")
				}
			})
		}
	}
}
