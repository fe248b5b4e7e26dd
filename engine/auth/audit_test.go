package auth

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

func TestRecordSetsIDTimeAndRedacts(t *testing.T) {
	f := newFixture(t)
	hf := "hf_" + strings.Repeat("a1B2", 9)
	args := `{"input":{"name":"c1","hfToken":"` + hf + `","idempotencyKey":"k1"}}`
	err := f.svc.Record(AuditRecord{
		TokenID: "t1", TokenName: "ops", Role: Operator, Mutation: "createCluster",
		Arguments: json.RawMessage(args), OperationID: "op1", Outcome: "OK",
	})
	if err != nil {
		t.Fatal(err)
	}
	page, err := f.svc.AuditLog(AuditFilter{}, store.PageRequest{First: 10, After: "", Count: true})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("page %+v, %v", page, err)
	}
	r := page.Items[0]
	if r.ID == "" || !r.Time.Equal(f.clock.Now()) || r.OperationID != "op1" || r.TokenName != "ops" {
		t.Fatalf("record %+v", r)
	}
	want := `{"input":{"hfToken":"[REDACTED]","idempotencyKey":"k1","name":"c1"}}`
	if string(r.Arguments) != want {
		t.Fatalf("arguments %s, want %s", r.Arguments, want)
	}
}

func TestAuditLogPagesNewestFirstWithFilters(t *testing.T) {
	f := newFixture(t)
	type entry struct{ token, mutation, outcome string }
	entries := []entry{
		{"alice", "createCluster", "OK"},
		{"bob", "deleteCluster", "FORBIDDEN"},
		{"alice", "deleteCluster", "OK"},
		{"alice", "createCluster", "VALIDATION"},
		{"bob", "createCluster", "OK"},
	}
	for i, e := range entries {
		f.clock.Advance(time.Second)
		err := f.svc.Record(AuditRecord{TokenName: e.token, Mutation: e.mutation, Outcome: e.outcome, Message: string(rune('0' + i))})
		if err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		filter AuditFilter
		want   string // messages, newest first
	}{
		{"all", AuditFilter{}, "43210"},
		{"by token", AuditFilter{TokenName: "alice"}, "320"},
		{"by mutation", AuditFilter{Mutation: "deleteCluster"}, "21"},
		{"by outcome", AuditFilter{Outcome: "OK"}, "420"},
		{"combined", AuditFilter{TokenName: "alice", Mutation: "createCluster"}, "30"},
		{"nothing", AuditFilter{TokenName: "carol"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Read two at a time to exercise the cursor.
			var got strings.Builder
			after := ""
			for {
				page, err := f.svc.AuditLog(c.filter, store.PageRequest{First: 2, After: after, Count: true})
				if err != nil {
					t.Fatal(err)
				}
				if page.TotalCount != len(c.want) {
					t.Fatalf("total %d, want %d", page.TotalCount, len(c.want))
				}
				for _, r := range page.Items {
					got.WriteString(r.Message)
					after = r.ID
				}
				if !page.HasNext {
					break
				}
			}
			if got.String() != c.want {
				t.Fatalf("read %q, want %q", got.String(), c.want)
			}
		})
	}
}

func TestAuditLogRefusesBadPaging(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		first int
		after string
		field string
	}{
		{-1, "", "first"},
		{MaxAuditPage + 1, "", "first"},
		{10, "not-an-id", "after"},
	}
	for _, c := range cases {
		_, err := f.svc.AuditLog(AuditFilter{}, store.PageRequest{First: c.first, After: c.after, Count: true})
		wantCode(t, err, errs.Validation)
		if e := errs.As(err); e.Field != c.field {
			t.Errorf("first=%d after=%q: field %q, want %q", c.first, c.after, e.Field, c.field)
		}
	}
}

func TestAuditKeyOrderIsReverseIDOrder(t *testing.T) {
	f := newFixture(t)
	prevID, prevKey := "", ""
	for range 100 {
		id := f.svc.ids.NewID()
		key, err := auditKey(id)
		if err != nil {
			t.Fatal(err)
		}
		if prevID != "" && !(id > prevID && key < prevKey) {
			t.Fatalf("id %s > %s but key %s !< %s", id, prevID, key, prevKey)
		}
		prevID, prevKey = id, key
	}
}

// An audit record keeps a few KB of a request however much it sent: long
// arguments as their size and start, a refused request's as their size
// alone, a long message cut.
func TestRecordIsBoundedByWhatIsStoredNotBySent(t *testing.T) {
	f := newFixture(t)
	groups := make([]string, 20_000)
	for i := range groups {
		groups[i] = "group-" + strings.Repeat("x", 10)
	}
	big, err := json.Marshal(map[string]any{"clusterId": "c1", "instanceGroups": groups, "hfToken": "hf_" + strings.Repeat("a1B2", 9)})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []AuditRecord{
		{Mutation: "updateClusterSoftware", Role: Viewer, Arguments: big, Outcome: string(errs.Forbidden), Message: "needs OPERATOR"},
		{Mutation: "updateClusterSoftware", Role: Operator, Arguments: big, Outcome: string(errs.Validation), Message: strings.Repeat("é", 10_000)},
	} {
		if err := f.svc.Record(rec); err != nil {
			t.Fatal(err)
		}
	}
	page, err := f.svc.AuditLog(AuditFilter{}, store.PageRequest{First: 10})
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("page %+v, %v", page, err)
	}
	validation, forbidden := page.Items[0], page.Items[1] // newest first
	for _, r := range page.Items {
		stored, _ := json.Marshal(r)
		if len(stored) > MaxAuditArguments+MaxAuditMessage+1024 {
			t.Errorf("%s record is %d bytes for a %d-byte request; want a few KB", r.Outcome, len(stored), len(big))
		}
		var tr TruncatedArguments
		if err := json.Unmarshal(r.Arguments, &tr); err != nil || !tr.Truncated || tr.Size < len(big)-100 {
			t.Errorf("%s arguments %.200s: want a truncation marker with the original size", r.Outcome, r.Arguments)
		}
		if strings.Contains(string(r.Arguments), "a1B2") {
			t.Errorf("%s arguments keep the token", r.Outcome)
		}
	}
	var tr TruncatedArguments
	_ = json.Unmarshal(forbidden.Arguments, &tr)
	if tr.Head != "" {
		t.Errorf("a refused request keeps the start of its arguments %.100q; want only their size", tr.Head)
	}
	_ = json.Unmarshal(validation.Arguments, &tr)
	if !strings.HasPrefix(tr.Head, `{"clusterId":"c1"`) {
		t.Errorf("a long request keeps %.100q; want the start of its arguments", tr.Head)
	}
	if len(validation.Message) > MaxAuditMessage+3 || !strings.HasSuffix(validation.Message, "...") || !utf8.ValidString(validation.Message) {
		t.Errorf("message of %d bytes; want at most %d, cut on a character and marked", len(validation.Message), MaxAuditMessage)
	}
}
