package scalars

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestUnmarshalInt(t *testing.T) {
	tests := []struct {
		in   any
		want int
		says string // "" when the value is accepted
	}{
		{int64(5), 5, ""},
		{int(-7), -7, ""},
		{int32(12), 12, ""},
		{json.Number("42"), 42, ""},
		{json.Number("2147483647"), 2147483647, ""},
		{json.Number("-2147483648"), -2147483648, ""},
		{float64(3), 3, ""}, // a JSON number decoded without json.Number
		{json.Number("4.0"), 4, ""},
		{"5", 0, "without quotes"},
		{"five", 0, "without quotes"},
		{json.Number("2.5"), 0, "whole number"},
		{2.5, 0, "whole number"},
		{json.Number("2147483648"), 0, "out of the Int range"},
		{int64(-2147483649), 0, "out of the Int range"},
		{json.Number("1e30"), 0, "out of the Int range"},
		{json.Number("99999999999999999999999"), 0, "out of the Int range"},
		{true, 0, "not an Int"},
		{nil, 0, "null"},
		{map[string]any{}, 0, "object"},
		{[]any{1}, 0, "list"},
	}
	for _, tt := range tests {
		got, err := UnmarshalInt(tt.in)
		if tt.says == "" {
			if err != nil || got != tt.want {
				t.Errorf("UnmarshalInt(%#v) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("UnmarshalInt(%#v) = %d, %v; want an error saying %q", tt.in, got, err, tt.says)
		}
	}
}

func TestMarshalInt(t *testing.T) {
	var b bytes.Buffer
	MarshalInt(-12).MarshalGQL(&b)
	if b.String() != "-12" {
		t.Errorf("MarshalInt(-12) wrote %q", b.String())
	}
}
