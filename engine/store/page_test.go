package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
)

// decodes counts every counted record decoded, whoever decodes it.
var decodes atomic.Int64

// counted is a record kind that counts its own decoding, so a test sees
// what a page read cost whatever ReadPage says of itself.
type counted struct {
	ID string `json:"id"`
	N  int    `json:"n"`
}

func (c *counted) UnmarshalJSON(b []byte) error {
	decodes.Add(1)
	type plain counted
	return json.Unmarshal(b, (*plain)(c))
}

// fillPages stores n records "r000".. of kind "thing" (N = their number),
// records of a kind whose name extends it, and an index entry "grp/<id>" for
// every third record plus one whose record does not exist.
func fillPages(t testing.TB, n int) *Store {
	t.Helper()
	s := openMem(t)
	err := s.Update(func(tx *Tx) error {
		for i := range n {
			id := fmt.Sprintf("r%03d", i)
			if err := tx.Put("thing", id, counted{ID: id, N: i}); err != nil {
				return err
			}
			if err := tx.Put("things", id, counted{ID: id, N: -1}); err != nil {
				return err
			}
			if i%3 == 0 {
				if err := tx.PutIndex("by-group", "grp/"+id, ""); err != nil {
					return err
				}
			}
		}
		return tx.PutIndex("by-group", "grp/r0505", "")
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadPageWalksOnePageInKeyOrder(t *testing.T) {
	s := fillPages(t, 100)
	even := func(c *counted) bool { return c.N%2 == 0 }
	ids := func(from, to, step int) []string {
		var out []string
		for i := from; step > 0 && i <= to || step < 0 && i >= to; i += step {
			out = append(out, fmt.Sprintf("r%03d", i))
		}
		return out
	}
	cases := []struct {
		name      string
		scan      Scan
		req       PageRequest
		match     func(*counted) bool
		want      []string
		hasNext   bool
		total     int
		maxDecode int
	}{
		{"first page", Scan{Kind: "thing"}, PageRequest{First: 10}, nil, ids(0, 9, 1), true, 0, 10},
		{"after a cursor", Scan{Kind: "thing"}, PageRequest{First: 10, After: "r009"}, nil, ids(10, 19, 1), true, 0, 10},
		{"the last page", Scan{Kind: "thing"}, PageRequest{First: 10, After: "r089"}, nil, ids(90, 99, 1), false, 0, 10},
		{"past the end", Scan{Kind: "thing"}, PageRequest{First: 10, After: "r099"}, nil, nil, false, 0, 0},
		{"after a deleted record", Scan{Kind: "thing"}, PageRequest{First: 3, After: "r009x"}, nil, ids(10, 12, 1), true, 0, 3},
		{"newest first", Scan{Kind: "thing", Descending: true}, PageRequest{First: 10}, nil, ids(99, 90, -1), true, 0, 10},
		{"newest first after a cursor", Scan{Kind: "thing", Descending: true}, PageRequest{First: 10, After: "r090"}, nil, ids(89, 80, -1), true, 0, 10},
		{"newest first to the start", Scan{Kind: "thing", Descending: true}, PageRequest{First: 10, After: "r005"}, nil, ids(4, 0, -1), false, 0, 5},
		{"counted", Scan{Kind: "thing"}, PageRequest{First: 10, Count: true}, nil, ids(0, 9, 1), true, 100, 10},
		{"filtered", Scan{Kind: "thing"}, PageRequest{First: 5}, even, ids(0, 8, 2), true, 0, 11},
		{"filtered and counted", Scan{Kind: "thing", Descending: true}, PageRequest{First: 5, After: "r050", Count: true}, even, ids(48, 40, -2), true, 50, 112},
		{"through an index", Scan{Kind: "thing", Index: "by-group", Prefix: "grp/", Descending: true}, PageRequest{First: 4, Count: true}, nil, ids(99, 90, -3), true, 34, 4},
		{"through an index, filtered", Scan{Kind: "thing", Index: "by-group", Prefix: "grp/"}, PageRequest{First: 3, After: "r050"}, even, ids(54, 66, 6), true, 0, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := decodes.Load()
			var page *Page[counted]
			err := s.View(func(tx *Tx) (err error) {
				page, err = ReadPage(tx, c.scan, c.req, c.match)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range page.Items {
				got = append(got, it.ID)
			}
			if !slices.Equal(got, c.want) || page.HasNext != c.hasNext || page.Total != c.total {
				t.Fatalf("page %v hasNext %v total %d, want %v hasNext %v total %d", got, page.HasNext, page.Total, c.want, c.hasNext, c.total)
			}
			decoded := int(decodes.Load() - before)
			if decoded != page.Decoded || decoded > c.maxDecode {
				t.Fatalf("the read decoded %d records (it says %d), want at most %d", decoded, page.Decoded, c.maxDecode)
			}
		})
	}
}

// TestReadPageDoesNotDecodeEveryRecord fails if reading a page costs what
// the whole kind costs.
func TestReadPageDoesNotDecodeEveryRecord(t *testing.T) {
	s := fillPages(t, 1000)
	for _, desc := range []bool{false, true} {
		before := decodes.Load()
		err := s.View(func(tx *Tx) error {
			_, err := ReadPage[counted](tx, Scan{Kind: "thing", Descending: desc}, PageRequest{First: 20, After: "r500"}, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := decodes.Load() - before; n != 20 {
			t.Fatalf("descending %v: a page of 20 out of 1000 records decoded %d", desc, n)
		}
	}
}

func TestReadPageRefusesAnEmptyPage(t *testing.T) {
	s := fillPages(t, 1)
	err := s.View(func(tx *Tx) error {
		_, err := ReadPage[counted](tx, Scan{Kind: "thing"}, PageRequest{}, nil)
		return err
	})
	if err == nil {
		t.Fatal("a page of 0 records was read")
	}
}

// TestReadPageThroughAnOrderingIndex walks an index whose positions order
// the records differently from their ids, and a log kept inline in an
// index, from a cursor that is a position.
func TestReadPageThroughAnOrderingIndex(t *testing.T) {
	s := fillPages(t, 100)
	err := s.Update(func(tx *Tx) error {
		for i := 0; i < 100; i += 10 {
			id := fmt.Sprintf("r%03d", i)
			// Positions run against the ids: r090 first.
			if err := tx.PutIndex("by-order", fmt.Sprintf("c1/%03d!%s", 999-i, id), id); err != nil {
				return err
			}
			raw, _ := json.Marshal(counted{ID: "log" + id, N: i})
			if err := tx.PutIndex("log", fmt.Sprintf("%03d", i), string(raw)); err != nil {
				return err
			}
		}
		return tx.PutIndex("by-order", "c1/950!r0505", "r0505") // its record does not exist
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		scan    Scan
		req     PageRequest
		want    []string
		hasNext bool
		total   int
	}{
		{"in position order", Scan{Kind: "thing", Index: "by-order", Prefix: "c1/"}, PageRequest{First: 3, Count: true}, []string{"r090", "r080", "r070"}, true, 10},
		{"after a position", Scan{Kind: "thing", Index: "by-order", Prefix: "c1/"}, PageRequest{First: 3, After: "919!r080"}, []string{"r070", "r060", "r050"}, true, 0},
		{"past an entry whose record is gone", Scan{Kind: "thing", Index: "by-order", Prefix: "c1/"}, PageRequest{First: 1, After: "949!r050"}, []string{"r040"}, true, 0},
		{"after the position of a record since removed", Scan{Kind: "thing", Index: "by-order", Prefix: "c1/"}, PageRequest{First: 2, After: "975!r024"}, []string{"r020", "r010"}, true, 0},
		{"inline", Scan{Kind: "log", Index: "log", Inline: true}, PageRequest{First: 2, After: "030", Count: true}, []string{"logr040", "logr050"}, true, 10},
		{"inline, newest first", Scan{Kind: "log", Index: "log", Inline: true, Descending: true}, PageRequest{First: 2, After: "010"}, []string{"logr000"}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var page *Page[counted]
			err := s.View(func(tx *Tx) (err error) {
				page, err = ReadPage[counted](tx, c.scan, c.req, nil)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range page.Items {
				got = append(got, it.ID)
			}
			if !slices.Equal(got, c.want) || page.HasNext != c.hasNext || page.Total != c.total {
				t.Fatalf("page %v hasNext %v total %d, want %v hasNext %v total %d", got, page.HasNext, page.Total, c.want, c.hasNext, c.total)
			}
		})
	}
}
