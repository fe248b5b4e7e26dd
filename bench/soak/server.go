package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// server runs the real binary on the simulator, on one data directory and
// one address, and kills and starts it again.
type server struct {
	bin, dataDir, addr, token string
	args                      []string
	log                       io.Writer

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	starts int
}

// buildBinary builds the module's main package into dir and returns the
// binary's path. It runs from the module's root, found by go env GOMOD.
func buildBinary(ctx context.Context, dir string) (string, error) {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find the module: %w", err)
	}
	root := filepath.Dir(string(trimNewline(gomod)))
	if root == "." || root == "" {
		return "", errors.New("go env GOMOD names no module: run the soak inside the repository, or give -bin")
	}
	bin := filepath.Join(dir, "instantstart")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("go build the server: %w", err)
	}
	return bin, nil
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// freeAddr returns a loopback address no one listens on now. The server
// takes it at each start: a SIGKILLed listener leaves nothing that holds
// the port.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// start starts the binary and waits until it is ready, for at most wait.
func (s *server) start(ctx context.Context, wait time.Duration) error {
	s.mu.Lock()
	args := append([]string{"--provider", "sim", "--listen", s.addr, "--data-dir", s.dataDir, "--log-level", "warn"}, s.args...)
	cmd := exec.Command(s.bin, args...)
	cmd.Env = append(os.Environ(), "INSTANTSTART_ADMIN_TOKEN="+s.token)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.cmd, s.exited = cmd, exited
	s.starts++
	s.mu.Unlock()

	deadline := time.Now().Add(wait)
	hc := &http.Client{Timeout: 2 * time.Second}
	for delay := 20 * time.Millisecond; ; delay = min(2*delay, 500*time.Millisecond) {
		resp, err := hc.Get("http://" + s.addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			return fmt.Errorf("the server exited while starting (%v); see its log", cmd.ProcessState)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server was not ready within %s; see its log", wait)
		}
	}
}

// kill sends SIGKILL and waits for the process to end: no clean shutdown.
func (s *server) kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	<-s.exited
	s.cmd = nil
	return nil
}

// stop asks the server to shut down cleanly and waits for it, killing it
// after wait.
func (s *server) stop(wait time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	defer func() { s.cmd = nil }()
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
		return err
	}
	select {
	case <-s.exited:
		if !s.cmd.ProcessState.Success() {
			return fmt.Errorf("the server's clean shutdown ended %v", s.cmd.ProcessState)
		}
		return nil
	case <-time.After(wait):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("the server did not stop within %s of SIGINT", wait)
	}
}
