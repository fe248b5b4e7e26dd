package mcp

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsPointDown fails when the MCP server depends on the GraphQL
// resolvers, directly or through another package: it is handed the role
// rule and reads the caller from engine/auth instead.
func TestImportsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/instantstart/instantstart/"
	for dep := range strings.FieldsSeq(string(out)) {
		if dep == module+"resolvers" || strings.HasPrefix(dep, module+"resolvers/") {
			t.Errorf("mcp depends on %s: pass what it needs in (see RoleRule, auth.IdentityOf) instead", dep)
		}
	}
}
