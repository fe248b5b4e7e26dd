package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// The store's layout (its key prefixes and what each holds) has a version,
// kept under keySchemaVersion. Open stamps a new store with SchemaVersion,
// migrates an older one step by step, and refuses a newer one, which this
// binary would misread.

// SchemaVersion is the newest layout of the store this binary knows. A
// store without the version key is version 0: the layout of the releases
// before versions were kept, which is version 1's without the key.
const SchemaVersion = 1

// keySchemaVersion holds the store's schema version (big-endian).
var keySchemaVersion = []byte("m/schema-version")

// migration is one step of the schema: it moves a store from the version
// before it to its own.
type migration struct {
	// name says what the step does, for its errors.
	name string
	// apply changes the layout within txn; the new version is stamped
	// after it in the same transaction.
	apply func(txn *badger.Txn) error
}

// migrations[v] moves a store from version v to v+1, so len(migrations) is
// SchemaVersion (a test checks).
var migrations = []migration{
	// Version 0 has the same records, indexes and events as version 1: the
	// step is the stamp alone.
	{name: "stamp the schema version", apply: func(*badger.Txn) error { return nil }},
}

// migrate brings the store in db to the version of the last of steps. Every
// step it lacks runs in one transaction with the new stamp, so a step that
// fails, or a crash, leaves the store exactly as it was (still readable by
// the release that wrote it) and the next Open runs the steps again.
func migrate(db *badger.DB, dir string, steps []migration) error {
	target := uint64(len(steps))
	err := db.Update(func(txn *badger.Txn) error {
		v, found, err := metaCounter(txn, keySchemaVersion)
		if err != nil {
			return fmt.Errorf("read the schema version of %s: %w", storeName(dir), err)
		}
		if !found && isEmpty(txn) {
			return setCounter(txn, keySchemaVersion, target)
		}
		if v > target {
			return fmt.Errorf("%s has schema version %d, newer than this instantstart knows (up to %d): run a newer instantstart, or restore a backup made by this version into an empty directory", storeName(dir), v, target)
		}
		if v == target {
			return nil
		}
		for i := v; i < target; i++ {
			if err := steps[i].apply(txn); err != nil {
				return fmt.Errorf("migrate %s from schema version %d to %d (%s): %w; the store is unchanged, at version %d", storeName(dir), i, i+1, steps[i].name, err, v)
			}
		}
		return setCounter(txn, keySchemaVersion, target)
	})
	if errors.Is(err, badger.ErrTxnTooBig) {
		return fmt.Errorf("migrate %s to schema version %d: the migration is too large for one transaction (%w); the store is unchanged", storeName(dir), target, err)
	}
	return err
}

// schemaVersion reads the version of the store txn sees: 0 when it has no
// version key.
func schemaVersion(txn *badger.Txn) (uint64, error) {
	v, _, err := metaCounter(txn, keySchemaVersion)
	return v, err
}

// isEmpty reports whether txn sees no key at all: a new store.
func isEmpty(txn *badger.Txn) bool {
	it := txn.NewIterator(badger.IteratorOptions{})
	defer it.Close()
	it.Rewind()
	return !it.Valid()
}

func setCounter(txn *badger.Txn, key []byte, n uint64) error {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return txn.Set(key, b[:])
}

// storeName names the store in dir for messages.
func storeName(dir string) string {
	if dir == "" {
		return "the in-memory store"
	}
	return "the store in " + dir
}
