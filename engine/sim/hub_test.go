package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/cloud"
)

// TestHubAnswersAsHuggingFace reads models as the control plane does: a
// public model's files at main and at its commit, the hub's refusals with
// their statuses, and a 401 fault that refuses a good token.
func TestHubAnswersAsHuggingFace(t *testing.T) {
	f := newFixture(t)
	good := "hf_" + strings.Repeat("a", 34)
	m := ok(f.p.Hub.Model(f.ctx, "Qwen/Qwen3-8B", "main", "")).must(t)
	if len(m.Commit) != 40 || len(m.Files) != 12 || m.Files[0].Path != ".gitattributes" {
		t.Fatalf("Qwen/Qwen3-8B at main: %+v", m)
	}
	var shards, index int
	for _, file := range m.Files {
		if strings.HasSuffix(file.Path, ".safetensors") {
			shards++
		}
		if file.Path == "model.safetensors.index.json" {
			index++
		}
	}
	if shards != 5 || index != 1 {
		t.Errorf("%d shards and %d index files", shards, index)
	}
	if at := ok(f.p.Hub.Model(f.ctx, "Qwen/Qwen3-8B", m.Commit, "")).must(t); at.Commit != m.Commit {
		t.Errorf("at its commit: %s", at.Commit)
	}
	for _, c := range []struct {
		id, revision, token string
		status              int
	}{
		{"nobody/nothing", "main", "", 404},
		{"Qwen/Qwen3-8B", "v99", "", 404},
		{"meta-llama/Llama-3.1-8B-Instruct", "main", "", 401},
		{"meta-llama/Llama-3.1-8B-Instruct", "main", "hf_short", 401},
	} {
		_, err := f.p.Hub.Model(f.ctx, c.id, c.revision, c.token)
		var he *cloud.HubError
		if !errors.As(err, &he) || he.Status != c.status {
			t.Errorf("%s@%s: %v, want %d", c.id, c.revision, err, c.status)
		}
	}
	if _, err := f.w.InjectFault(Fault{Kind: FaultError, Service: svcHub, Operation: "GetModel", Code: "401", Count: 1}); err != nil {
		t.Fatal(err)
	}
	var he *cloud.HubError
	if _, err := f.p.Hub.Model(f.ctx, "meta-llama/Llama-3.1-8B-Instruct", "main", good); !errors.As(err, &he) || he.Status != 401 {
		t.Fatalf("with a 401 fault: %v", err)
	}
	if _, err := f.p.Hub.Model(f.ctx, "meta-llama/Llama-3.1-8B-Instruct", "main", good); err != nil {
		t.Fatalf("once the fault is spent: %v", err)
	}
}
