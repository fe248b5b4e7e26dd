package auth

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

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
