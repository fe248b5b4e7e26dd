package sim

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// FileStorage keeps the world in one JSON file. Each save replaces the file
// atomically (write, sync, rename), so a process killed mid-save leaves the
// previous world, never a torn one.
type FileStorage struct {
	Path string
}

var _ Storage = FileStorage{}

// LoadWorld reads the file; a missing file is an empty world.
func (s FileStorage) LoadWorld() ([]byte, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.Path, err)
	}
	return data, nil
}

// SaveWorld replaces the file with data.
func (s FileStorage) SaveWorld(data []byte) error {
	dir := filepath.Dir(s.Path)
	tmp, err := os.CreateTemp(dir, filepath.Base(s.Path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("save %s: %w", s.Path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("save %s: %w", s.Path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save %s: %w", s.Path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save %s: %w", s.Path, err)
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		return fmt.Errorf("save %s: %w", s.Path, err)
	}
	return nil
}
