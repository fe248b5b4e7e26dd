package ociimage

import (
	"debug/elf"
	"fmt"
)

// elfMachines maps a platform's architecture to the ELF machine of a binary
// built for it.
var elfMachines = map[string]elf.Machine{
	"amd64":   elf.EM_X86_64,
	"arm64":   elf.EM_AARCH64,
	"386":     elf.EM_386,
	"arm":     elf.EM_ARM,
	"ppc64le": elf.EM_PPC64,
	"riscv64": elf.EM_RISCV,
	"s390x":   elf.EM_S390,
}

// CheckBinary says whether the file at path can run in the image for
// platform (empty means DefaultPlatform): an existing regular file, a Linux
// ELF executable for its architecture, statically linked, since the image
// has no dynamic loader or C library. A binary built with cgo would fail
// there with a bare "no such file or directory".
func CheckBinary(path, platform string) error {
	if platform == "" {
		platform = DefaultPlatform
	}
	p, err := parsePlatform(platform)
	if err != nil {
		return err
	}
	want, ok := elfMachines[p.Architecture]
	if !ok {
		return fmt.Errorf("ociimage: platform %s: no known ELF machine for %s", platform, p.Architecture)
	}
	// A path that names nothing, or a directory, is a mistyped path, not a
	// binary built for another OS.
	if err := checkRegularFile("binary", path); err != nil {
		return err
	}
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("ociimage: binary %s is not an ELF file: %w (build it with GOOS=linux)", path, err)
	}
	defer f.Close()
	if f.Machine != want {
		return fmt.Errorf("ociimage: binary %s is for %s, not %s (build it with GOARCH=%s)", path, f.Machine, p.Architecture, p.Architecture)
	}
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return fmt.Errorf("ociimage: binary %s is an ELF %s, not an executable", path, f.Type)
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return fmt.Errorf("ociimage: binary %s is dynamically linked (it names an interpreter); build it with CGO_ENABLED=0", path)
		}
	}
	return nil
}
