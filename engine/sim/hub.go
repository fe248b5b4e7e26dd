package sim

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/cloud"
)

// The simulated Hugging Face Hub: a fixed catalog of models, each at one
// commit that its branch main and its full commit id name. A token is
// what Hugging Face issues, hf_ and at least 30 letters and digits; a
// gated model needs one (401 without). An unknown model or revision is
// 404. Faults reach it as service "huggingface": operation "GetModel" for
// the control plane's metadata read, "Download" for a pod's download,
// which fails part way (a network failure; a retry resumes), and an
// error fault with code 401 refuses the token whatever it is.

const svcHub = "huggingface"

// hubModel is one model of the catalog.
type hubModel struct {
	id    string
	gated bool
	// shards are the sizes of its safetensors shards, in bytes.
	shards []int64
}

// hubCatalog is what the simulated hub holds: small and large models, two
// of them gated as Meta's and Mistral's are.
var hubCatalog = []hubModel{
	{id: "Qwen/Qwen2.5-0.5B-Instruct", shards: []int64{988_097_824}},
	{id: "Qwen/Qwen3-8B", shards: []int64{3_996_250_744, 3_993_160_032, 3_959_502_904, 3_187_919_728, 1_244_659_840}},
	{id: "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", shards: []int64{3_554_214_752}},
	{id: "meta-llama/Llama-3.1-8B-Instruct", gated: true, shards: []int64{4_976_698_672, 4_999_802_720, 4_915_916_176, 1_168_138_808}},
	{id: "mistralai/Mistral-7B-Instruct-v0.3", gated: true, shards: []int64{4_949_453_792, 4_999_819_336, 4_546_807_800}},
}

var hubToken = regexp.MustCompile(`^hf_[A-Za-z0-9]{30,}$`)

// commit is the model's one commit id.
func (m *hubModel) commit() string {
	sum := sha1.Sum([]byte(m.id + "@main"))
	return hex.EncodeToString(sum[:])
}

// files is the model's file set: its configuration, tokenizer and
// safetensors shards with their index.
func (m *hubModel) files() []cloud.HubFile {
	out := []cloud.HubFile{
		{Path: ".gitattributes", Size: 1_519},
		{Path: "README.md", Size: 6_214},
		{Path: "config.json", Size: 728},
		{Path: "generation_config.json", Size: 239},
		{Path: "tokenizer.json", Size: 11_421_896},
		{Path: "tokenizer_config.json", Size: 7_306},
	}
	if len(m.shards) == 1 {
		return append(out, cloud.HubFile{Path: "model.safetensors", Size: m.shards[0]})
	}
	for i, size := range m.shards {
		out = append(out, cloud.HubFile{Path: fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, len(m.shards)), Size: size})
	}
	out = append(out, cloud.HubFile{Path: "model.safetensors.index.json", Size: int64(23_950 + 60*len(m.shards))})
	slices.SortFunc(out, func(a, b cloud.HubFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// hubFind returns the catalog's model id, nil when there is none.
func hubFind(id string) *hubModel {
	for i := range hubCatalog {
		if hubCatalog[i].id == id {
			return &hubCatalog[i]
		}
	}
	return nil
}

// hubCheck is the hub's answer to reading model id at revision with
// token, before any fault: the model, or the hub's refusal.
func hubCheck(id, revision, token string) (*hubModel, error) {
	if token != "" && !hubToken.MatchString(token) {
		return nil, &cloud.HubError{Status: 401, Message: "Invalid credentials in Authorization header"}
	}
	m := hubFind(id)
	if m == nil {
		return nil, &cloud.HubError{Status: 404, Message: fmt.Sprintf("Repository Not Found for url: https://huggingface.co/api/models/%s", id)}
	}
	if m.gated && token == "" {
		return nil, &cloud.HubError{Status: 401, Message: fmt.Sprintf("Access to model %s is restricted. You must have access to it and be authenticated to access it. Please log in.", id)}
	}
	if revision != "main" && revision != m.commit() {
		return nil, &cloud.HubError{Status: 404, Message: fmt.Sprintf("Revision Not Found for url: https://huggingface.co/api/models/%s/revision/%s", id, revision)}
	}
	return m, nil
}

// hubFault fires a fault of the hub's operation op: an error fault with
// code 401, 403 or 404 is that refusal, any other fails the request.
func (t *txn) hubFault(op string) error {
	return hubRefusal(t.callFault(svcHub, op))
}

// hubRefusal turns an injected error with an HTTP status for its code
// into the hub's refusal.
func hubRefusal(err error) error {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return err
	}
	switch code := ae.ErrorCode(); code {
	case "401", "403", "404":
		status, _ := strconv.Atoi(code)
		return &cloud.HubError{Status: status, Message: ae.ErrorMessage()}
	}
	return err
}

// hubAPI is the simulated hub, as the control plane reads it.
type hubAPI struct{ w *World }

var _ cloud.ModelHub = (*hubAPI)(nil)

// Model returns the model's files at revision.
func (a *hubAPI) Model(ctx context.Context, id, revision, token string) (*cloud.HubModel, error) {
	out, err := call(ctx, a.w, svcHub, "", "GetModel", func(t *txn) (*cloud.HubModel, error) {
		m, err := hubCheck(id, revision, token)
		if err != nil {
			return nil, err
		}
		return &cloud.HubModel{ID: m.id, Revision: revision, Commit: m.commit(), Gated: m.gated, Files: m.files()}, nil
	})
	// The hub answers with an HTTP status, not an SDK error.
	var he *cloud.HubError
	if errors.As(hubRefusal(err), &he) {
		return nil, he
	}
	return out, err
}
