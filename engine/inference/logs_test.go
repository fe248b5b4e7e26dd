package inference_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/podlogs"
	"github.com/instantstart/instantstart/engine/sim"
)

// TestEndpointLogsInterleaveItsReplicas reads a READY two-replica vLLM
// endpoint's log: every replica's start-up and load lines, each with its
// pod's name, or one pod's; a pod that is not the endpoint's and a tail
// out of bounds are refused naming the argument.
func TestEndpointLogsInterleaveItsReplicas(t *testing.T) {
	f := newFixture(t)
	in := f.vllm("chat", inference.ClusterIP)
	in.Replicas = 2
	e := f.ready(t, f.deploy(t, in).ID)
	if len(e.Pods) != 2 {
		t.Fatalf("pods %+v, want 2", e.Pods)
	}
	ctx := context.Background()
	all, err := f.svc.ReadLogs(ctx, e.ID, podlogs.Request{Tail: 100}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range e.Pods {
		mine := slices.DeleteFunc(slices.Clone(all.Lines), func(l podlogs.PodLine) bool { return l.Pod != p.Name })
		if len(mine) == 0 || !strings.Contains(mine[0].Text, "vLLM API server version") || mine[len(mine)-1].Text != "INFO:     Application startup complete." {
			t.Fatalf("pod %s's lines: %+v", p.Name, mine)
		}
	}
	one, err := f.svc.ReadLogs(ctx, e.ID, podlogs.Request{Pod: e.Pods[1].Name, Tail: 2}, "startup")
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Lines) != 1 || one.Lines[0].Pod != e.Pods[1].Name || one.End != podlogs.Done {
		t.Fatalf("one pod's last two lines with startup: %+v", one)
	}
	_, err = f.svc.ReadLogs(ctx, e.ID, podlogs.Request{Pod: "someone-else-0", Tail: 10}, "")
	wantCode(t, err, errs.NotFound, "pod", "has no pod someone-else-0", e.Pods[0].Name)
	_, err = f.svc.Logs(ctx, e.ID, podlogs.Request{Tail: podlogs.MaxTail + 1})
	wantCode(t, err, errs.Validation, "tail", "10000")
	_, err = f.svc.ReadLogs(ctx, e.ID, podlogs.Request{Tail: 1}, strings.Repeat("x", 201))
	wantCode(t, err, errs.Validation, "contains")
	_, err = f.svc.Logs(ctx, "no-such-endpoint", podlogs.Request{Tail: 1})
	wantCode(t, err, errs.NotFound, "endpointId")
}

// TestEndpointLogViewersShareOneStream follows one endpoint's log with
// several viewers: the simulated API server opens the pod's log once.
func TestEndpointLogViewersShareOneStream(t *testing.T) {
	f := newFixture(t)
	e := f.ready(t, f.deploy(t, f.vllm("chat", inference.ClusterIP)).ID)
	before := f.world.Calls()["kubernetes"]["get pods/log"]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const viewers = 4
	for i := range viewers {
		in, err := f.svc.Logs(ctx, e.ID, podlogs.Request{Tail: 3, Follow: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []podlogs.PodLine
		deadline := time.After(30 * time.Second)
		for len(got) < 3 {
			select {
			case c := <-in:
				got = append(got, c.Lines...)
			case <-deadline:
				t.Fatalf("viewer %d: %d lines, want 3", i, len(got))
			}
		}
		if got[2].Pod != e.Pods[0].Name || got[2].Text != "INFO:     Application startup complete." {
			t.Fatalf("viewer %d's lines: %+v", i, got)
		}
	}
	if n := f.world.Calls()["kubernetes"]["get pods/log"] - before; n != 1 {
		t.Fatalf("%d viewers opened the pod's log %d times, want once", viewers, n)
	}
}

// TestEndpointLogsShowTheOutOfMemoryError reads the log of a replica
// whose model did not fit its GPUs: the torch error that ended the load.
func TestEndpointLogsShowTheOutOfMemoryError(t *testing.T) {
	f := newFixture(t)
	fault, err := sim.ParseFault("gpuoom:deployment=vllm-oom")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.world.InjectFault(fault); err != nil {
		t.Fatal(err)
	}
	e := f.until(t, f.deploy(t, f.vllm("oom", inference.ClusterIP)).ID, "FAILED", func(e *inference.Endpoint) bool { return e.Status == inference.Failed })
	got, err := f.svc.ReadLogs(context.Background(), e.ID, podlogs.Request{Tail: 100}, "outofmemoryerror")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Lines) == 0 || !strings.Contains(got.Lines[0].Text, "torch.OutOfMemoryError: CUDA out of memory") {
		t.Fatalf("lines with OutOfMemoryError: %+v", got.Lines)
	}
}
