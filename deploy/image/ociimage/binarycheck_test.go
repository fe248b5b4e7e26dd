package ociimage

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeELF writes the headers of a little-endian 64-bit ELF executable for
// machine with one program header of each type in progs: enough for
// debug/elf, no code.
func writeELF(t *testing.T, machine elf.Machine, progs ...elf.ProgType) string {
	t.Helper()
	const ehsize, phentsize = 64, 56
	var ident [elf.EI_NIDENT]byte
	copy(ident[:], elf.ELFMAG)
	ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	hdr := elf.Header64{
		Ident:     ident,
		Type:      uint16(elf.ET_EXEC),
		Machine:   uint16(machine),
		Version:   uint32(elf.EV_CURRENT),
		Phoff:     ehsize,
		Ehsize:    ehsize,
		Phentsize: phentsize,
		Phnum:     uint16(len(progs)),
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, hdr); err != nil {
		t.Fatal(err)
	}
	for _, typ := range progs {
		if err := binary.Write(&buf, binary.LittleEndian, elf.Prog64{Type: uint32(typ), Flags: uint32(elf.PF_R)}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(path, buf.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckBinary(t *testing.T) {
	notELF := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(notELF, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "absent")
	dir := t.TempDir()
	cases := []struct {
		name     string
		path     string
		platform string
		want     string // "" means no error
	}{
		{"static amd64", writeELF(t, elf.EM_X86_64, elf.PT_LOAD), "linux/amd64", ""},
		{"default platform", writeELF(t, elf.EM_X86_64, elf.PT_LOAD), "", ""},
		{"static arm64", writeELF(t, elf.EM_AARCH64, elf.PT_LOAD), "linux/arm64", ""},
		{"dynamic", writeELF(t, elf.EM_X86_64, elf.PT_PHDR, elf.PT_INTERP, elf.PT_LOAD), "linux/amd64", "CGO_ENABLED=0"},
		{"other architecture", writeELF(t, elf.EM_AARCH64, elf.PT_LOAD), "linux/amd64", "GOARCH=amd64"},
		{"not ELF", notELF, "linux/amd64", "GOOS=linux"},
		{"missing", missing, "linux/amd64", "binary " + missing + " does not exist"},
		{"directory", dir, "linux/amd64", "binary " + dir + " is not a regular file"},
		{"unknown architecture", writeELF(t, elf.EM_X86_64), "linux/mips", "no known ELF machine"},
		{"not linux", writeELF(t, elf.EM_X86_64), "darwin/amd64", "want linux"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckBinary(c.path, c.platform)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("CheckBinary: %v, want no error", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("CheckBinary: error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}
