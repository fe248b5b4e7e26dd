package ociimage

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
)

// The nonroot user as distroless defines it, with root and nobody beside it
// so that tools that look names up find them.
const (
	passwdFile = "root:x:0:0:root:/root:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	groupFile = "root:x:0:\n" +
		"nobody:x:65534:\n" +
		"nonroot:x:65532:\n"
)

// rootFS is the image's one layer: every entry, in the order written.
type rootFS struct {
	entries []entry
	created time.Time
}

// entry is a directory, a file with fixed content, or a file copied from
// this machine (from).
type entry struct {
	name     string // without the leading slash
	dir      bool
	mode     int64
	uid, gid int
	content  string
	from     string
}

func newRootFS(opts Options) (*rootFS, error) {
	if err := checkRegularFile("binary", opts.Binary); err != nil {
		return nil, err
	}
	nonroot := NonrootUID
	entries := []entry{
		{name: "data/", dir: true, mode: 0o750, uid: nonroot, gid: nonroot},
		{name: "etc/", dir: true, mode: 0o755},
		{name: "etc/group", mode: 0o644, content: groupFile},
		{name: "etc/passwd", mode: 0o644, content: passwdFile},
	}
	if opts.CACertificates != "" {
		if err := checkRegularFile("CA certificates", opts.CACertificates); err != nil {
			return nil, err
		}
		entries = append(entries,
			entry{name: "etc/ssl/", dir: true, mode: 0o755},
			entry{name: "etc/ssl/certs/", dir: true, mode: 0o755},
			entry{name: strings.TrimPrefix(CACertificatesPath, "/"), mode: 0o644, from: opts.CACertificates},
		)
	}
	entries = append(entries,
		// The user's home, as distroless has it: HOME points here, and the
		// Helm SDK keeps its cache and config under it.
		entry{name: "home/", dir: true, mode: 0o755},
		entry{name: "home/nonroot/", dir: true, mode: 0o700, uid: nonroot, gid: nonroot},
		entry{name: strings.TrimPrefix(BinaryPath, "/"), mode: 0o755, from: opts.Binary},
		entry{name: "tmp/", dir: true, mode: 0o1777},
	)
	return &rootFS{entries: entries, created: opts.Created}, nil
}

// checkRegularFile says whether path, the file called what in messages, is
// an existing regular file (or a link to one).
func checkRegularFile(what, path string) error {
	if path == "" {
		return fmt.Errorf("ociimage: no %s file given", what)
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("ociimage: %s %s does not exist", what, path)
	}
	if err != nil {
		return fmt.Errorf("ociimage: %s: %w", what, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("ociimage: %s %s is not a regular file", what, path)
	}
	return nil
}

// open streams the layer's uncompressed tar. The writer stops when the tar
// is written or when the reader is closed, whichever comes first.
func (r *rootFS) open() (io.ReadCloser, error) {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(r.write(pw))
	}()
	return pr, nil
}

func (r *rootFS) write(w io.Writer) error {
	tw := tar.NewWriter(w)
	for _, e := range r.entries {
		if err := r.writeEntry(tw, e); err != nil {
			return fmt.Errorf("ociimage: layer: /%s: %w", e.name, err)
		}
	}
	return tw.Close()
}

func (r *rootFS) writeEntry(tw *tar.Writer, e entry) error {
	hdr := &tar.Header{
		Name:    e.name,
		Mode:    e.mode,
		Uid:     e.uid,
		Gid:     e.gid,
		ModTime: r.created,
		Format:  tar.FormatPAX,
	}
	switch {
	case e.dir:
		hdr.Typeflag = tar.TypeDir
		return tw.WriteHeader(hdr)
	case e.from == "":
		hdr.Typeflag = tar.TypeReg
		hdr.Size = int64(len(e.content))
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err := io.WriteString(tw, e.content)
		return err
	}
	f, err := os.Open(e.from)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	hdr.Typeflag = tar.TypeReg
	hdr.Size = fi.Size()
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	// A file that grew or shrank since the stat fails here, not silently.
	if _, err := io.Copy(tw, f); err != nil {
		return fmt.Errorf("copy %s: %w", e.from, err)
	}
	return nil
}
