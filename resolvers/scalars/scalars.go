// Package scalars holds the GraphQL scalars whose gqlgen defaults are too
// lenient for this API; gqlgen.yml maps the schema's scalars to them and the
// generated executor in graph/ calls them. (They live apart from resolvers
// because graph/ cannot import resolvers, which imports graph/.)
package scalars

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
)

// MarshalInt writes an Int as a JSON number.
func MarshalInt(i int) graphql.Marshaler {
	return graphql.MarshalInt(i)
}

// UnmarshalInt reads an Int as the GraphQL specification defines it: a
// whole number from -2147483648 to 2147483647, written as a number.
// gqlgen's own accepts a string of digits too ("5"), which hides a client's
// mistake; this refuses it, and fractions and numbers out of range, with a
// message that says what to send instead.
func UnmarshalInt(v any) (int, error) {
	switch v := v.(type) {
	case int:
		return intInRange(int64(v))
	case int32:
		return int(v), nil
	case int64:
		return intInRange(v)
	case json.Number: // a number in a JSON request, read without rounding
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return intInRange(i)
		}
		f, err := v.Float64()
		if err != nil {
			return 0, fmt.Errorf("%s is out of the Int range (%d to %d)", v, math.MinInt32, math.MaxInt32)
		}
		return intFromFloat(f)
	case float64: // a number in JSON decoded without json.Number (MCP)
		return intFromFloat(v)
	case float32:
		return intFromFloat(float64(v))
	case string:
		return 0, fmt.Errorf("the string %q is not an Int: send a whole number without quotes", v)
	case nil:
		return 0, fmt.Errorf("null is not an Int: send a whole number, or leave the value out")
	case bool:
		return 0, fmt.Errorf("%t is not an Int: send a whole number", v)
	default:
		return 0, fmt.Errorf("a %s is not an Int: send a whole number", jsonKind(v))
	}
}

func intInRange(i int64) (int, error) {
	if i < math.MinInt32 || i > math.MaxInt32 {
		return 0, fmt.Errorf("%d is out of the Int range (%d to %d)", i, math.MinInt32, math.MaxInt32)
	}
	return int(i), nil
}

func intFromFloat(f float64) (int, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
		return 0, fmt.Errorf("%v is not a whole number: an Int has no fraction", f)
	}
	if f < math.MinInt32 || f > math.MaxInt32 {
		return 0, fmt.Errorf("%.0f is out of the Int range (%d to %d)", f, math.MinInt32, math.MaxInt32)
	}
	return int(f), nil
}

// jsonKind names a decoded value's JSON kind for a message.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "list"
	}
	return fmt.Sprintf("%T", v)
}
