package sim

import (
	"encoding/base64"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// errBadToken is returned by page for a token it did not issue. Each service
// turns it into its own error.
var errBadToken = errors.New("invalid pagination token")

// page returns the slice of items that starts at token and holds at most
// max items (defaultMax when max is nil or not positive), and the token of
// the next page, nil on the last one.
func page[T any](items []T, token *string, max *int32, defaultMax int) ([]T, *string, error) {
	start := 0
	if token != nil && *token != "" {
		raw, err := base64.RawURLEncoding.DecodeString(*token)
		if err != nil {
			return nil, nil, errBadToken
		}
		start, err = strconv.Atoi(string(raw))
		if err != nil || start < 0 || start > len(items) {
			return nil, nil, errBadToken
		}
	}
	n := defaultMax
	if max != nil && *max > 0 {
		n = int(*max)
	}
	end := start + n
	if end >= len(items) {
		return items[start:], nil, nil
	}
	next := base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
	return items[start:end], aws.String(next), nil
}

// pageSize is the page size a list call op of service asks for, capped by the first
// smallpages fault that matches the call: a real service may return fewer
// items than asked for with a next token, and a client must follow it.
func (t *txn) pageSize(service, op string, asked *int32) *int32 {
	for _, f := range t.st.Faults {
		if f.Kind == FaultSmallPages && (f.Service == "" || f.Service == service) && (f.Operation == "" || f.Operation == op) && f.inRegion(t.region) {
			size := int32(max(f.Value, 1))
			return &size
		}
	}
	return asked
}
