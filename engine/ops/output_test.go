package ops

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
)

type zone struct {
	Name string `json:"name"`
	CIDR string `json:"cidr"`
}

type networkOutput struct {
	VpcID string `json:"vpcId,omitempty"`
	Zones []zone `json:"zones,omitempty"`
	Count int    `json:"count,omitempty"`
}

func TestOutputOfReadsTypedAndOlderStoredOutputs(t *testing.T) {
	want := networkOutput{VpcID: "vpc-1", Zones: []zone{{"a", "10.0.0.0/24"}, {"b", "10.0.1.0/24"}}, Count: 2}
	for _, tc := range []struct {
		name     string
		phase    Phase
		want     networkOutput
		internal bool
	}{
		{"typed", Phase{Output: json.RawMessage(`{"vpcId":"vpc-1","zones":[{"name":"a","cidr":"10.0.0.0/24"},{"name":"b","cidr":"10.0.1.0/24"}],"count":2}`)}, want, false},
		{"older binary: strings with a list packed as JSON", Phase{Outputs: map[string]string{"vpcId": "vpc-1", "zones": `[{"name":"a","cidr":"10.0.0.0/24"},{"name":"b","cidr":"10.0.1.0/24"}]`}},
			networkOutput{VpcID: "vpc-1", Zones: want.Zones}, false},
		{"older binary: strings only", Phase{Outputs: map[string]string{"vpcId": "vpc-1", "unknown": "x"}}, networkOutput{VpcID: "vpc-1"}, false},
		{"nothing stored", Phase{}, networkOutput{}, false},
		{"corrupt list", Phase{Output: json.RawMessage(`{"vpcId":"vpc-1","zones":"not a list"}`)}, networkOutput{}, true},
		{"corrupt packed list", Phase{Outputs: map[string]string{"zones": `[{"name":`}}, networkOutput{}, true},
		{"wrong type", Phase{Output: json.RawMessage(`{"count":"two"}`)}, networkOutput{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.phase
			p.Name = "network"
			op := &Operation{ID: "op-1", Phases: []*Phase{&p}}
			got, err := OutputOf[networkOutput](op, "network")
			if tc.internal {
				if errs.CodeOf(err) != errs.Internal || !strings.Contains(err.Error(), "phase network") || !strings.Contains(err.Error(), "networkOutput") {
					t.Fatalf("want INTERNAL naming the phase and the output, got %v", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestOutputMergesOverEarlierOutputAndRoundTrips(t *testing.T) {
	p := &Phase{Name: "network", Outputs: map[string]string{"vpcId": "vpc-old", "legacy": "kept"}}
	for _, out := range []any{networkOutput{VpcID: "vpc-1"}, networkOutput{Zones: []zone{{"a", "10.0.0.0/24"}}}, nil} {
		fields, err := encodeOutput(p.Name, out)
		if err != nil {
			t.Fatal(err)
		}
		p.mergeOutput(fields)
	}
	got, err := OutputOf[networkOutput](&Operation{Phases: []*Phase{p}}, "network")
	want := networkOutput{VpcID: "vpc-1", Zones: []zone{{"a", "10.0.0.0/24"}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v; want %+v", got, err, want)
	}
	if v := p.OutputFields(); len(p.Outputs) != 0 || v["vpcId"] != "vpc-1" || v["legacy"] != "kept" || v["zones"] != `[{"name":"a","cidr":"10.0.0.0/24"}]` {
		t.Fatalf("key/value view %v, older strings left %v", v, p.Outputs)
	}
	if _, err := encodeOutput("network", []string{"not", "an", "object"}); errs.CodeOf(err) != errs.Internal {
		t.Fatalf("a list as output: %v", err)
	}
}

// TestCorruptStoredOutputFailsTheReadingPhase runs phase a to its end with a
// typed output, stops the runner while b waits, corrupts a's stored output,
// and resumes: b, which reads it, fails with INTERNAL and a message naming
// phase a; it never proceeds on zero values.
func TestCorruptStoredOutputFailsTheReadingPhase(t *testing.T) {
	st := memStore(t)
	w := newWorld()
	w.pending["b"] = true
	var read networkOutput
	steps := func(*Operation) ([]Step, error) {
		a := Step{Name: "a", Title: "make a", Observe: func(context.Context, *Run) (Observation, error) {
			return Observation{State: Done, Output: networkOutput{VpcID: "vpc-1", Zones: []zone{{"a", "10.0.0.0/24"}}}}, nil
		}}
		b := w.step("b", "a")
		observe := b.Observe
		b.Observe = func(ctx context.Context, run *Run) (Observation, error) {
			out, err := OutputOf[networkOutput](run.Op, "a")
			if err != nil {
				return Observation{}, err
			}
			read = out
			return observe(ctx, run)
		}
		return []Step{a, b}, nil
	}
	r2, id := resumeAfterDown(t, st, steps, "b", func(stored *Operation) {
		if read.VpcID != "vpc-1" || len(read.Zones) != 1 {
			t.Errorf("b read %+v before the corruption", read)
		}
		stored.Phase("a").Output = json.RawMessage(`{"vpcId":"vpc-1","zones":{"broken":true}}`)
	})
	end := waitEnd(t, r2, id)
	b := end.Phase("b")
	if end.Status != Failed || b.Status != PhaseFailed || b.Error == nil || b.Error.Code != string(errs.Internal) || !strings.Contains(b.Error.Message, "output ops.networkOutput of phase a") {
		t.Fatalf("after the corruption: op %s, b %s %+v", end.Status, b.Status, b.Error)
	}
}

func TestOutputFieldsListsTypedAndOlderOutputs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		phase Phase
		want  map[string]string
	}{
		{"typed", Phase{Output: json.RawMessage(`{"vpcId":"vpc-1","count":2,"zones":["a"]}`)}, map[string]string{"vpcId": "vpc-1", "count": "2", "zones": `["a"]`}},
		{"older binary", Phase{Outputs: map[string]string{"vpcId": "vpc-1"}}, map[string]string{"vpcId": "vpc-1"}},
		{"nothing stored", Phase{}, nil},
		{"not an object", Phase{Output: json.RawMessage(`["a"]`)}, map[string]string{"output": `["a"]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.phase.OutputFields(); !reflect.DeepEqual(got, tc.want) && (len(got) != 0 || len(tc.want) != 0) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
