package store

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"github.com/dgraph-io/badger/v4"
)

// PageRequest asks for one page of a connection.
type PageRequest struct {
	// First is the page size, at least 1.
	First int
	// After is the position of the last record of the previous page (""
	// = from the start): its id, or its index entry's key past the scan's
	// prefix when the scan walks an index. The page begins at the first
	// record past that position in the page's order, whether or not the
	// record still exists or matches.
	After string
	// Count asks for Page.Total. It costs a pass over every record of the
	// kind: over keys alone when nothing filters, decoding each otherwise.
	Count bool
}

// Page is one page of records.
type Page[T any] struct {
	Items   []*T
	HasNext bool
	// Total is how many records match on all pages, when the request
	// asked for it.
	Total int
	// Decoded is how many records the read decoded: what the page cost.
	Decoded int
}

// Scan names the records a page walks and their order.
type Scan struct {
	// Kind is the kind of the records.
	Kind string
	// Index, when set, walks the entries Index/Prefix<position> instead of
	// every record of Kind, in position order. An entry's value is the id
	// of its record of Kind, or empty when the position is the id itself;
	// an entry whose record is gone is skipped.
	Index, Prefix string
	// Inline, with Index, says the entries hold the records themselves
	// (a log kept in an index): nothing of Kind is read.
	Inline bool
	// Descending walks from the greatest id down: newest first for ULIDs.
	Descending bool
}

// ReadPage reads one page of the records s walks, in key order, decoding
// each into a T and keeping those match accepts (nil = all). It decodes no
// record before the cursor and, when nothing filters, none past the page:
// a page costs what a page costs, not what the kind holds.
func ReadPage[T any](tx *Tx, s Scan, req PageRequest, match func(*T) bool) (*Page[T], error) {
	if req.First < 1 {
		return nil, fmt.Errorf("read page of %s: page size %d, ask for at least 1", s.Kind, req.First)
	}
	page := &Page[T]{Items: make([]*T, 0, min(req.First, 64))}
	decodeOne := func(id string, raw []byte) (*T, error) {
		page.Decoded++
		v := new(T)
		if err := decode(raw, v); err != nil {
			return nil, fmt.Errorf("%s %s: %w", s.Kind, id, err)
		}
		return v, nil
	}
	err := s.walk(tx, req.After, func(id string, item *badger.Item) (bool, error) {
		full := len(page.Items) == req.First
		if full && match == nil && s.keysSuffice() {
			page.HasNext = true // a record follows: no need to read it
			return false, nil
		}
		raw, err := s.value(tx, id, item)
		if err != nil {
			return false, err
		}
		if raw == nil {
			return true, nil // an index entry whose record is gone
		}
		if full && match == nil {
			page.HasNext = true
			return false, nil
		}
		v, err := decodeOne(id, raw)
		switch {
		case err != nil:
			return false, err
		case match != nil && !match(v):
			return true, nil
		case full:
			page.HasNext = true
			return false, nil
		}
		page.Items = append(page.Items, v)
		return true, nil
	})
	if err != nil || !req.Count {
		return page, err
	}
	err = s.walk(tx, "", func(id string, item *badger.Item) (bool, error) {
		if match == nil && s.keysSuffice() {
			page.Total++
			return true, nil
		}
		raw, err := s.value(tx, id, item)
		if err != nil {
			return false, err
		}
		if raw == nil {
			return true, nil // an index entry whose record is gone
		}
		if match == nil {
			page.Total++
			return true, nil
		}
		v, err := decodeOne(id, raw)
		if err != nil {
			return false, err
		}
		if match(v) {
			page.Total++
		}
		return true, nil
	})
	return page, err
}

// keysSuffice reports whether a key alone says a record is there: true
// for records and inline entries, false for an index whose entry may
// outlive its record.
func (s Scan) keysSuffice() bool { return s.Index == "" || s.Inline }

// walk calls fn with the position and the Badger item of every key s
// walks past after, in s's order, until fn returns false or an error.
// Values are not read ahead: fn reads the ones it needs.
func (s Scan) walk(tx *Tx, after string, fn func(id string, item *badger.Item) (bool, error)) error {
	prefix := []byte(prefixRecord + s.Kind + "/")
	if s.Index != "" {
		prefix = indexKey(s.Index, s.Prefix)
	}
	it := tx.txn.NewIterator(badger.IteratorOptions{Prefix: prefix, Reverse: s.Descending})
	defer it.Close()
	var start []byte
	switch {
	case after == "" && s.Descending:
		start = append(bytes.Clone(prefix), 0xff) // ids are text: 0xff sorts after every one
	case after == "":
		start = prefix
	case s.Descending:
		start = append(bytes.Clone(prefix), after...)
	default:
		start = append(append(bytes.Clone(prefix), after...), 0)
	}
	it.Seek(start)
	if s.Descending && after != "" && it.Valid() && bytes.Equal(it.Item().Key(), start) {
		it.Next() // a descending Seek lands on the cursor itself when it exists
	}
	for ; it.Valid(); it.Next() {
		item := it.Item()
		more, err := fn(string(item.Key()[len(prefix):]), item)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// value returns the stored record that item, at position pos, stands
// for, or nil when an index entry's record is gone.
func (s Scan) value(tx *Tx, pos string, item *badger.Item) ([]byte, error) {
	if s.keysSuffice() {
		return item.ValueCopy(nil)
	}
	id, err := item.ValueCopy(nil)
	if err != nil {
		return nil, err
	}
	if len(id) == 0 {
		id = []byte(pos)
	}
	raw, err := tx.raw(recordKey(s.Kind, string(id)))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return raw, err
}

// Select reads every record s walks that match accepts (nil = all), in
// one transaction: for the few records of one cluster, never for a kind
// whole.
func Select[T any](st *Store, s Scan, match func(*T) bool) ([]*T, error) {
	var out []*T
	err := st.View(func(tx *Tx) error {
		page, err := ReadPage(tx, s, PageRequest{First: math.MaxInt32}, match)
		if err != nil {
			return err
		}
		out = page.Items
		return nil
	})
	return out, err
}
