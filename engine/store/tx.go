package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Tx is one transaction. Records are JSON values addressed by kind and id.
type Tx struct {
	s      *Store
	txn    *badger.Txn
	write  bool
	now    time.Time
	events []*Event
}

// Now is the transaction's timestamp (one per transaction).
func (tx *Tx) Now() time.Time { return tx.now }

// Get decodes the record kind/id into v, or returns ErrNotFound.
func (tx *Tx) Get(kind, id string, v any) error {
	raw, err := tx.raw(recordKey(kind, id))
	if err != nil {
		return err
	}
	return decode(raw, v)
}

// Exists reports whether the record kind/id exists.
func (tx *Tx) Exists(kind, id string) (bool, error) {
	_, err := tx.raw(recordKey(kind, id))
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (tx *Tx) raw(key []byte) ([]byte, error) {
	item, err := tx.txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

// Put stores v as the record kind/id and appends a CREATED or UPDATED event
// carrying the new value. Writing a value identical to the stored one is not
// a change and appends nothing.
func (tx *Tx) Put(kind, id string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %s: %w", kind, id, err)
	}
	key := recordKey(kind, id)
	old, err := tx.raw(key)
	action := ActionUpdated
	switch {
	case errors.Is(err, ErrNotFound):
		action = ActionCreated
	case err != nil:
		return err
	case bytes.Equal(old, raw):
		return nil
	}
	if err := tx.txn.Set(key, raw); err != nil {
		return err
	}
	return tx.emit(action, kind, id, raw)
}

// Delete removes the record kind/id and appends a DELETED event carrying
// its last value. Deleting a missing record is not an error.
func (tx *Tx) Delete(kind, id string) error {
	key := recordKey(kind, id)
	old, err := tx.raw(key)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := tx.txn.Delete(key); err != nil {
		return err
	}
	return tx.emit(ActionDeleted, kind, id, old)
}

// List calls fn for records of kind in id order, starting after the id
// after ("" = from the first), until fn returns false or an error.
func (tx *Tx) List(kind, after string, fn func(id string, raw []byte) (bool, error)) error {
	prefix := []byte(prefixRecord + kind + "/")
	it := tx.txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 64})
	defer it.Close()
	start := prefix
	if after != "" {
		start = append(recordKey(kind, after), 0)
	}
	for it.Seek(start); it.Valid(); it.Next() {
		item := it.Item()
		id := string(item.Key()[len(prefix):])
		raw, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		more, err := fn(id, raw)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// GetIndex returns the value stored under index/key, or ErrNotFound.
func (tx *Tx) GetIndex(index, key string) (string, error) {
	raw, err := tx.raw(indexKey(index, key))
	return string(raw), err
}

// PutIndex stores value under index/key. Indexes are bookkeeping (names,
// locks, idempotency keys) and append no events.
func (tx *Tx) PutIndex(index, key, value string) error {
	return tx.txn.Set(indexKey(index, key), []byte(value))
}

// DeleteIndex removes index/key.
func (tx *Tx) DeleteIndex(index, key string) error {
	return tx.txn.Delete(indexKey(index, key))
}

// ScanIndex calls fn for every key of index that starts with prefix, in key
// order, until fn returns false or an error.
func (tx *Tx) ScanIndex(index, prefix string, fn func(key, value string) (bool, error)) error {
	base := prefixIndex + index + "/"
	it := tx.txn.NewIterator(badger.IteratorOptions{Prefix: []byte(base + prefix), PrefetchValues: true})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		val, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		more, err := fn(string(item.Key()[len(base):]), string(val))
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// emit appends an event in the transaction. Update restores the sequence
// counter if the transaction does not commit.
func (tx *Tx) emit(action Action, kind, id string, payload []byte) error {
	ev := &Event{Seq: tx.s.seq + 1, Time: tx.now, Action: action, Kind: kind, ID: id, Payload: payload}
	raw, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode event: %w", err)
	}
	if err := tx.txn.Set(eventKey(ev.Seq), raw); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	tx.s.seq = ev.Seq
	tx.events = append(tx.events, ev)
	return nil
}
