package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// rawVersion reads the schema version key of the closed store in dir with
// Badger alone; found is false when there is none.
func rawVersion(t *testing.T, dir string) (v uint64, found bool) {
	t.Helper()
	withRaw(t, dir, func(txn *badger.Txn) error {
		var err error
		v, found, err = metaCounter(txn, keySchemaVersion)
		return err
	})
	return v, found
}

// withRaw runs fn in a read-write transaction of the closed store in dir,
// opened with Badger alone.
func withRaw(t *testing.T, dir string, fn func(txn *badger.Txn) error) {
	t.Helper()
	db, err := badger.Open(badgerOptions(dir, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// previousRelease writes a store as the release before schema versions
// wrote it: today's layout without the version key.
func previousRelease(t *testing.T, dir string) contents {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if err := writeBatch(s, i); err != nil {
			t.Fatal(err)
		}
	}
	c := readContents(t, s, s.LastSequence())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	withRaw(t, dir, func(txn *badger.Txn) error { return txn.Delete(keySchemaVersion) })
	if _, found := rawVersion(t, dir); found {
		t.Fatal("the version key is still there")
	}
	return c
}

func TestMigrationsReachSchemaVersion(t *testing.T) {
	if len(migrations) != SchemaVersion {
		t.Fatalf("%d migrations for schema version %d: add the step that reaches it, or raise SchemaVersion", len(migrations), SchemaVersion)
	}
}

func TestANewStoreIsStamped(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir)
	s.Close()
	if v, found := rawVersion(t, dir); !found || v != SchemaVersion {
		t.Fatalf("a new store has version %d (found %v), want %d", v, found, SchemaVersion)
	}
}

func TestAStoreOfThePreviousReleaseIsMigrated(t *testing.T) {
	dir := t.TempDir()
	want := previousRelease(t, dir)

	s := openDir(t, dir)
	got := readContents(t, s, s.LastSequence())
	if got.seq != want.seq || len(got.records) != len(want.records) || len(got.index) != len(want.index) || len(got.events) != len(want.events) {
		t.Fatalf("after migrating: %d records, %d index entries, %d events to %d; before: %d, %d, %d to %d",
			len(got.records), len(got.index), len(got.events), got.seq, len(want.records), len(want.index), len(want.events), want.seq)
	}
	for key, v := range want.records {
		if got.records[key] != v {
			t.Fatalf("record %s is %.40q after migrating, was %.40q", key, got.records[key], v)
		}
	}
	for i, ev := range want.events {
		if g := got.events[i]; g.Seq != ev.Seq || g.ID != ev.ID || string(g.Payload) != string(ev.Payload) {
			t.Fatalf("event %d is %d %s after migrating, was %d %s", i, g.Seq, g.ID, ev.Seq, ev.ID)
		}
	}
	s.Close()
	if v, found := rawVersion(t, dir); !found || v != SchemaVersion {
		t.Fatalf("the migrated store has version %d (found %v), want %d", v, found, SchemaVersion)
	}
}

func TestANewerStoreIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir)
	s.Close()
	withRaw(t, dir, func(txn *badger.Txn) error { return setCounter(txn, keySchemaVersion, SchemaVersion+1) })

	_, err := Open(dir, Options{})
	if err == nil {
		t.Fatal("a store of a newer schema opened")
	}
	for _, want := range []string{fmt.Sprintf("schema version %d", SchemaVersion+1), fmt.Sprintf("up to %d", SchemaVersion), "newer instantstart", "restore a backup"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	if v, _ := rawVersion(t, dir); v != SchemaVersion+1 {
		t.Errorf("the refused store's version is now %d", v)
	}
}

func TestAFailedMigrationLeavesTheStoreAsItWas(t *testing.T) {
	dir := t.TempDir()
	want := previousRelease(t, dir)
	boom := errors.New("disk on fire")
	steps := []migration{
		migrations[0],
		{name: "index the things by size", apply: func(txn *badger.Txn) error {
			if err := txn.Set(indexKey("thing-size", "2000"), []byte("000001")); err != nil {
				return err
			}
			if err := txn.Delete(recordKey("thing", "000001")); err != nil {
				return err
			}
			return boom
		}},
	}
	_, err := Open(dir, Options{migrations: steps})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "index the things by size") || !strings.Contains(err.Error(), "unchanged, at version 0") {
		t.Fatalf("Open with a failing step: %v", err)
	}
	if v, found := rawVersion(t, dir); found {
		t.Fatalf("the failed migration left version %d", v)
	}
	var sizeIndexed bool
	withRaw(t, dir, func(txn *badger.Txn) error {
		_, err := txn.Get(indexKey("thing-size", "2000"))
		sizeIndexed = err == nil
		return nil
	})
	if sizeIndexed {
		t.Error("the failed step's write was kept")
	}

	// The release that wrote the store still reads all of it, and this one
	// migrates it on the next try.
	s := openDir(t, dir)
	got := readContents(t, s, s.LastSequence())
	if len(got.records) != len(want.records) || got.records["thing/000001"] != want.records["thing/000001"] || len(got.events) != len(want.events) {
		t.Fatalf("after the failed migration: %d records (thing/000001 %.20q), %d events; want %d, %d", len(got.records), got.records["thing/000001"], len(got.events), len(want.records), len(want.events))
	}
	s.Close()
	if v, _ := rawVersion(t, dir); v != SchemaVersion {
		t.Errorf("the retried migration reached version %d, want %d", v, SchemaVersion)
	}
}

func TestARestoredOlderBackupIsMigratedOnOpen(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "old")
	want := previousRelease(t, src)
	dst := filepath.Join(root, "restored")
	var buf strings.Builder
	h, err := BackupDir(t.Context(), src, &buf, BackupOptions{BinaryVersion: "v0.9.0"})
	if err != nil {
		t.Fatal(err)
	}
	if h.SchemaVersion != 0 {
		t.Fatalf("the backup of a version 0 store says version %d", h.SchemaVersion)
	}
	if _, err := Restore(strings.NewReader(buf.String()), dst); err != nil {
		t.Fatal(err)
	}
	s := openDir(t, dst)
	if got := readContents(t, s, s.LastSequence()); len(got.records) != len(want.records) || len(got.events) != len(want.events) {
		t.Fatalf("restored %d records and %d events, want %d and %d", len(got.records), len(got.events), len(want.records), len(want.events))
	}
	s.Close()
	if v, _ := rawVersion(t, dst); v != SchemaVersion {
		t.Errorf("the restored store has version %d after opening, want %d", v, SchemaVersion)
	}
}
