package ociimage

import (
	"encoding/json"
	"os"
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

	var goBuild string
	for _, in := range build {
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			goBuild = in.args
		}
	}
	for _, part := range []string{"CGO_ENABLED=0", "-trimpath", `-ldflags "-s -w -X main.version=${VERSION}"`, "install -d -m 0750 /out/data"} {
		if !strings.Contains(goBuild, part) {
			t.Errorf("build stage's go build %q lacks %s", goBuild, part)
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
