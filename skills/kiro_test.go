package skills_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/instantstart/instantstart/skills"
)

var update = flag.Bool("update", false, "rewrite agents/hypd-inst-agent.md from hypd-inst-agent.json")

// markdownAgent is the Kiro CLI 3 agent file: the JSON configuration's
// fields as YAML front matter, in this order, and its prompt as the body.
// The name is the file's.
type markdownAgent struct {
	Description  string         `yaml:"description"`
	MCPServers   map[string]any `yaml:"mcpServers"`
	Tools        []string       `yaml:"tools"`
	AllowedTools []string       `yaml:"allowedTools"`
	Resources    []string       `yaml:"resources"`
}

const markdownAgentFile = "agents/hypd-inst-agent.md"

// renderMarkdownAgent writes the Markdown form of the JSON configuration.
func renderMarkdownAgent(t *testing.T) []byte {
	t.Helper()
	raw, err := fs.ReadFile(skills.FS, "hypd-inst-agent.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Description  string         `json:"description"`
		MCPServers   map[string]any `json:"mcpServers"`
		Tools        []string       `json:"tools"`
		AllowedTools []string       `json:"allowedTools"`
		Resources    []string       `json:"resources"`
		Prompt       string         `json:"prompt"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("hypd-inst-agent.json does not parse: %v", err)
	}
	fm := markdownAgent{cfg.Description, cfg.MCPServers, cfg.Tools, cfg.AllowedTools, cfg.Resources}
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(fm); err != nil {
		t.Fatal(err)
	}
	b.WriteString("---\n\n")
	b.WriteString(cfg.Prompt)
	b.WriteString("\n")
	return b.Bytes()
}

// TestMarkdownAgentIsTheJSONAgent checks that the Kiro CLI 3 Markdown
// agent says what hypd-inst-agent.json says (whose allowedTools
// TestAgentConfig checks against the schema); -update rewrites it.
func TestMarkdownAgentIsTheJSONAgent(t *testing.T) {
	want := renderMarkdownAgent(t)
	if *update {
		if err := os.WriteFile(markdownAgentFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(markdownAgentFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from hypd-inst-agent.json; run go test ./skills -run TestMarkdownAgentIsTheJSONAgent -update\n--- got\n%s\n--- want\n%s", markdownAgentFile, got, want)
	}

	// It parses back: front matter, then the prompt.
	parts := bytes.SplitN(got, []byte("---\n"), 3)
	if len(parts) != 3 || len(parts[0]) != 0 {
		t.Fatalf("%s does not open with --- front matter ---", markdownAgentFile)
	}
	var fm markdownAgent
	if err := yaml.Unmarshal(parts[1], &fm); err != nil {
		t.Fatalf("%s front matter: %v", markdownAgentFile, err)
	}
	if len(fm.AllowedTools) == 0 || fm.MCPServers[server] == nil || len(bytes.TrimSpace(parts[2])) == 0 {
		t.Errorf("%s has no allowed tools, no %s server or no prompt", markdownAgentFile, server)
	}
}
