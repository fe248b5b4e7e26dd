// Package kumotest runs kumo, an independent AWS emulator (EC2, IAM, EKS,
// STS, S3), as a child process for the integration tier, which drives the
// real --provider aws SDK clients against it as a cross-check of the
// project's own simulator. The binary is built by .ci/kumo (never a
// dependency of this module) and named by KUMO_BIN.
package kumotest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

// BinEnv names the environment variable that holds the kumo binary's path.
const BinEnv = "KUMO_BIN"

// BuildHint says how to get a kumo binary.
const BuildHint = `build kumo with .ci/kumo and name it: export KUMO_BIN="$(.ci/kumo | tail -n 1)"`

// Bin returns the kumo binary named by KUMO_BIN, or an error that says how
// to build it when the variable is unset or names no executable file.
func Bin() (string, error) {
	bin := os.Getenv(BinEnv)
	if bin == "" {
		return "", fmt.Errorf("%s is not set: %s", BinEnv, BuildHint)
	}
	st, err := os.Stat(bin)
	if err != nil {
		return "", fmt.Errorf("%s=%s: %v; %s", BinEnv, bin, err, BuildHint)
	}
	if st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s=%s is not an executable file; %s", BinEnv, bin, BuildHint)
	}
	return bin, nil
}

// Server is a running kumo process.
type Server struct {
	// URL is the endpoint that serves every emulated service.
	URL  string
	cmd  *exec.Cmd
	done chan error
}

// Start runs bin with dataDir as the folder kumo loads its state from and
// waits, up to timeout, for it to print the URL it serves on. Its log goes
// to logTo (nil for none).
func Start(bin, dataDir string, logTo io.Writer, timeout time.Duration) (*Server, error) {
	cmd := exec.Command(bin, "-listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "KUMO_DATA_DIR="+dataDir)
	endWithParent(cmd)
	if logTo == nil {
		logTo = io.Discard
	}
	cmd.Stderr = logTo
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &Server{cmd: cmd, done: make(chan error, 1)}
	first := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(out)
		announced := false
		for lines.Scan() {
			if !announced {
				first <- strings.TrimSpace(lines.Text())
				announced = true
				continue
			}
			fmt.Fprintln(logTo, lines.Text())
		}
		if !announced {
			close(first)
		}
		s.done <- cmd.Wait()
	}()
	select {
	case url, ok := <-first:
		if !ok || !strings.HasPrefix(url, "http://") {
			s.Stop()
			return nil, fmt.Errorf("%s did not print the URL it serves on (got %q)", bin, url)
		}
		s.URL = url
		return s, nil
	case <-time.After(timeout):
		s.Stop()
		return nil, fmt.Errorf("%s printed no URL within %s", bin, timeout)
	}
}

// Stop ends the process (SIGTERM, then SIGKILL after five seconds) and
// waits for it.
func (s *Server) Stop() {
	if s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// managedPolicy is one AWS-managed IAM policy as kumo stores it in its
// data folder (iam.json).
type managedPolicy struct {
	PolicyName       string
	PolicyID         string
	Arn              string
	Path             string
	DefaultVersionID string
	IsAttachable     bool
	CreateDate       time.Time
	UpdateDate       time.Time
	Description      string
	PolicyDocument   string
}

// SeedManagedPolicies writes kumo's IAM state into dataDir with the
// AWS-managed policies arns (ARNs that start with arn:aws:iam::aws:policy/),
// which kumo does not know of otherwise: AttachRolePolicy refuses a policy
// it has not seen. It must run before kumo starts.
func SeedManagedPolicies(dataDir string, arns []string) error {
	policies := map[string]managedPolicy{}
	for i, arn := range arns {
		name, ok := strings.CutPrefix(arn, managedPrefix)
		if !ok || name == "" {
			return fmt.Errorf("%q is not an AWS-managed policy ARN (%sNAME)", arn, managedPrefix)
		}
		created := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
		policies[arn] = managedPolicy{
			PolicyName: name, PolicyID: fmt.Sprintf("ANPAKUMOSEED%08d", i), Arn: arn, Path: "/", DefaultVersionID: "v1",
			IsAttachable: true, CreateDate: created, UpdateDate: created, Description: "AWS managed policy (seeded)",
			PolicyDocument: `{"Version":"2012-10-17","Statement":[]}`,
		}
	}
	raw, err := json.MarshalIndent(map[string]any{"policies": policies}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dataDir, "iam.json"), raw, 0o644)
}

const managedPrefix = "arn:aws:iam::aws:policy/"

var managedARN = regexp.MustCompile(`arn:aws:iam::aws:policy/[A-Za-z0-9_+=,.@-]+`)

// ManagedPolicies returns, sorted, every AWS-managed policy ARN written
// out in the Go sources (tests excluded) under root: the policies the
// engine attaches, so that the seed cannot fall behind the code.
func ManagedPolicies(root string) ([]string, error) {
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range managedARN.FindAll(src, -1) {
			seen[string(m)] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(seen) == 0 {
		return nil, errors.New("no AWS-managed policy ARN found under " + root)
	}
	var out []string
	for arn := range seen {
		out = append(out, arn)
	}
	slices.Sort(out)
	return out, nil
}
