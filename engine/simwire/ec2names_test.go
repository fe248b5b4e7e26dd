package simwire

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestEC2NamesAreCurrent regenerates the EC2 wire-name table from the
// SDK module in go.mod and wants it equal to the committed one: after an
// SDK upgrade, run go generate ./engine/simwire/.
func TestEC2NamesAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("scans the EC2 module's serializers")
	}
	out := filepath.Join(t.TempDir(), "ec2names.go")
	cmd := exec.Command("go", "run", "./internal/ec2names", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/ec2names: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("ec2names.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("ec2names.go is not what the EC2 module's serializers give: run go generate ./engine/simwire/")
	}
}
