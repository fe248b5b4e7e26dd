package store

import (
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
)

type lookupRecord struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func TestLookupFindsTheRecordOrNamesTheField(t *testing.T) {
	s := openMem(t)
	if err := s.Update(func(tx *Tx) error {
		if err := tx.Put("thing", "t1", &lookupRecord{ID: "t1", Name: "one"}); err != nil {
			return err
		}
		return tx.PutIndex("thing-name", "c1/one", "t1")
	}); err != nil {
		t.Fatal(err)
	}
	missing := Missing{Noun: "thing", List: "list the cluster's things"}
	got, err := Lookup[lookupRecord](s, "thing", "t1", "id", missing)
	if err != nil || got.Name != "one" {
		t.Fatalf("Lookup = %+v, %v; want thing one", got, err)
	}
	long := strings.Repeat("x", 500)
	_, err = Lookup[lookupRecord](s, "thing", long, "input.thingId", missing)
	e := errs.As(err)
	if e.Code != errs.NotFound || e.Field != "input.thingId" {
		t.Fatalf("missing record: %v (%+v); want NOT_FOUND on input.thingId", err, e)
	}
	if want := `thing "` + strings.Repeat("x", 100) + `..." does not exist; list the cluster's things to find its id`; e.Message != want {
		t.Fatalf("message %q; want %q (the id clipped)", e.Message, want)
	}

	byName, err := Indexed[lookupRecord](s, "thing-name", "c1/one", "thing")
	if err != nil || byName == nil || byName.ID != "t1" {
		t.Fatalf("Indexed = %+v, %v; want t1", byName, err)
	}
	none, err := Indexed[lookupRecord](s, "thing-name", "c1/two", "thing")
	if err != nil || none != nil {
		t.Fatalf("Indexed of a key not in the index = %+v, %v; want nil, nil", none, err)
	}
}
