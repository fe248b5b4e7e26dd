package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
)

// clearEnv unsets every variable serve reads (every INSTANTSTART_ one, and
// AWS_REGION), so the machine's own settings do not leak into a test.
func clearEnv(t *testing.T) {
	t.Setenv("AWS_REGION", "")
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "INSTANTSTART_") {
			t.Setenv(k, "")
		}
	}
}

func TestServeFlags(t *testing.T) {
	clearEnv(t)
	t.Setenv("INSTANTSTART_LISTEN", "127.0.0.1:4000")
	t.Setenv("INSTANTSTART_SIM_SPEED", "100")
	t.Setenv("AWS_REGION", "eu-west-1")

	f, err := parseServeFlags([]string{"--listen", "127.0.0.1:5000", "--sim-fault", "capacity:zone=us-east-1a", "--sim-fault", "throttle:service=eks"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if f.listen != "127.0.0.1:5000" {
		t.Errorf("listen = %q: the flag must win over the environment", f.listen)
	}
	if f.simSpeed != 100 {
		t.Errorf("sim speed = %v, want 100 from INSTANTSTART_SIM_SPEED", f.simSpeed)
	}
	if f.region != "eu-west-1" {
		t.Errorf("region = %q, want AWS_REGION when INSTANTSTART_REGION is unset", f.region)
	}
	if f.dataDir != "./data" || f.provider != "sim" || len(f.faults) != 2 || f.faults[0].Zone != "us-east-1a" {
		t.Errorf("parsed %+v", f)
	}

	t.Setenv("INSTANTSTART_SIM_FAULT", "capacity:zone=us-east-1b; quota:instanceType=ml.p5.48xlarge,value=0")
	f, err = parseServeFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.faults) != 2 || f.faults[0].Zone != "us-east-1b" || f.faults[1].Kind != "quota" {
		t.Errorf("faults from INSTANTSTART_SIM_FAULT = %+v", f.faults)
	}
	f, err = parseServeFlags([]string{"--sim-fault", "throttle:service=iam"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.faults) != 1 || f.faults[0].Service != "iam" {
		t.Errorf("--sim-fault must replace INSTANTSTART_SIM_FAULT, got %+v", f.faults)
	}
	// A hold keeps what a test wants to catch in its creating state.
	f, err = parseServeFlags([]string{"--sim-fault", "hold:id=hold-hp,service=sagemaker,operation=CreateCluster"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.faults) != 1 || f.faults[0].Kind != "hold" || f.faults[0].ID != "hold-hp" || f.faults[0].Operation != "CreateCluster" {
		t.Errorf("--sim-fault hold:... = %+v", f.faults)
	}
}

func TestSimAWSListenFlag(t *testing.T) {
	clearEnv(t)
	t.Setenv("INSTANTSTART_SIM_AWS_LISTEN", "127.0.0.1:4566")
	f, err := parseServeFlags(nil, io.Discard)
	if err != nil || f.simAWS != "127.0.0.1:4566" {
		t.Fatalf("from INSTANTSTART_SIM_AWS_LISTEN: %+v, %v", f, err)
	}
	f, err = parseServeFlags([]string{"--sim-aws-listen", "[::1]:4567"}, io.Discard)
	if err != nil || f.simAWS != "[::1]:4567" {
		t.Fatalf("--sim-aws-listen must win over the environment: %+v, %v", f, err)
	}
}

func TestBadInvocationsExitWithUsage(t *testing.T) {
	clearEnv(t)
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{args: []string{"--provider", "gcp"}, want: "--provider"},
		{args: []string{"--sim-speed", "fast"}, want: "--sim-speed"},
		{args: []string{"--sim-speed", "-3"}, want: "--sim-speed"},
		{args: nil, env: map[string]string{"INSTANTSTART_SIM_SPEED": "0"}, want: "INSTANTSTART_SIM_SPEED"},
		{args: []string{"--sim-fault", "flood"}, want: "unknown fault kind"},
		{args: nil, env: map[string]string{"INSTANTSTART_SIM_FAULT": "capacity;flood"}, want: "INSTANTSTART_SIM_FAULT"},
		{args: []string{"--log-format", "xml"}, want: "--log-format"},
		{args: []string{"--log-level", "loud"}, want: "--log-level"},
		{args: []string{"--provider", "aws", "--sim-fault", "capacity:zone=us-east-1a"}, want: "--sim-fault"},
		{args: []string{"--provider", "aws", "--sim-aws-listen", "127.0.0.1:4566"}, want: "--sim-aws-listen"},
		{args: []string{"--sim-aws-listen", "0.0.0.0:4566"}, want: "not loopback"},
		{args: []string{"--helm-chart-dir", "/tmp"}, want: "--helm-chart-dir"},
		{args: nil, env: map[string]string{"INSTANTSTART_SIM_AWS_LISTEN": "4566"}, want: "INSTANTSTART_SIM_AWS_LISTEN"},
		{args: []string{"--no-such-flag"}, want: "no-such-flag"},
		{args: []string{"serve", "extra"}, want: "unexpected arguments"},
		{args: []string{"frobnicate"}, want: "unknown command"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stderr strings.Builder
			if code := run(tt.args, strings.NewReader(""), io.Discard, &stderr); code != exitUsage {
				t.Errorf("exit code = %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr = %q, want it to mention %q", stderr.String(), tt.want)
			}
		})
	}
}

func TestHelpExitsZero(t *testing.T) {
	clearEnv(t)
	for _, args := range [][]string{{"-h"}, {"serve", "-h"}, {"help"}} {
		var stderr strings.Builder
		if code := run(args, strings.NewReader(""), io.Discard, &stderr); code != exitOK || !strings.Contains(stderr.String(), "serve") {
			t.Errorf("%v: exit %d, output %q", args, code, stderr.String())
		}
	}
}

func TestVersionPrintsTheStampedVersion(t *testing.T) {
	old := version
	version = "v1.2.3"
	t.Cleanup(func() { version = old })
	var out strings.Builder
	if code := run([]string{"version"}, strings.NewReader(""), &out, io.Discard); code != exitOK {
		t.Fatalf("exit code %d", code)
	}
	if want := "instantstart v1.2.3 " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH; !strings.HasPrefix(out.String(), want) {
		t.Fatalf("version printed %q, want it to start with %q", out.String(), want)
	}
}

func TestHealthcheckAsksHealthz(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	if code := run([]string{"healthcheck", "--url", srv.URL}, strings.NewReader(""), io.Discard, io.Discard); code != exitOK {
		t.Errorf("a healthy server: exit code %d, want 0", code)
	}
	status = http.StatusServiceUnavailable
	var stderr strings.Builder
	if code := run([]string{"healthcheck", "--url", srv.URL + "/"}, strings.NewReader(""), io.Discard, &stderr); code != exitError || !strings.Contains(stderr.String(), "503") {
		t.Errorf("an unhealthy server: exit code %d, %q; want 1 naming the 503", code, stderr.String())
	}
	srv.Close()
	if code := run([]string{"healthcheck", "--url", srv.URL}, strings.NewReader(""), io.Discard, io.Discard); code != exitError {
		t.Errorf("no server: exit code %d, want 1", code)
	}
	if code := run([]string{"healthcheck", "extra"}, strings.NewReader(""), io.Discard, io.Discard); code != exitUsage {
		t.Errorf("an extra argument: exit code %d, want 2", code)
	}
}
