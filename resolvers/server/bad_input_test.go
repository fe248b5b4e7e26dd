package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/resolvers/server"
	"github.com/instantstart/instantstart/resolvers/server/gqltest"
)

// TestBadInputGetsAClearCode sends requests a client gets wrong, or a
// hostile one sends on purpose, and checks that each is refused with
// VALIDATION or LIMIT naming what is wrong, never INTERNAL.
func TestBadInputGetsAClearCode(t *testing.T) {
	srv := startServer(t, server.Config{})
	createCluster := `mutation($in: CreateClusterInput!, $key: String) { createCluster(input: $in, idempotencyKey: $key) { id } }`
	zones := []string{"us-west-2a", "us-west-2b"}
	tests := []struct {
		name  string
		query string
		vars  map[string]any
		code  string
		field string
		says  []string // the message contains each
	}{
		{
			name:  "idempotency key too long",
			query: createCluster,
			vars:  map[string]any{"in": map[string]any{"name": "idem", "zones": zones}, "key": strings.Repeat("k", 100_000)},
			code:  "VALIDATION", field: "idempotencyKey", says: []string{"100000 characters", "256"},
		},
		{
			name:  "idempotency key not printable",
			query: createCluster,
			vars:  map[string]any{"in": map[string]any{"name": "idem", "zones": zones}, "key": "a\x00b"},
			code:  "VALIDATION", field: "idempotencyKey", says: []string{"not printable"},
		},
		{
			name:  "time that is not RFC 3339",
			query: `mutation { createToken(input: {name: "t", role: VIEWER, expiresAt: "yesterday"}) { secret } }`,
			code:  "VALIDATION", field: "input.expiresAt", says: []string{"input.expiresAt", "RFC3339"},
		},
		{
			name:  "time that is not RFC 3339, in a variable",
			query: `mutation($in: CreateTokenInput!) { createToken(input: $in) { secret } }`,
			vars:  map[string]any{"in": map[string]any{"name": "t", "role": "VIEWER", "expiresAt": "yesterday"}},
			code:  "VALIDATION", field: "input.expiresAt", says: []string{"RFC3339"},
		},
		{
			name:  "explicitly empty region",
			query: createCluster,
			vars:  map[string]any{"in": map[string]any{"name": "empty-region", "region": "", "zones": zones}},
			code:  "VALIDATION", field: "input.region", says: []string{"empty", "leave input.region out"},
		},
		{
			name:  "explicitly empty region of a preflight query",
			query: `{ availabilityZones(region: "") { name } }`,
			code:  "VALIDATION", field: "region", says: []string{"empty"},
		},
		{
			name:  "an Int sent as a string",
			query: `query($n: Int) { operations(first: $n) { totalCount } }`,
			vars:  map[string]any{"n": "5"},
			code:  "VALIDATION", field: "first", says: []string{`"5"`, "without quotes"},
		},
		{
			name:  "an Int sent as a string inside an input object",
			query: createCluster,
			vars: map[string]any{"in": map[string]any{"name": "strings", "zones": zones,
				"instanceGroups": []any{map[string]any{"name": "g", "instanceType": "ml.p5.48xlarge", "count": "5"}}}},
			code: "VALIDATION", field: "input.instanceGroups[0].count", says: []string{"without quotes"},
		},
		{
			name:  "an Int out of range",
			query: `query($n: Int) { operations(first: $n) { totalCount } }`,
			vars:  map[string]any{"n": 3_000_000_000},
			code:  "VALIDATION", field: "first", says: []string{"out of the Int range"},
		},
		{
			// gqlparser refuses a fraction in a variable before the
			// scalar sees it; the error names the variable.
			name:  "an Int with a fraction",
			query: createCluster,
			vars: map[string]any{"in": map[string]any{"name": "fraction", "zones": zones,
				"instanceGroups": []any{map[string]any{"name": "g", "instanceType": "ml.p5.48xlarge", "count": 2.5}}}},
			code: "VALIDATION", field: "$in.instanceGroups[0].count", says: []string{"$in.instanceGroups[0].count", "Int"},
		},
		{
			name:  "an Int literal with a fraction",
			query: `{ operations(first: 2.5) { totalCount } }`,
			code:  "VALIDATION", says: []string{"2.5"},
		},
		{
			name:  "202 levels deep",
			query: strings.Repeat("{ a ", 202) + strings.Repeat("}", 202),
			code:  "LIMIT", says: []string{"202 levels", "15"},
		},
		{
			name:  "3,000 anonymous operations",
			query: strings.Repeat("{ version } ", 3000),
			code:  "VALIDATION", says: []string{"3000 operations", "operationName"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := query(t, srv, tt.query, tt.vars)
			if len(res.Errors) == 0 {
				t.Fatalf("no error; data %s", res.Data)
			}
			e := res.Errors[0]
			if e.Code() != tt.code {
				t.Errorf("code = %q (%s), want %s", e.Code(), e.Message, tt.code)
			}
			if tt.field != "" && e.Extensions["field"] != tt.field {
				t.Errorf("field = %v (%s), want %s", e.Extensions["field"], e.Message, tt.field)
			}
			for _, s := range tt.says {
				if !strings.Contains(e.Message, s) {
					t.Errorf("message %q does not say %q", e.Message, s)
				}
			}
		})
	}
	// Leaving the region out still means the server's default region.
	if err := query(t, srv, `{ availabilityZones { name } }`, nil).Err(); err != nil {
		t.Errorf("availabilityZones without a region: %v", err)
	}
}

// TestOperationNameMustNameAnOperation checks the refusals of a document
// whose operation to run is ambiguous or missing.
func TestOperationNameMustNameAnOperation(t *testing.T) {
	srv := startServer(t, server.Config{})
	doc := "query A { version } query B { version }"
	for _, tt := range []struct {
		name, operationName, says string
	}{
		{"none given", "", "pass operationName"},
		{"unknown", "C", `no operation named "C"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // the second time the document comes from the query cache
				body, _ := json.Marshal(map[string]any{"query": doc, "operationName": tt.operationName})
				_, out := do(t, http.MethodPost, srv.URL()+"/graphql", string(body))
				var res gqltest.Response
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					t.Fatalf("response %.200q: %v", out, err)
				}
				if len(res.Errors) != 1 || res.Errors[0].Code() != "VALIDATION" || !strings.Contains(res.Errors[0].Message, tt.says) {
					t.Fatalf("errors = %+v, want one VALIDATION saying %q", res.Errors, tt.says)
				}
			}
		})
	}
	body, _ := json.Marshal(map[string]any{"query": doc, "operationName": "B"})
	if status, out := do(t, http.MethodPost, srv.URL()+"/graphql", string(body)); status != http.StatusOK || strings.Contains(out, "errors") {
		t.Fatalf("operationName B: %d %s", status, out)
	}
}

// TestHostileDocumentsAreRefusedWithLimit sends documents of about 1 MiB,
// just under the body limit, built to make validation slow, and checks that
// each is refused with LIMIT naming the limit it passes.
func TestHostileDocumentsAreRefusedWithLimit(t *testing.T) {
	srv := startServer(t, server.Config{})
	const size = 1000_000
	alias := "a" + strings.Repeat("x", 300)
	var aliases strings.Builder
	aliases.WriteString("{")
	for i := 0; aliases.Len() < size; i++ {
		fmt.Fprintf(&aliases, " %s%d: version", alias, i)
	}
	aliases.WriteString(" }")
	var nested strings.Builder
	nested.WriteString("{ ...F60 }\nfragment F0 on Query { version }\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&nested, "fragment F%d on Query { ...F%d ...F%d }\n", i, i-1, i-1)
	}
	nested.WriteString("# " + strings.Repeat("x", size-nested.Len()) + "\n")
	for _, tt := range []struct {
		name, doc string
		says      []string
	}{
		{"repeated fields", "{" + strings.Repeat(" version", size/8) + " }", []string{"125002 tokens", "15000"}},
		{"aliases", aliases.String(), []string{"fields", "500"}},
		{"nested fragments", nested.String(), []string{"more than 2147483646 fields", "500"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.doc) < 900_000 || len(tt.doc) > 1<<20-100 {
				t.Fatalf("the document is %d bytes, want about 1 MiB", len(tt.doc))
			}
			res := query(t, srv, tt.doc, nil)
			if len(res.Errors) != 1 || res.Errors[0].Code() != "LIMIT" {
				t.Fatalf("errors = %+v, want one LIMIT", res.Errors)
			}
			for _, s := range tt.says {
				if !strings.Contains(res.Errors[0].Message, s) {
					t.Errorf("message %q does not say %q", res.Errors[0].Message, s)
				}
			}
		})
	}
	if err := query(t, srv, `{ version }`, nil).Err(); err != nil {
		t.Fatal(err)
	}
}
