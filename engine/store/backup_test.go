package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// padded is a record big enough that a few hundred of them make a store
// section of several chunks.
type padded struct {
	N   int    `json:"n"`
	Pad string `json:"pad"`
}

// writeBatch commits batch i: a record, an operation and an index entry
// (two events), each derived from i alone.
func writeBatch(s *Store, i int) error {
	id := fmt.Sprintf("%06d", i)
	return s.Update(func(tx *Tx) error {
		if err := tx.Put("thing", id, padded{N: i, Pad: strings.Repeat(string(rune('a'+i%26)), 2000)}); err != nil {
			return err
		}
		if err := tx.Put("operation", "op-"+id, rec{Name: "create " + id, N: i}); err != nil {
			return err
		}
		return tx.PutIndex("thing-name", "name-"+id, id)
	})
}

func openDir(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// contents is everything a store holds that a client can read.
type contents struct {
	records map[string]string // kind/id -> JSON
	index   map[string]string
	events  []*Event
	seq     uint64
}

func readContents(t testing.TB, s *Store, upTo uint64) contents {
	t.Helper()
	c := contents{records: map[string]string{}, index: map[string]string{}, seq: s.LastSequence()}
	err := s.View(func(tx *Tx) error {
		for _, kind := range []string{"thing", "operation"} {
			if err := tx.List(kind, "", func(id string, raw []byte) (bool, error) {
				c.records[kind+"/"+id] = string(raw)
				return true, nil
			}); err != nil {
				return err
			}
		}
		return tx.ScanIndex("thing-name", "", func(k, v string) (bool, error) {
			c.index[k] = v
			return true, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.History(0, upTo, Filter{}, func(ev *Event) (bool, error) {
		c.events = append(c.events, ev)
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	return c
}

// pausingWriter holds the backup at its second write, the first after the
// header, until atSecond returns.
type pausingWriter struct {
	bytes.Buffer
	writes   int
	atSecond func()
}

func (w *pausingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes == 2 {
		w.atSecond()
	}
	return w.Buffer.Write(p)
}

func TestBackupOfALiveStoreIsOneSnapshot(t *testing.T) {
	root := t.TempDir()
	s := openDir(t, filepath.Join(root, "live"))
	const first = 300
	for i := range first {
		if err := writeBatch(s, i); err != nil {
			t.Fatal(err)
		}
	}
	before := s.LastSequence()

	// A writer commits batches until the backup is done.
	ctx, stop := context.WithCancel(t.Context())
	committed := make(chan error, 1)
	progress := make(chan struct{}, 1)
	go func() {
		defer close(committed)
		for i := first; ctx.Err() == nil; i++ {
			if err := writeBatch(s, i); err != nil {
				committed <- err
				return
			}
			select {
			case progress <- struct{}{}:
			default:
			}
		}
	}()
	// By the backup's second write its snapshot is taken: what commits
	// from then on must not be in it. Wait until the writer has committed
	// more, so writes surely overlap the backup.
	var mark uint64
	out := &pausingWriter{atSecond: func() {
		mark = s.LastSequence()
		deadline := time.After(20 * time.Second)
		for s.LastSequence() < mark+20 {
			select {
			case <-progress:
			case <-deadline:
				t.Error("the writer committed nothing while the backup ran")
				return
			}
		}
	}}
	h, err := s.Backup(t.Context(), out, BackupOptions{BinaryVersion: "test"})
	stop()
	if werr := <-committed; werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if h.SchemaVersion != SchemaVersion || h.BinaryVersion != "test" || h.Format != BackupFormat {
		t.Errorf("header %+v", h)
	}
	if s.LastSequence() <= mark {
		t.Fatalf("no write committed after the snapshot (sequence %d, mark %d)", s.LastSequence(), mark)
	}

	dst := filepath.Join(root, "restored")
	if _, err := Restore(bytes.NewReader(out.Bytes()), dst); err != nil {
		t.Fatal(err)
	}
	restored := openDir(t, dst)
	got := readContents(t, restored, restored.LastSequence())
	seq := got.seq
	if seq < before || seq > mark {
		t.Fatalf("the restored store ends at event %d, outside the backup's run (%d to %d)", seq, before, mark)
	}
	// One snapshot: the batches whose events it holds, whole, and no more.
	want := readContents(t, s, seq)
	batches := int(seq / 2)
	for key := range want.records {
		if batchOf(t, key[strings.LastIndex(key, "/")+1:]) >= batches {
			delete(want.records, key)
		}
	}
	for key := range want.index {
		if batchOf(t, key) >= batches {
			delete(want.index, key)
		}
	}
	if seq%2 != 0 || len(got.records) != 2*batches || len(got.index) != batches || len(got.events) != int(seq) {
		t.Fatalf("restored %d records, %d index entries and %d events at sequence %d: not the %d whole batches of one snapshot", len(got.records), len(got.index), len(got.events), seq, batches)
	}
	for key, v := range want.records {
		if got.records[key] != v {
			t.Fatalf("record %s restored as %.40q, want %.40q", key, got.records[key], v)
		}
	}
	for key, v := range want.index {
		if got.index[key] != v {
			t.Fatalf("index entry %s restored as %q, want %q", key, got.index[key], v)
		}
	}
	for i, ev := range want.events {
		g := got.events[i]
		if g.Seq != ev.Seq || !g.Time.Equal(ev.Time) || g.Action != ev.Action || g.Kind != ev.Kind || g.ID != ev.ID || !bytes.Equal(g.Payload, ev.Payload) {
			t.Fatalf("event %d restored as %+v, want %+v", ev.Seq, g, ev)
		}
	}
	// The restored store goes on from where the snapshot ended.
	if err := writeBatch(restored, 1_000_000); err != nil {
		t.Fatal(err)
	}
	if restored.LastSequence() != seq+2 {
		t.Errorf("the next events are %d, want %d and %d", restored.LastSequence(), seq+1, seq+2)
	}
}

// batchOf is the batch number in a key writeBatch made.
func batchOf(t *testing.T, key string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(key, "op-"), "name-"))
	if err != nil {
		t.Fatalf("key %q is not one writeBatch makes", key)
	}
	return n
}

// backupOf writes records, operations and events to a store in dir, with a
// world file beside it, closes it and backs the directory up.
func backupOf(t *testing.T, dir string) []byte {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := writeBatch(s, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Update(func(tx *Tx) error { return tx.Delete("thing", "000003") }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "world.json"), []byte(`{"clusters":["a"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := BackupDir(t.Context(), dir, &out, BackupOptions{BinaryVersion: "v1.0.0", Files: []string{"world.json", "absent.json"}}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestBackupDirRestoresRecordsEventsAndFiles(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	backup := backupOf(t, src)
	h, err := CheckBackup(bytes.NewReader(backup))
	if err != nil || h.BinaryVersion != "v1.0.0" || h.SchemaVersion != SchemaVersion {
		t.Fatalf("CheckBackup: %+v, %v", h, err)
	}

	dst := filepath.Join(root, "dst")
	if err := os.Mkdir(dst, 0o700); err != nil { // an empty directory will do
		t.Fatal(err)
	}
	if _, err := Restore(bytes.NewReader(backup), dst); err != nil {
		t.Fatal(err)
	}
	world, err := os.ReadFile(filepath.Join(dst, "world.json"))
	if err != nil || string(world) != `{"clusters":["a"]}` {
		t.Errorf("world file restored as %q, %v", world, err)
	}
	if _, err := os.Stat(filepath.Join(dst, "absent.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file the source lacked was restored: %v", err)
	}
	restored := openDir(t, dst)
	source := openDir(t, src)
	got, want := readContents(t, restored, 1000), readContents(t, source, 1000)
	if got.seq != want.seq || len(got.events) != len(want.events) || len(got.records) != len(want.records) || len(got.index) != len(want.index) {
		t.Fatalf("restored %d records, %d index entries, %d events to sequence %d; the source has %d, %d, %d to %d",
			len(got.records), len(got.index), len(got.events), got.seq, len(want.records), len(want.index), len(want.events), want.seq)
	}
	for key, v := range want.records {
		if got.records[key] != v {
			t.Errorf("record %s restored as %.40q, want %.40q", key, got.records[key], v)
		}
	}
	if _, ok := got.records["thing/000003"]; ok || got.events[len(got.events)-1].Action != ActionDeleted {
		t.Error("the deleted record came back, or its DELETED event was lost")
	}
	leftovers, _ := filepath.Glob(filepath.Join(root, ".*restore-*"))
	if len(leftovers) > 0 {
		t.Errorf("restore left %v behind", leftovers)
	}
}

func TestBackupDirOfAHeldDirectoryIsInUse(t *testing.T) {
	dir := t.TempDir()
	openDir(t, dir)
	var out bytes.Buffer
	_, err := BackupDir(t.Context(), dir, &out, BackupOptions{})
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("BackupDir of an open store: %v, want ErrInUse", err)
	}
	if out.Len() != 0 {
		t.Errorf("wrote %d bytes before refusing", out.Len())
	}
	if _, err := BackupDir(t.Context(), t.TempDir(), &out, BackupOptions{}); err == nil || !strings.Contains(err.Error(), "no store") {
		t.Errorf("BackupDir of an empty directory: %v", err)
	}
}

// craft builds a backup with header h and the given chunks.
func craft(h BackupHeader, chunks ...[]byte) []byte {
	var out bytes.Buffer
	bw := &backupWriter{w: &out, sum: sha256.New()}
	bw.header(h)
	for _, c := range chunks {
		bw.chunk(c[0], c[1:])
	}
	bw.end()
	return out.Bytes()
}

func TestRestoreRefusesWhatIsNotAWholeBackup(t *testing.T) {
	root := t.TempDir()
	backup := backupOf(t, filepath.Join(root, "src"))
	hugeFrame := binary.LittleEndian.AppendUint64([]byte{chunkStore}, 1<<40)
	good := BackupHeader{Format: BackupFormat, SchemaVersion: SchemaVersion, BinaryVersion: "test"}
	newerSchema, newerFormat := good, good
	newerSchema.SchemaVersion = SchemaVersion + 1
	newerFormat.Format = BackupFormat + 1
	flipped := bytes.Clone(backup)
	flipped[len(flipped)/2] ^= 0x40
	hugeHeader := append([]byte(backupMagic), 0xff, 0xff, 0xff, 0xff)
	fileName, fileData := append([]byte{chunkFileName}, "world.json"...), append([]byte{chunkFileData}, "{}"...)

	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"empty", nil, "not an instantstart backup"},
		{"a zip file", []byte("PK\x03\x04 not a backup at all"), "not an instantstart backup"},
		{"cut in the magic", backup[:5], "truncated"},
		{"cut in the header", backup[:30], "truncated"},
		{"cut after the header", backup[:len(backupMagic)+4+int(binary.BigEndian.Uint32(backup[len(backupMagic):]))], "truncated"},
		{"cut in the store", backup[:len(backup)/2], "truncated"},
		{"cut before the end marker", backup[:len(backup)-5-sha256.Size], "truncated"},
		{"cut in the end marker", backup[:len(backup)-1], "truncated"},
		{"a changed byte", flipped, "corrupt"},
		{"bytes after the end", append(bytes.Clone(backup), 0), "after its end marker"},
		{"a header too large", hugeHeader, "header of"},
		{"a frame too large", craft(good, hugeFrame), "store frame"},
		{"a file name with a slash", craft(good, append([]byte{chunkFileName}, "../x"...)), "file name"},
		{"a file twice", craft(good, fileName, fileData, fileName, fileData), "the file world.json twice"},
		{"a newer schema", craft(newerSchema), fmt.Sprintf("schema version %d", SchemaVersion+1)},
		{"a newer format", craft(newerFormat), "newer instantstart"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := filepath.Join(root, fmt.Sprint("dst", i))
			// CheckBackup refuses what Restore refuses, but for a whole
			// backup of a newer schema, which only this binary cannot load.
			_, err := CheckBackup(bytes.NewReader(tt.input))
			if whole := tt.name == "a newer schema"; whole && err != nil {
				t.Errorf("CheckBackup of a whole backup: %v", err)
			} else if !whole && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("CheckBackup: %v, want an error saying %q", err, tt.want)
			}
			_, err = Restore(bytes.NewReader(tt.input), dst)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Restore: %v, want an error saying %q", err, tt.want)
			}
			if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused restore left %s: %v", dst, err)
			}
			if leftovers, _ := filepath.Glob(filepath.Join(root, ".*restore-*")); len(leftovers) > 0 {
				t.Errorf("a refused restore left %v", leftovers)
			}
		})
	}
	if _, err := Restore(bytes.NewReader(craft(newerSchema)), filepath.Join(root, "n")); !strings.Contains(err.Error(), "newer instantstart") {
		t.Errorf("a newer schema's refusal says %q; it must say to use a newer instantstart", err)
	}
}

func TestRestoreNeverOverwrites(t *testing.T) {
	root := t.TempDir()
	backup := backupOf(t, filepath.Join(root, "src"))
	tests := []struct {
		name string
		dir  string
		want string
	}{
		{"a store", filepath.Join(root, "src"), "already holds a store"},
		{"other files", func() string {
			d := filepath.Join(root, "notes")
			os.MkdirAll(d, 0o700)
			os.WriteFile(filepath.Join(d, "todo.txt"), []byte("keep me"), 0o600)
			return d
		}(), "already holds files (todo.txt)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := os.ReadDir(tt.dir)
			_, err := Restore(bytes.NewReader(backup), tt.dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "move the old one away") {
				t.Fatalf("Restore into %s: %v, want a refusal saying %q and what to do", tt.dir, err, tt.want)
			}
			after, _ := os.ReadDir(tt.dir)
			if len(after) != len(before) {
				t.Errorf("the refused restore changed %s: %d entries, then %d", tt.dir, len(before), len(after))
			}
		})
	}
	notes, err := os.ReadFile(filepath.Join(root, "notes", "todo.txt"))
	if err != nil || string(notes) != "keep me" {
		t.Errorf("the file in the refused directory is now %q, %v", notes, err)
	}
}
