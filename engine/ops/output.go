package ops

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"

	"github.com/instantstart/instantstart/engine/errs"
)

// A phase's output is a struct of its area's, with json tags, that Observe
// (Observation.Output) or Apply (its first result) returns and a later
// phase reads with OutputOf. The runner stores it as one JSON object in the
// phase (Phase.Output); each new output is merged over the stored one key
// by key, so fields tagged omitempty leave what an earlier call found.

// OutputOf decodes the output of phase of op into a T. A phase that has
// stored nothing (it has not run, or it was skipped) gives T's zero value.
// An output that does not decode is an INTERNAL error naming the phase and
// the output type: it is never read as zero values.
//
// Operations stored before outputs were typed hold only Phase.Outputs, a
// map of strings in which lists were packed as JSON text; OutputOf reads
// those too, and reads a string holding a JSON list or object into a
// field of that list or struct type.
func OutputOf[T any](op *Operation, phase string) (T, error) {
	var v T
	p := op.Phase(phase)
	if p == nil {
		return v, nil
	}
	raw := p.Output
	if len(raw) == 0 {
		if len(p.Outputs) == 0 {
			return v, nil
		}
		raw, _ = json.Marshal(p.Outputs) // a map of strings always encodes
	}
	if err := decodeOutput(raw, &v); err != nil {
		return v, errs.Wrap(errs.Internal, err, "the stored output %T of phase %s of operation %s does not decode: %v; the operation cannot go on, report this as a bug", v, phase, op.ID, err)
	}
	return v, nil
}

// decodeOutput reads raw into v, first as it is and then with every string
// that holds a JSON list or object unpacked (the form older binaries stored).
func decodeOutput(raw []byte, v any) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return err
	}
	unpacked := false
	for k, f := range fields {
		var s string
		if json.Unmarshal(f, &s) != nil {
			continue
		}
		if t := bytes.TrimSpace([]byte(s)); len(t) > 0 && (t[0] == '[' || t[0] == '{') && json.Valid(t) {
			fields[k], unpacked = t, true
		}
	}
	if !unpacked {
		return err
	}
	again, merr := json.Marshal(fields)
	if merr != nil {
		return err
	}
	// Every key of raw is in again, so what the first attempt filled
	// is written over.
	if json.Unmarshal(again, v) != nil {
		return err
	}
	return nil
}

// encodeOutput turns what a phase returned into the JSON fields to store;
// nil stores nothing. The value must encode as a JSON object.
func encodeOutput(phase string, v any) (map[string]json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "phase %s returned an output %T that does not encode: %v; report this as a bug", phase, v, err)
	}
	if string(raw) == "null" {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, errs.New(errs.Internal, "phase %s returned an output %T that is not a JSON object; report this as a bug", phase, v)
	}
	return fields, nil
}

// mergeOutput stores fields over the phase's output, key by key. A phase
// stored by an older binary has its string outputs moved into Output.
func (p *Phase) mergeOutput(fields map[string]json.RawMessage) {
	if len(fields) == 0 {
		return
	}
	stored := map[string]json.RawMessage{}
	if len(p.Output) > 0 {
		// A stored output that is not an object is replaced: the phase
		// that reads it reports the corruption, the writer need not.
		_ = json.Unmarshal(p.Output, &stored)
	} else {
		for k, s := range p.Outputs {
			stored[k], _ = json.Marshal(s)
		}
	}
	maps.Copy(stored, fields)
	p.Output, _ = json.Marshal(stored) // raw messages that decoded re-encode
	p.Outputs = nil
}

// OutputFields is the phase's output flattened to strings, for clients
// that list key/value pairs: strings as they are, anything else as its
// JSON text. A phase stored by an older binary gives its string outputs;
// an output that is not a JSON object gives one field, "output", with its
// text.
func (p *Phase) OutputFields() map[string]string {
	if len(p.Output) == 0 {
		return maps.Clone(p.Outputs)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(p.Output, &fields); err != nil {
		return map[string]string{"output": string(p.Output)}
	}
	return outputView(fields)
}

// outputView flattens an output to strings: strings as they are, anything
// else as its JSON text.
func outputView(fields map[string]json.RawMessage) map[string]string {
	view := make(map[string]string, len(fields))
	for k, f := range fields {
		var s string
		if json.Unmarshal(f, &s) == nil {
			view[k] = s
			continue
		}
		view[k] = string(f)
	}
	return view
}

// Names is a list of names or ids in a phase's output. It is stored as a
// JSON list, and also reads the comma-joined string older versions stored.
type Names []string

// UnmarshalJSON reads a JSON list, or a comma-joined string.
func (n *Names) UnmarshalJSON(raw []byte) error {
	var joined string
	if json.Unmarshal(raw, &joined) == nil {
		*n = nil
		if joined != "" {
			*n = strings.Split(joined, ",")
		}
		return nil
	}
	return json.Unmarshal(raw, (*[]string)(n))
}
