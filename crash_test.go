package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKillMidOperationAndResume starts the real binary, creates a cluster,
// kills the process with SIGKILL while a phase is WAITING (twice: during the
// EKS control plane and during the HyperPod cluster), starts it again on the
// same data directory, and checks that the operation finishes with each
// create call made exactly once.
//
// The simulator holds each cluster in its creating state (a hold fault)
// until the test has killed and restarted the process, so the kills land
// while the phases wait however slow the machine is; the holds live in the
// simulated world, which survives the restarts.
func TestKillMidOperationAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	data := filepath.Join(dir, "data")

	srv := startBinary(t, bin, data)
	holds := map[string]string{ // phase -> the fault that holds its resource creating
		"eks-cluster":      srv.injectFault(t, "hold:id=hold-eks,service=eks,operation=CreateCluster"),
		"hyperpod-cluster": srv.injectFault(t, "hold:id=hold-hyperpod,service=sagemaker,operation=CreateCluster"),
	}
	var created struct {
		CreateCluster struct{ ID string } `json:"createCluster"`
	}
	srv.graphql(t, `mutation { createCluster(input: {name: "crash", region: "us-west-2", zones: ["us-west-2a", "us-west-2b"],
		instanceGroups: [{name: "gpu", instanceType: "ml.p5.48xlarge", count: 2, zone: "us-west-2a"}]}) { id } }`, &created)
	opID := created.CreateCluster.ID

	for _, phase := range []string{"eks-cluster", "hyperpod-cluster"} {
		srv.waitPhase(t, opID, phase, "WAITING")
		srv.kill(t)
		srv = startBinary(t, bin, data)
		// Resumed, the phase Observes the held cluster and waits on: its
		// deadline does not count the time the process was down.
		srv.waitPhase(t, opID, phase, "WAITING")
		srv.clearFault(t, holds[phase])
	}
	status := srv.waitEnd(t, opID)
	if status != "SUCCEEDED" {
		t.Fatalf("operation ended %s after restarts", status)
	}
	var calls map[string]map[string]int
	srv.getJSON(t, "/sim/calls", &calls)
	if calls["sagemaker"]["CreateCluster"] != 1 || calls["eks"]["CreateCluster"] != 1 {
		t.Fatalf("create calls across restarts: sagemaker %d, eks %d; want 1 each", calls["sagemaker"]["CreateCluster"], calls["eks"]["CreateCluster"])
	}
	srv.stop(t)
}

// crashAdmin is the admin token the test gives the binary.
var crashAdmin = "isk_" + strings.Repeat("C", 42) + "A"

// buildBinary builds the instantstart command into dir.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "instantstart")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("build: %v", err)
	}
	return bin
}

type binary struct {
	cmd  *exec.Cmd
	base string
	out  *bytes.Buffer
}

func startBinary(t *testing.T, bin, data string) *binary {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	out := &bytes.Buffer{}
	cmd := exec.Command(bin, "--listen", addr, "--data-dir", data, "--sim-speed", "150", "--region", "us-west-2")
	cmd.Env = append(os.Environ(), "INSTANTSTART_ADMIN_TOKEN="+crashAdmin)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &binary{cmd: cmd, base: "http://" + addr, out: out}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() {
			t.Logf("server output:\n%s", out.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(b.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return b
			}
		}
		time.Sleep(20 * time.Millisecond) // polling for start-up, with a deadline
	}
	t.Fatalf("server did not become ready:\n%s", out.String())
	return nil
}

func (b *binary) kill(t *testing.T) {
	t.Helper()
	if err := b.cmd.Process.Kill(); err != nil { // SIGKILL: no clean shutdown
		t.Fatal(err)
	}
	_ = b.cmd.Wait()
}

func (b *binary) stop(t *testing.T) {
	t.Helper()
	if err := b.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Wait(); err != nil {
		t.Fatalf("clean shutdown: %v\n%s", err, b.out.String())
	}
}

func (b *binary) graphql(t *testing.T, query string, into any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, b.base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+crashAdmin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out.Errors) > 0 {
		t.Fatalf("graphql errors: %+v", out.Errors)
	}
	if err := json.Unmarshal(out.Data, into); err != nil {
		t.Fatal(err)
	}
}

// injectFault injects a simulator fault given in the --sim-fault syntax
// and returns its id.
func (b *binary) injectFault(t *testing.T, spec string) string {
	t.Helper()
	var f struct{ ID string }
	b.send(t, http.MethodPost, "/sim/faults?spec="+url.QueryEscape(spec), http.StatusCreated, &f)
	if f.ID == "" {
		t.Fatalf("injecting %s returned no fault id", spec)
	}
	return f.ID
}

// clearFault clears the simulator fault id.
func (b *binary) clearFault(t *testing.T, id string) {
	t.Helper()
	b.send(t, http.MethodDelete, "/sim/faults/"+url.PathEscape(id), http.StatusNoContent, nil)
}

// send makes an authenticated request without a body, checks its status
// and decodes the answer into into, unless into is nil.
func (b *binary) send(t *testing.T, method, path string, want int, into any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), method, b.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+crashAdmin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %s %s, want %d", method, path, resp.Status, body, want)
	}
	if into != nil {
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatal(err)
		}
	}
}

func (b *binary) getJSON(t *testing.T, path string, into any) {
	t.Helper()
	b.send(t, http.MethodGet, path, http.StatusOK, into)
}

type opState struct {
	WaitOperation struct {
		Status string
		Phases []struct{ Name, Status string }
	} `json:"waitOperation"`
}

func (b *binary) wait(t *testing.T, id string) opState {
	var st opState
	b.graphql(t, fmt.Sprintf(`{ waitOperation(id: %q, timeoutSeconds: 5) { status phases { name status } } }`, id), &st)
	return st
}

func (b *binary) waitPhase(t *testing.T, id, phase, status string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		st := b.wait(t, id)
		for _, p := range st.WaitOperation.Phases {
			if p.Name == phase && p.Status == status {
				return
			}
		}
		if st.WaitOperation.Status != "RUNNING" && st.WaitOperation.Status != "QUEUED" {
			t.Fatalf("operation ended %s before phase %s was %s", st.WaitOperation.Status, phase, status)
		}
	}
	t.Fatalf("phase %s never reached %s", phase, status)
}

func (b *binary) waitEnd(t *testing.T, id string) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		st := b.wait(t, id)
		switch st.WaitOperation.Status {
		case "SUCCEEDED", "FAILED", "CANCELLED":
			return st.WaitOperation.Status
		}
	}
	t.Fatalf("operation %s did not end", id)
	return ""
}
