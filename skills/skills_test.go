package skills_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/instantstart/instantstart/graph"
	"github.com/instantstart/instantstart/skills"
)

// guide is the human guide in the directory; every other .md file is a playbook.
const guide = "README.md"

// schemaTools returns the MCP tool names the schema yields: the snake_case
// names of the Query fields (read-only) and of the Mutation fields.
func schemaTools(t *testing.T) (readOnly, mutating []string) {
	t.Helper()
	s := graph.NewExecutableSchema(graph.Config{}).Schema()
	if s.Query == nil || s.Mutation == nil {
		t.Fatal("the schema has no Query or no Mutation type")
	}
	names := func(fields []string) []string {
		var out []string
		for _, f := range fields {
			if !strings.HasPrefix(f, "__") {
				out = append(out, snakeCase(f))
			}
		}
		slices.Sort(out)
		return out
	}
	var q, m []string
	for _, f := range s.Query.Fields {
		q = append(q, f.Name)
	}
	for _, f := range s.Mutation.Fields {
		m = append(m, f.Name)
	}
	return names(q), names(m)
}

func allTools(t *testing.T) map[string]bool {
	t.Helper()
	readOnly, mutating := schemaTools(t)
	all := map[string]bool{}
	for _, n := range append(readOnly, mutating...) {
		all[n] = true
	}
	return all
}

// snakeCase turns a GraphQL field name into its tool name: waitOperation ->
// wait_operation, auditLog -> audit_log, importURL -> import_url.
func snakeCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			acronymEnd := i > 0 && unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || acronymEnd {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"version": "version", "waitOperation": "wait_operation", "auditLog": "audit_log",
		"createCluster": "create_cluster", "importURL": "import_url", "nodeHTTPCheck": "node_http_check",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// playbook is one parsed playbook file.
type playbook struct {
	file string
	fm   frontMatter
	body string
}

type frontMatter struct {
	Name, Description, WhenToUse string
	Tools                        []string
}

func playbooks(t *testing.T) []playbook {
	t.Helper()
	files, err := fs.Glob(skills.FS, "*.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []playbook
	for _, f := range files {
		if f == guide {
			continue
		}
		raw, err := fs.ReadFile(skills.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		fm, body, err := parseFrontMatter(string(raw))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		out = append(out, playbook{file: f, fm: fm, body: body})
	}
	if len(out) == 0 {
		t.Fatal("no playbooks embedded")
	}
	return out
}

var (
	frontMatterKey = regexp.MustCompile(`^([a-z_]+):(?: (.*))?$`)
	flowListItem   = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// parseFrontMatter reads the YAML front matter of a playbook. It accepts a
// strict subset of YAML (one "key: value" per line; values are plain or
// double-quoted scalars, or flow lists of plain words) so that whatever it
// accepts is also valid YAML for agents that read the files themselves.
func parseFrontMatter(text string) (frontMatter, string, error) {
	var fm frontMatter
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return fm, "", fmt.Errorf("does not start with a --- front matter line")
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return fm, "", fmt.Errorf("front matter has no closing --- line")
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(head, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		m := frontMatterKey.FindStringSubmatch(line)
		if m == nil {
			return fm, "", fmt.Errorf("front matter line %q is not \"key: value\"", line)
		}
		key, value := m[1], strings.TrimSpace(m[2])
		if seen[key] {
			return fm, "", fmt.Errorf("front matter key %q appears twice", key)
		}
		seen[key] = true
		if key == "tools" {
			list, ok := strings.CutPrefix(value, "[")
			if list, ok = strings.CutSuffix(list, "]"); !ok {
				return fm, "", fmt.Errorf("tools must be a flow list such as [clusters, cluster], not %q", value)
			}
			for _, item := range strings.Split(list, ",") {
				item = strings.TrimSpace(item)
				if !flowListItem.MatchString(item) {
					return fm, "", fmt.Errorf("tools item %q is not a tool name", item)
				}
				fm.Tools = append(fm.Tools, item)
			}
			continue
		}
		s, err := scalar(value)
		if err != nil {
			return fm, "", fmt.Errorf("%s: %w", key, err)
		}
		switch key {
		case "name":
			fm.Name = s
		case "description":
			fm.Description = s
		case "when_to_use":
			fm.WhenToUse = s
		default:
			return fm, "", fmt.Errorf("unknown front matter key %q", key)
		}
	}
	return fm, body, nil
}

// scalar reads a plain or double-quoted YAML scalar, refusing plain ones that
// YAML would read differently.
func scalar(v string) (string, error) {
	if strings.HasPrefix(v, `"`) {
		var s string
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			return "", fmt.Errorf("double-quoted value %s: %w", v, err)
		}
		return s, nil
	}
	if v == "" || strings.ContainsAny(v[:1], "-?:,[]{}#&*!|>'%@`") ||
		strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.HasSuffix(v, ":") {
		return "", fmt.Errorf("plain value %q is empty or not plain YAML: double-quote it", v)
	}
	return v, nil
}

func TestPlaybookFrontMatter(t *testing.T) {
	tools := allTools(t)
	for _, p := range playbooks(t) {
		if want := strings.TrimSuffix(p.file, ".md"); p.fm.Name != want {
			t.Errorf("%s: name is %q, want %q (the file name)", p.file, p.fm.Name, want)
		}
		if p.fm.Description == "" || p.fm.WhenToUse == "" {
			t.Errorf("%s: description and when_to_use must not be empty", p.file)
		}
		if len(p.fm.Tools) == 0 {
			t.Errorf("%s: tools must list the tools the playbook uses", p.file)
		}
		seen := map[string]bool{}
		for _, name := range p.fm.Tools {
			if !tools[name] {
				t.Errorf("%s: front matter names tool %q, which the schema does not have", p.file, name)
			}
			if seen[name] {
				t.Errorf("%s: front matter lists tool %q twice", p.file, name)
			}
			seen[name] = true
		}
	}
}

var (
	fence       = regexp.MustCompile("(?ms)^```[^\n]*\n(.*?)^```")
	inlineCode  = regexp.MustCompile("`([^`\n]+)`")
	identifier  = regexp.MustCompile(`[A-Za-z0-9_]+`)
	toolShaped  = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)+$`)
	markdownDoc = []string{guide}
)

// codeTokens returns the identifiers inside the code spans and fenced code
// blocks of a markdown text: the places where a playbook names a tool.
func codeTokens(text string) []string {
	var code []string
	for _, m := range fence.FindAllStringSubmatch(text, -1) {
		code = append(code, m[1])
	}
	text = fence.ReplaceAllString(text, "")
	for _, m := range inlineCode.FindAllStringSubmatch(text, -1) {
		code = append(code, m[1])
	}
	var tokens []string
	for _, c := range code {
		tokens = append(tokens, identifier.FindAllString(c, -1)...)
	}
	return tokens
}

// TestPlaybooksNameOnlyExistingTools fails when a playbook (or the guide)
// names, in code, a snake_case tool the schema does not have, and when a
// playbook uses a tool its front matter does not list.
func TestPlaybooksNameOnlyExistingTools(t *testing.T) {
	tools := allTools(t)
	check := func(file, text string, listed []string) {
		for _, tok := range codeTokens(text) {
			if toolShaped.MatchString(tok) && !tools[tok] {
				t.Errorf("%s names tool %q, which the schema does not have", file, tok)
			}
			if listed != nil && tools[tok] && !slices.Contains(listed, tok) {
				t.Errorf("%s uses tool %q but its front matter tools do not list it", file, tok)
			}
		}
	}
	for _, p := range playbooks(t) {
		check(p.file, p.body, p.fm.Tools)
	}
	for _, f := range markdownDoc {
		raw, err := fs.ReadFile(skills.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		check(f, string(raw), nil)
	}
}

// agentConfig is the part of a Kiro CLI agent configuration the test reads.
type agentConfig struct {
	Name       string `json:"name"`
	Prompt     string `json:"prompt"`
	MCPServers map[string]struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	} `json:"mcpServers"`
	Tools        []string `json:"tools"`
	AllowedTools []string `json:"allowedTools"`
	Resources    []string `json:"resources"`
}

const server = "instantstart"

func TestAgentConfig(t *testing.T) {
	raw, err := fs.ReadFile(skills.FS, "hypd-inst-agent.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg agentConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("hypd-inst-agent.json does not parse: %v", err)
	}
	if cfg.Name != "hypd-inst-agent" || cfg.Prompt == "" {
		t.Errorf("name = %q, prompt empty = %v; want hypd-inst-agent and a prompt", cfg.Name, cfg.Prompt == "")
	}
	srv, ok := cfg.MCPServers[server]
	if !ok {
		t.Fatalf("mcpServers has no %q server", server)
	}
	if !strings.HasSuffix(srv.URL, "/mcp") {
		t.Errorf("server url %q does not end in /mcp", srv.URL)
	}
	if auth := srv.Headers["Authorization"]; !strings.HasPrefix(auth, "Bearer ${") {
		t.Errorf("Authorization header %q should be a bearer token taken from an environment variable", auth)
	}
	if want := []string{"@" + server}; !slices.Equal(cfg.Tools, want) {
		t.Errorf("tools = %q, want %q", cfg.Tools, want)
	}

	// Exactly the read-only tools run without asking; every mutating one asks.
	readOnly, mutating := schemaTools(t)
	var want []string
	for _, n := range readOnly {
		want = append(want, "@"+server+"/"+n)
	}
	got := slices.Sorted(slices.Values(cfg.AllowedTools))
	if !slices.Equal(got, want) {
		t.Errorf("allowedTools = %q\nwant exactly the read-only tools %q", got, want)
	}
	for _, n := range mutating {
		if slices.Contains(cfg.AllowedTools, "@"+server+"/"+n) {
			t.Errorf("allowedTools lets mutating tool %s run without approval", n)
		}
	}

	// Resources are file:// paths relative to the repository root; each must
	// match files, and together they must cover every playbook.
	root := ".."
	covered := map[string]bool{}
	for _, r := range cfg.Resources {
		rel, ok := strings.CutPrefix(r, "file://")
		if !ok || filepath.IsAbs(rel) {
			t.Errorf("resource %q is not a relative file:// path", r)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || len(matches) == 0 {
			t.Errorf("resource %q matches no file (err %v)", r, err)
		}
		for _, m := range matches {
			covered[filepath.ToSlash(m)] = true
		}
	}
	for _, p := range playbooks(t) {
		if f := path.Join(root, "skills", p.file); !covered[f] {
			t.Errorf("playbook %s is not among the agent's resources", p.file)
		}
	}
}
