package store

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// A backup is one stream: a header of ours, then the store as Badger's
// backup stream writes it (DB.Load reads it back), then files of the data
// directory (the simulator's world), then an end marker with a checksum.
//
//	magic   "instantstart backup\n"
//	header  uint32 length (big-endian, at most maxHeaderBytes), then that
//	        many bytes of JSON: BackupHeader
//	chunks  each a kind byte, a uint32 length (big-endian, at most
//	        maxChunkBytes) and that many bytes of payload:
//	  's'   the next bytes of the store's Badger backup stream
//	  'f'   a file of the data directory follows: its name
//	  'd'   the next bytes of that file
//	  'e'   the end: the SHA-256 of every byte before this payload; nothing
//	        may follow it
//
// The store's chunks come first, then each file's name and data chunks. A
// stream cut short lacks the end marker, so it is refused however it was
// cut; a changed byte fails the checksum.

// BackupFormat is the version of the layout above.
const BackupFormat = 1

const backupMagic = "instantstart backup\n"

// Bounds of what a backup may hold, so that reading one never allocates
// past them whatever its bytes say.
const (
	maxHeaderBytes       = 64 << 10
	maxChunkBytes        = 1 << 20
	maxBinaryVersionSize = 256
	maxFileNameBytes     = 255
	maxFiles             = 16
	maxFileBytes         = 1 << 30
	// streamBatchBytes caps a batch of Badger's stream (its MaxSize, a
	// soft limit that one more producer batch of 16 MiB may pass), and so
	// a frame of the store section; maxFrameBytes refuses a frame length
	// no backup of ours writes before Load allocates for it.
	streamBatchBytes = 16 << 20
	maxFrameBytes    = 256 << 20
	// loadPendingWrites bounds the batches Load has in flight (each at
	// most Badger's batch size, a few MiB here).
	loadPendingWrites = 8
)

const (
	chunkStore    = 's'
	chunkFileName = 'f'
	chunkFileData = 'd'
	chunkEnd      = 'e'
)

// BackupHeader opens a backup: what wrote it and when.
type BackupHeader struct {
	// Format is BackupFormat of the writer.
	Format int `json:"format"`
	// SchemaVersion is the store's schema version (0 for a store of the
	// releases before versions were kept).
	SchemaVersion int `json:"schemaVersion"`
	// BinaryVersion is the version of the instantstart that wrote it.
	BinaryVersion string `json:"binaryVersion"`
	// CreatedAt is when the backup was made.
	CreatedAt time.Time `json:"createdAt"`
}

// BackupOptions say what a backup holds besides the store.
type BackupOptions struct {
	// BinaryVersion is the version of the program making the backup, for
	// the header.
	BinaryVersion string
	// Files are files of the data directory, by name, written after the
	// store (the simulator's world); one that does not exist is left out.
	// They are read after the store's snapshot, so they are at least as
	// new as it.
	Files []string
}

// Backup writes a backup of the store to w: one snapshot of it, however
// many writes go on meanwhile, then opts.Files from the data directory. It
// stops with ctx's error when ctx ends.
func (s *Store) Backup(ctx context.Context, w io.Writer, opts BackupOptions) (BackupHeader, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return BackupHeader{}, ErrClosed
	}
	if s.dir == "" && len(opts.Files) > 0 {
		return BackupHeader{}, errors.New("an in-memory store has no data directory to back files up from")
	}
	return backupDB(ctx, s.db, s.dir, w, opts, s.clock())
}

// BackupDir writes a backup of the store in dir, which no process holds,
// to w. It returns an error wrapping ErrInUse when a process holds dir (a
// running server, which serves backups itself).
func BackupDir(ctx context.Context, dir string, w io.Writer, opts BackupOptions) (BackupHeader, error) {
	if _, err := os.Stat(filepath.Join(dir, badgerDir, "MANIFEST")); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return BackupHeader{}, fmt.Errorf("there is no store in %s (no %s): pass the --data-dir the server uses", dir, filepath.Join(dir, badgerDir))
		}
		return BackupHeader{}, fmt.Errorf("read the store in %s: %w", dir, err)
	}
	inUse := &inUseError{dir: dir, hint: "back it up from that server"}
	db, err := badger.Open(badgerOptions(dir, Options{}).WithReadOnly(true))
	if err != nil && isLockError(err) {
		return BackupHeader{}, inUse
	}
	if err != nil {
		// Read-only refuses a store whose last process was killed, whose
		// log needs replaying: opening it normally replays it.
		db, err = badger.Open(badgerOptions(dir, Options{}))
		if err != nil && isLockError(err) {
			return BackupHeader{}, inUse
		}
		if err != nil {
			return BackupHeader{}, fmt.Errorf("open the store in %s: %w", dir, err)
		}
	}
	h, err := backupDB(ctx, db, dir, w, opts, time.Now())
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close the store in %s: %w", dir, cerr)
	}
	return h, err
}

func backupDB(ctx context.Context, db *badger.DB, dir string, w io.Writer, opts BackupOptions, now time.Time) (BackupHeader, error) {
	if len(opts.BinaryVersion) > maxBinaryVersionSize {
		return BackupHeader{}, fmt.Errorf("the binary version is %d bytes; at most %d fit a backup header", len(opts.BinaryVersion), maxBinaryVersionSize)
	}
	if len(opts.Files) > maxFiles {
		return BackupHeader{}, fmt.Errorf("%d files to back up; a backup holds at most %d", len(opts.Files), maxFiles)
	}
	for _, name := range opts.Files {
		if err := checkFileName(name); err != nil {
			return BackupHeader{}, err
		}
	}
	var version uint64
	if err := db.View(func(txn *badger.Txn) (err error) {
		version, err = schemaVersion(txn)
		return err
	}); err != nil {
		return BackupHeader{}, fmt.Errorf("read the schema version: %w", err)
	}
	h := BackupHeader{Format: BackupFormat, SchemaVersion: int(version), BinaryVersion: opts.BinaryVersion, CreatedAt: now.UTC()}
	bw := &backupWriter{w: ctxWriter{ctx: ctx, w: w}, sum: sha256.New()}
	if err := bw.header(h); err != nil {
		return h, err
	}

	section := &chunker{bw: bw, kind: chunkStore}
	stream := db.NewStream()
	stream.LogPrefix = "instantstart backup"
	// One goroutine reads with one transaction, so the backup is one
	// snapshot: with more, each would open its own transaction at its own
	// moment, and a write committed between them would reach the backup
	// in part.
	stream.NumGo = 1
	stream.MaxSize = streamBatchBytes
	if _, err := stream.Backup(section, 0); err != nil {
		return h, fmt.Errorf("stream the store: %w", err)
	}
	if err := section.flush(); err != nil {
		return h, err
	}

	for _, name := range opts.Files {
		if err := backupFile(bw, dir, name); err != nil {
			return h, err
		}
	}
	return h, bw.end()
}

// backupFile writes the file name of dir as a file section; a file that
// does not exist is left out.
func backupFile(bw *backupWriter, dir, name string) error {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("back up %s: %w", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return fmt.Errorf("back up %s: %w", path, err)
	} else if !fi.Mode().IsRegular() {
		return fmt.Errorf("back up %s: not a regular file", path)
	}
	if err := bw.chunk(chunkFileName, []byte(name)); err != nil {
		return err
	}
	data := &chunker{bw: bw, kind: chunkFileData}
	n, err := io.Copy(data, io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return fmt.Errorf("back up %s: %w", path, err)
	}
	if n > maxFileBytes {
		return fmt.Errorf("back up %s: it is over %d bytes, more than a backup holds of one file", path, maxFileBytes)
	}
	return data.flush()
}

// checkFileName refuses a name that is not a plain file name of the data
// directory, or that is the store's own directory.
func checkFileName(name string) error {
	switch {
	case name == "" || len(name) > maxFileNameBytes:
		return fmt.Errorf("a backed-up file name must be 1 to %d bytes, not %d", maxFileNameBytes, len(name))
	case name == "." || name == ".." || name == badgerDir || strings.ContainsAny(name, "/\\\x00") || filepath.Base(name) != name:
		return fmt.Errorf("%q is not a file name of the data directory that a backup may hold", name)
	}
	return nil
}

// Restore loads the backup r into dir, which must not exist or be empty:
// it never overwrites. It loads into a new directory beside dir and renames
// that into place only once the whole backup has been read and its
// checksum matches, so a truncated or corrupt backup leaves nothing behind.
// A backup of a newer schema than SchemaVersion is refused; an older one is
// migrated when the store is next opened.
func Restore(r io.Reader, dir string) (BackupHeader, error) {
	if dir == "" {
		return BackupHeader{}, errors.New("no data directory to restore into: name a new or empty one")
	}
	if err := refuseExisting(dir); err != nil {
		return BackupHeader{}, err
	}
	br, err := readBackup(r)
	if err != nil {
		return BackupHeader{}, err
	}
	h := br.header
	if h.SchemaVersion > SchemaVersion {
		return h, fmt.Errorf("the backup holds a store of schema version %d, made by instantstart %s; this instantstart knows schema versions up to %d: restore it with a newer instantstart", h.SchemaVersion, h.BinaryVersion, SchemaVersion)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return h, fmt.Errorf("restore into %s: %w", dir, err)
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return h, fmt.Errorf("restore into %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(abs)+".restore-")
	if err != nil {
		return h, fmt.Errorf("restore into %s: %w", dir, err)
	}
	placed := false
	defer func() {
		if !placed {
			os.RemoveAll(tmp)
		}
	}()
	if err := loadStore(br, tmp); err != nil {
		return h, err
	}
	if err := restoreFiles(br, tmp); err != nil {
		return h, err
	}
	if br.kind != chunkEnd {
		return h, br.fail(corrupt("a %q chunk where the end marker belongs", br.kind))
	}
	if err := syncDir(tmp); err != nil {
		return h, fmt.Errorf("restore into %s: %w", dir, err)
	}
	// dir may have been made, or filled, while the backup was read. An
	// empty one gives way (os.Rename replaces no directory); os.Remove
	// removes no other.
	if err := refuseExisting(dir); err != nil {
		return h, err
	}
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return h, fmt.Errorf("replace the empty directory %s: %w; restore into a new directory (a mount point cannot be replaced)", dir, err)
	}
	if err := os.Rename(tmp, abs); err != nil {
		return h, fmt.Errorf("move the restored store into %s: %w; restore into a new directory (a mount point cannot be replaced)", dir, err)
	}
	placed = true
	if err := syncDir(parent); err != nil {
		return h, fmt.Errorf("restored into %s, but syncing %s failed: %w", dir, parent, err)
	}
	return h, nil
}

// CheckBackup reads the backup r to its end and reports whether it is whole:
// its framing, its bounds and its checksum. It loads nothing.
func CheckBackup(r io.Reader) (BackupHeader, error) {
	br, err := readBackup(r)
	if err != nil {
		return BackupHeader{}, err
	}
	if _, err := io.Copy(io.Discard, &frameGuard{r: br.section(chunkStore)}); err != nil {
		return br.header, br.fail(err)
	}
	err = readFiles(br, func(_ string, data io.Reader) error {
		_, err := io.Copy(io.Discard, data)
		return err
	})
	if err != nil {
		return br.header, err
	}
	if br.kind != chunkEnd {
		return br.header, br.fail(corrupt("a %q chunk where the end marker belongs", br.kind))
	}
	return br.header, nil
}

// refuseExisting refuses a dir that exists and holds anything.
func refuseExisting(dir string) error {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot restore into %s: %w; name a new or empty directory", dir, err)
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot restore into %s: %w; name a new or empty directory", dir, err)
	}
	what := "files (" + names[0] + ")"
	if _, err := os.Stat(filepath.Join(dir, badgerDir)); err == nil {
		what = "a store"
	}
	return fmt.Errorf("%s already holds %s, and restore never overwrites: pick an empty or new directory, or move the old one away", dir, what)
}

// loadStore loads the backup's store section into a new Badger database in
// dir.
func loadStore(br *backupReader, dir string) error {
	db, err := badger.Open(badgerOptions(dir, Options{SyncWrites: true}))
	if err != nil {
		return fmt.Errorf("create the restored store in %s: %w", dir, err)
	}
	guard := &frameGuard{r: br.section(chunkStore)}
	err = db.Load(guard, loadPendingWrites)
	if cerr := db.Close(); err == nil && cerr != nil {
		return fmt.Errorf("close the restored store in %s: %w", dir, cerr)
	}
	switch {
	case err == nil:
		return nil
	case br.err != nil:
		return br.err
	case guard.err != nil:
		return br.fail(guard.err)
	}
	return br.fail(corrupt("a store section that Badger cannot load (%v)", err))
}

// restoreFiles writes the backup's file sections into dir.
func restoreFiles(br *backupReader, dir string) error {
	return readFiles(br, func(name string, data io.Reader) error {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("restore %s: %w", name, err)
		}
		_, err = io.Copy(f, data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("restore %s: %w", name, err)
		}
		return nil
	})
}

// readFiles reads the backup's file sections, handing each file's name and
// data to use, and refuses a name given twice and a file over maxFileBytes,
// so that what CheckBackup passes Restore takes. A broken backup is the
// error before any of use's.
func readFiles(br *backupReader, use func(name string, data io.Reader) error) error {
	seen := map[string]bool{}
	for n := 0; br.kind == chunkFileName; n++ {
		name, err := br.fileName(n)
		if err != nil {
			return err
		}
		if seen[name] {
			return br.fail(corrupt("the file %s twice", name))
		}
		seen[name] = true
		data := &countingReader{r: io.LimitReader(br.section(chunkFileData), maxFileBytes+1)}
		err = use(name, data)
		switch {
		case br.err != nil:
			return br.err
		case err != nil:
			return err
		case data.n > maxFileBytes:
			return br.fail(corrupt("the file %s over %d bytes", name, maxFileBytes))
		}
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// backupWriter writes a backup's bytes and sums them.
type backupWriter struct {
	w   io.Writer
	sum hash.Hash
}

func (b *backupWriter) write(p []byte) error {
	b.sum.Write(p)
	_, err := b.w.Write(p)
	return err
}

// header writes the magic and the header in one write.
func (b *backupWriter) header(h BackupHeader) error {
	js, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode the backup header: %w", err)
	}
	var buf bytes.Buffer
	buf.WriteString(backupMagic)
	binary.Write(&buf, binary.BigEndian, uint32(len(js)))
	buf.Write(js)
	return b.write(buf.Bytes())
}

func (b *backupWriter) chunk(kind byte, payload []byte) error {
	var head [5]byte
	head[0] = kind
	binary.BigEndian.PutUint32(head[1:], uint32(len(payload)))
	if err := b.write(head[:]); err != nil {
		return err
	}
	return b.write(payload)
}

// end writes the end marker: the sum of everything before its payload.
func (b *backupWriter) end() error {
	head := [5]byte{chunkEnd, 0, 0, 0, sha256.Size}
	if err := b.write(head[:]); err != nil {
		return err
	}
	_, err := b.w.Write(b.sum.Sum(nil))
	return err
}

// chunker cuts what is written to it into chunks of one kind.
type chunker struct {
	bw   *backupWriter
	kind byte
	buf  []byte
}

func (c *chunker) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if c.buf == nil {
			c.buf = make([]byte, 0, maxChunkBytes)
		}
		take := min(len(p), maxChunkBytes-len(c.buf))
		c.buf = append(c.buf, p[:take]...)
		p = p[take:]
		if len(c.buf) == maxChunkBytes {
			if err := c.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (c *chunker) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	err := c.bw.chunk(c.kind, c.buf)
	c.buf = c.buf[:0]
	return err
}

// ctxWriter fails once ctx ends, which stops Badger's stream.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// errTruncated is the error of a backup that ends before its end marker.
var errTruncated = errors.New("the backup is truncated: it ends before its end marker (an interrupted copy, a full disk, or a backup that failed midway); make the backup again")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("the backup is corrupt: it holds "+format+"; make the backup again", args...)
}

// backupReader reads a backup's header and chunks, summing every byte it
// consumes. Its first error sticks.
type backupReader struct {
	r      *bufio.Reader
	sum    hash.Hash
	header BackupHeader
	// kind and left are the current chunk's kind and how much of its
	// payload is still unread.
	kind byte
	left uint32
	err  error
}

// readBackup reads the magic, the header and the first chunk's head.
func readBackup(r io.Reader) (*backupReader, error) {
	br := &backupReader{r: bufio.NewReaderSize(r, 64<<10), sum: sha256.New()}
	magic := make([]byte, len(backupMagic))
	n, err := br.readFull(magic)
	if !bytes.HasPrefix([]byte(backupMagic), magic[:n]) || n == 0 {
		return nil, fmt.Errorf("this is not an instantstart backup (it does not begin with %q): pass a file that instantstart backup wrote", strings.TrimSpace(backupMagic))
	}
	if err != nil {
		return nil, errTruncated
	}
	var size [4]byte
	if _, err := br.readFull(size[:]); err != nil {
		return nil, errTruncated
	}
	n32 := binary.BigEndian.Uint32(size[:])
	if n32 == 0 || n32 > maxHeaderBytes {
		return nil, corrupt("a header of %d bytes, where 1 to %d fit", n32, maxHeaderBytes)
	}
	raw := make([]byte, n32)
	if _, err := br.readFull(raw); err != nil {
		return nil, errTruncated
	}
	if err := json.Unmarshal(raw, &br.header); err != nil {
		return nil, corrupt("a header that is not JSON (%v)", err)
	}
	h := br.header
	switch {
	case h.Format > BackupFormat:
		return nil, fmt.Errorf("the backup has format %d, written by instantstart %s; this instantstart reads format %d: use a newer instantstart", h.Format, h.BinaryVersion, BackupFormat)
	case h.Format < 1 || h.SchemaVersion < 0 || len(h.BinaryVersion) > maxBinaryVersionSize:
		return nil, corrupt("a header out of bounds (format %d, schema version %d, a binary version of %d bytes)", h.Format, h.SchemaVersion, len(h.BinaryVersion))
	}
	if err := br.next(); err != nil {
		return nil, err
	}
	return br, nil
}

// readFull reads len(p) bytes and sums them.
func (br *backupReader) readFull(p []byte) (int, error) {
	n, err := io.ReadFull(br.r, p)
	br.sum.Write(p[:n])
	return n, err
}

func (br *backupReader) fail(err error) error {
	if br.err == nil {
		br.err = err
	}
	return br.err
}

// next reads the head of the next chunk once the current one is consumed.
// At the end marker it checks the sum and that nothing follows.
func (br *backupReader) next() error {
	if br.err != nil {
		return br.err
	}
	var head [5]byte
	if _, err := br.readFull(head[:]); err != nil {
		return br.fail(errTruncated)
	}
	kind, size := head[0], binary.BigEndian.Uint32(head[1:])
	switch kind {
	case chunkStore, chunkFileData:
		if size > maxChunkBytes {
			return br.fail(corrupt("a chunk of %d bytes, where at most %d fit", size, maxChunkBytes))
		}
	case chunkFileName:
		if size == 0 || size > maxFileNameBytes {
			return br.fail(corrupt("a file name of %d bytes", size))
		}
	case chunkEnd:
		if size != sha256.Size {
			return br.fail(corrupt("an end marker of %d bytes", size))
		}
		want := br.sum.Sum(nil)
		got := make([]byte, sha256.Size)
		if _, err := io.ReadFull(br.r, got); err != nil {
			return br.fail(errTruncated)
		}
		if !bytes.Equal(got, want) {
			return br.fail(errors.New("the backup is corrupt: its checksum does not match its contents; make the backup again"))
		}
		if _, err := br.r.ReadByte(); err != io.EOF {
			return br.fail(errors.New("the backup has bytes after its end marker: pass the backup file alone, as instantstart backup wrote it"))
		}
	default:
		return br.fail(corrupt("a chunk of unknown kind %q", kind))
	}
	br.kind, br.left = kind, size
	return nil
}

// section reads the payloads of consecutive chunks of kind, ending with
// io.EOF at a chunk of another kind, which becomes the current one.
func (br *backupReader) section(kind byte) io.Reader { return sectionReader{br, kind} }

type sectionReader struct {
	br   *backupReader
	kind byte
}

func (s sectionReader) Read(p []byte) (int, error) {
	br := s.br
	for {
		if br.err != nil {
			return 0, br.err
		}
		if br.kind != s.kind {
			return 0, io.EOF
		}
		if br.left > 0 {
			break
		}
		if err := br.next(); err != nil {
			return 0, err
		}
	}
	if len(p) > int(br.left) {
		p = p[:br.left]
	}
	n, err := br.readFull(p)
	br.left -= uint32(n)
	if err != nil {
		return n, br.fail(errTruncated)
	}
	return n, nil
}

// fileName reads the name of the nth file section.
func (br *backupReader) fileName(n int) (string, error) {
	if n >= maxFiles {
		return "", br.fail(corrupt("more than %d files", maxFiles))
	}
	raw := make([]byte, br.left)
	if _, err := br.readFull(raw); err != nil {
		return "", br.fail(errTruncated)
	}
	br.left = 0
	name := string(raw)
	if err := checkFileName(name); err != nil {
		return "", br.fail(corrupt("a file name that is not allowed (%v)", err))
	}
	if err := br.next(); err != nil {
		return "", err
	}
	return name, nil
}

// frameGuard passes Badger's backup stream (frames of a uint64
// little-endian length and a KVList) through, and refuses a frame longer
// than maxFrameBytes before DB.Load allocates for it.
type frameGuard struct {
	r    io.Reader
	size [8]byte
	have int    // bytes of the current frame's length read
	left uint64 // bytes of the current frame's payload still to pass
	err  error
}

func (g *frameGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	for i := 0; i < n; {
		if g.left > 0 {
			step := int(min(g.left, uint64(n-i)))
			g.left -= uint64(step)
			i += step
			continue
		}
		g.size[g.have] = p[i]
		g.have++
		i++
		if g.have == len(g.size) {
			g.have = 0
			g.left = binary.LittleEndian.Uint64(g.size[:])
			if g.left > maxFrameBytes {
				// Hand on the bytes before the length's last one, so
				// that Load never reads the whole length.
				g.err = corrupt("a store frame of %d bytes, where at most %d fit", g.left, maxFrameBytes)
				return i - 1, g.err
			}
		}
	}
	if err == io.EOF && (g.have > 0 || g.left > 0) {
		g.err = corrupt("a store section that ends inside a frame")
		return n, g.err
	}
	return n, err
}
