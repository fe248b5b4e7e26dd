package store

import (
	"testing"
	"time"
)

type stamped struct {
	N       int       `json:"n"`
	Updated time.Time `json:"updated"`
}

// TestPutIfChangedWritesOnlyChanges: the same record with another time
// writes nothing; a changed one is written, stamped with the
// transaction's time.
func TestPutIfChangedWritesOnlyChanges(t *testing.T) {
	s := openMem(t)
	stamp := func(r *stamped) *time.Time { return &r.Updated }
	put := func(n int, at time.Time) {
		t.Helper()
		r := &stamped{N: n, Updated: at}
		if err := s.Update(func(tx *Tx) error { return PutIfChanged(tx, "thing", "a", r, stamp) }); err != nil {
			t.Fatal(err)
		}
	}
	put(1, time.Time{})
	first := s.LastSequence()
	put(1, time.Now().Add(time.Hour))
	if s.LastSequence() != first {
		t.Fatal("an unchanged record was written")
	}
	put(2, time.Time{})
	if s.LastSequence() == first {
		t.Fatal("a changed record was not written")
	}
	var got stamped
	if err := s.View(func(tx *Tx) error { return tx.Get("thing", "a", &got) }); err != nil {
		t.Fatal(err)
	}
	if got.N != 2 || got.Updated.IsZero() {
		t.Fatalf("stored %+v", got)
	}
}
