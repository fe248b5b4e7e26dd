package ociimage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// instruction is one Dockerfile instruction with its continuation lines joined.
type instruction struct {
	cmd  string // upper case
	args string
}

// readDockerfile reads deploy/Dockerfile into its build stage and its final
// stage (everything from the last FROM).
func readDockerfile(t *testing.T) (build, final []instruction) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var all []instruction
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, `\`) {
			cur.WriteString(strings.TrimSuffix(trimmed, `\`) + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		all = append(all, instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		cur.Reset()
	}
	last := -1
	for i, in := range all {
		if in.cmd == "FROM" {
			last = i
		}
	}
	if last < 1 {
		t.Fatalf("Dockerfile has no final stage after a build stage: %v", all)
	}
	return all[:last], all[last:]
}

func only(t *testing.T, stage []instruction, cmd string) string {
	t.Helper()
	var found []string
	for _, in := range stage {
		if in.cmd == cmd {
			found = append(found, in.args)
		}
	}
	if len(found) != 1 {
		t.Fatalf("Dockerfile stage has %d %s instructions, want 1: %q", len(found), cmd, found)
	}
	return found[0]
}

func jsonArgs(t *testing.T, cmd, s string) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("%s %s: want the exec (JSON) form: %v", cmd, s, err)
	}
	return out
}

// TestDockerfileMatchesBuild keeps deploy/Dockerfile and Build describing the
// same image.
func TestDockerfileMatchesBuild(t *testing.T) {
	build, final := readDockerfile(t)
	want := runConfig("${VERSION}")

	if got := only(t, final, "FROM"); got != "gcr.io/distroless/static-debian12:nonroot" {
		t.Errorf("final FROM %s, want distroless static nonroot", got)
	}
	if got := jsonArgs(t, "ENTRYPOINT", only(t, final, "ENTRYPOINT")); !slices.Equal(got, want.Entrypoint) {
		t.Errorf("ENTRYPOINT %q, Build has %q", got, want.Entrypoint)
	}
	if got := jsonArgs(t, "CMD", only(t, final, "CMD")); !slices.Equal(got, want.Cmd) {
		t.Errorf("CMD %q, Build has %q", got, want.Cmd)
	}
	if got := only(t, final, "USER"); got != want.User {
		t.Errorf("USER %s, Build has %s", got, want.User)
	}
	if got := only(t, final, "WORKDIR"); got != want.WorkingDir {
		t.Errorf("WORKDIR %s, Build has %s", got, want.WorkingDir)
	}
	if got := only(t, final, "EXPOSE") + "/tcp"; !reflect.DeepEqual(map[string]struct{}{got: {}}, want.ExposedPorts) {
		t.Errorf("EXPOSE %s, Build has %v", got, want.ExposedPorts)
	}
	volumes := map[string]struct{}{}
	for _, v := range jsonArgs(t, "VOLUME", only(t, final, "VOLUME")) {
		volumes[v] = struct{}{}
	}
	if !reflect.DeepEqual(volumes, want.Volumes) {
		t.Errorf("VOLUME %v, Build has %v", volumes, want.Volumes)
	}

	labels := map[string]string{}
	for _, m := range regexp.MustCompile(`(\S+?)="([^"]*)"`).FindAllStringSubmatch(only(t, final, "LABEL"), -1) {
		labels[m[1]] = m[2]
	}
	if !reflect.DeepEqual(labels, want.Labels) {
		t.Errorf("LABEL %v, Build has %v", labels, want.Labels)
	}

	hc := only(t, final, "HEALTHCHECK")
	flags, test, ok := strings.Cut(hc, " CMD ")
	if !ok {
		t.Fatalf("HEALTHCHECK %s: want flags then CMD [...]", hc)
	}
	if got := append([]string{"CMD"}, jsonArgs(t, "HEALTHCHECK CMD", test)...); !slices.Equal(got, want.Healthcheck.Test) {
		t.Errorf("HEALTHCHECK test %q, Build has %q", got, want.Healthcheck.Test)
	}
	seen := map[string]string{}
	for _, f := range strings.Fields(flags) {
		k, v, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		seen[k] = v
	}
	for _, d := range []struct {
		flag string
		want time.Duration
	}{{"interval", want.Healthcheck.Interval}, {"timeout", want.Healthcheck.Timeout}} {
		if got, err := time.ParseDuration(seen[d.flag]); err != nil || got != d.want {
			t.Errorf("HEALTHCHECK --%s=%s, Build has %s", d.flag, seen[d.flag], d.want)
		}
	}
	if got := seen["retries"]; got != strconv.Itoa(want.Healthcheck.Retries) {
		t.Errorf("HEALTHCHECK --retries=%s, Build has %d", got, want.Healthcheck.Retries)
	}

	// The data directory is made nonroot's in the build stage and copied so.
	var copiesData bool
	for _, in := range final {
		if in.cmd == "COPY" && strings.Contains(in.args, "--chown=65532:65532") && strings.HasSuffix(in.args, " "+DataDir) {
			copiesData = true
		}
	}
	if !copiesData {
		t.Errorf("final stage does not COPY %s owned by 65532:65532", DataDir)
	}

	// The build stage builds as .ci/release does, by running it.
	var release string
	for _, in := range build {
		if in.cmd == "RUN" && strings.Contains(in.args, ".ci/release") {
			release = in.args
		}
	}
	for _, part := range []string{"GOOS=${TARGETOS}", "GOARCH=${TARGETARCH}", "VERSION=${VERSION}", ".ci/release /out/instantstart", "install -d -m 0750 /out/data"} {
		if !strings.Contains(release, part) {
			t.Errorf("build stage's release build %q lacks %s", release, part)
		}
	}
	script, err := os.ReadFile(filepath.Join("..", "..", "..", ".ci", "release"))
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"CGO_ENABLED=0", "-trimpath", `-ldflags "-s -w -X main.version=$version"`, "version=${VERSION:-"} {
		if !strings.Contains(string(script), part) {
			t.Errorf(".ci/release lacks %s", part)
		}
	}
}

// TestDockerfileGoVersion keeps the build stage's Go on go.mod's go line.
func TestDockerfileGoVersion(t *testing.T) {
	build, _ := readDockerfile(t)
	mod, err := os.ReadFile(filepath.Join("..", "..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	// The ARG before the first FROM is global; readDockerfile puts it first in build.
	want := "GO_VERSION=" + string(m[1])
	if arg := build[0]; arg.cmd != "ARG" || arg.args != want {
		t.Errorf("Dockerfile starts %s %s, want ARG %s from go.mod", arg.cmd, arg.args, want)
	}
	if from := build[1]; from.cmd != "FROM" || !strings.Contains(from.args, "golang:${GO_VERSION} AS build") {
		t.Errorf("build stage %s %s, want FROM golang:${GO_VERSION} AS build", from.cmd, from.args)
	}
}

// ignorePattern is one pattern of a .dockerignore file.
type ignorePattern struct {
	re     *regexp.Regexp
	except bool // a ! pattern, which puts back what earlier ones left out
}

// readDockerignore reads deploy/Dockerfile.dockerignore, the ignore file
// BuildKit takes for deploy/Dockerfile, as BuildKit reads one: lines
// starting with # are comments, each pattern is trimmed and cleaned and
// loses a leading slash (patterns are relative to the context's root), and
// ! marks an exception.
func readDockerignore(t *testing.T) []ignorePattern {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile.dockerignore"))
	if err != nil {
		t.Fatalf("deploy/Dockerfile builds from the repository root, so it needs its ignore file: %v", err)
	}
	return parseDockerignore(t, string(b))
}

// parseDockerignore reads the patterns of an ignore file's text.
func parseDockerignore(t *testing.T, text string) []ignorePattern {
	t.Helper()
	var out []ignorePattern
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.TrimSpace(line)
		if p == "" {
			continue
		}
		except := strings.HasPrefix(p, "!")
		if except {
			p = strings.TrimSpace(p[1:])
		}
		p = filepath.ToSlash(filepath.Clean(p))
		if len(p) > 1 && p[0] == '/' {
			p = p[1:]
		}
		out = append(out, ignorePattern{re: ignoreRegexp(t, p), except: except})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// ignoreRegexp turns a cleaned pattern into the regular expression BuildKit
// matches paths with: * is any run of characters but /, ? one of them, ** any
// number of directories (a trailing ** anything at all).
func ignoreRegexp(t *testing.T, p string) *regexp.Regexp {
	t.Helper()
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				i++
				if i+1 < len(p) && p[i+1] == '/' {
					i++
				}
				if i+1 == len(p) {
					re.WriteString(".*")
				} else {
					re.WriteString("(.*/)?")
				}
			} else {
				re.WriteString("[^/]*")
			}
		case '?':
			re.WriteString("[^/]")
		case '[', '\\':
			t.Fatalf("ignore pattern %q: this test does not read %q; extend ignoreRegexp", p, c)
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	return regexp.MustCompile(re.String())
}

// ignored says whether the build context leaves out name (slash-separated,
// relative to the repository root): the last pattern that matches it, or a
// directory it is in, decides.
func ignored(patterns []ignorePattern, name string) bool {
	out := false
	for _, p := range patterns {
		match := p.re.MatchString(name)
		for dir := path.Dir(name); !match && dir != "."; dir = path.Dir(dir) {
			match = p.re.MatchString(dir)
		}
		if match {
			out = !p.except
		}
	}
	return out
}

// buildInputs are the files of the repository that the Dockerfile's go build
// reads (for linux, without cgo): go.mod, go.sum, and the Go and embedded
// files of the module's packages the binary is built from.
func buildInputs(t *testing.T) []string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-json=Dir,GoFiles,EmbedFiles,Module", ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v\n%s", err, stderr.Bytes())
	}
	inputs := []string{"go.mod", "go.sum"}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var pkg struct {
			Dir                 string
			GoFiles, EmbedFiles []string
			Module              *struct{ Main bool }
		}
		if err := dec.Decode(&pkg); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list -deps .: %v", err)
		}
		if pkg.Module == nil || !pkg.Module.Main {
			continue
		}
		rel, err := filepath.Rel(root, pkg.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range append(pkg.GoFiles, pkg.EmbedFiles...) {
			inputs = append(inputs, path.Join(filepath.ToSlash(rel), f))
		}
	}
	return inputs
}

// TestDockerignoreKeepsSecretsOutAndTheBuildIn: the build context is the
// repository root, where a developer's store (with the admin token), build
// output and node_modules sit; the ignore file leaves them out and keeps
// every file go build reads.
func TestDockerignoreKeepsSecretsOutAndTheBuildIn(t *testing.T) {
	patterns := readDockerignore(t)
	for _, name := range []string{
		".git", ".git/config",
		"data", "data/admin-token", "data/records/x.json",
		"admin-token", "somewhere/else/admin-token",
		"dist", "dist/instantstart",
		"instantstart",
		"frontend/node_modules", "frontend/node_modules/vite/package.json",
		"test-results", "test-results/ui/home.png",
		"serve.log", "frontend/e2e/run.log",
	} {
		if !ignored(patterns, name) {
			t.Errorf("the build context keeps %s: leave it out in deploy/Dockerfile.dockerignore", name)
		}
	}

	inputs := buildInputs(t)
	var ui, generated int
	for _, name := range inputs {
		if ignored(patterns, name) {
			t.Errorf("deploy/Dockerfile.dockerignore leaves out %s, which go build reads", name)
		}
		if strings.HasPrefix(name, "frontend/dist/") {
			ui++
		}
		if strings.HasPrefix(name, "graph/") {
			generated++
		}
	}
	// The check above covers the embedded UI and the generated code only if
	// go list named them.
	if ui == 0 || generated == 0 {
		t.Errorf("go list named %d files of frontend/dist and %d of graph/ among the build's %d: the check does not see the embedded UI and the generated code", ui, generated, len(inputs))
	}
	for _, dir := range []string{"frontend/dist", "graph"} {
		if ignored(patterns, dir) {
			t.Errorf("deploy/Dockerfile.dockerignore leaves out %s, which the build embeds", dir)
		}
	}
}

// The reading of ignore patterns above is BuildKit's in the ways the ignore
// file relies on.
func TestIgnoredFollowsBuildKit(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		name     string
		want     bool
	}{
		{[]string{"dist/"}, "dist/a", true},
		{[]string{"dist/"}, "frontend/dist/index.html", false}, // patterns start at the root
		{[]string{"/instantstart"}, "instantstart", true},
		{[]string{"/instantstart"}, "cmd/instantstart", false},
		{[]string{"**/admin-token"}, "admin-token", true},
		{[]string{"**/admin-token"}, "a/b/admin-token", true},
		{[]string{"**/*.log"}, "x.log", true},
		{[]string{"**/*.log"}, "a/x.log", true},
		{[]string{"*.log"}, "a/x.log", false},
		{[]string{"data/", "!data/keep"}, "data/keep", false},
		{[]string{"data/", "!data/keep"}, "data/other", true},
		{[]string{"# data/", " data/ "}, "data/x", true}, // a comment, then a padded pattern
		{[]string{"# data/"}, "data/x", false},
	} {
		if got := ignored(parseDockerignore(t, strings.Join(c.patterns, "\n")), c.name); got != c.want {
			t.Errorf("patterns %q: %s ignored = %v, want %v", c.patterns, c.name, got, c.want)
		}
	}
}
