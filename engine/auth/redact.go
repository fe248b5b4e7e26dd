package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
)

// Redacted replaces a secret value in whatever is logged or audited.
const Redacted = "[REDACTED]"

// secretKeyParts mark a key as naming a secret when its lower-cased form
// contains one of them.
var secretKeyParts = []string{
	"token", "secret", "password", "passwd", "apikey", "api_key", "credential",
	"privatekey", "private_key", "authorization", "cookie", "hftoken", "session",
}

// notSecretKeys contain a secret-looking part but name identifiers.
var notSecretKeys = map[string]bool{
	"idempotencykey": true, "idempotency_key": true,
	"tokenid": true, "token_id": true, "tokenname": true, "token_name": true,
}

// maxRedactDepth bounds recursion; anything nested deeper is redacted whole
// (a self-referencing map would otherwise never end).
const maxRedactDepth = 100

func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	if notSecretKeys[k] {
		return false
	}
	for _, p := range secretKeyParts {
		if strings.Contains(k, p) {
			return true
		}
	}
	return false
}

// looksLikeSecret catches secrets passed under an innocent key: our own
// tokens and session values, Hugging Face tokens, and Authorization values.
func looksLikeSecret(s string) bool {
	if isIssued(s, tokenPrefix) || isIssued(s, sessionPrefix) {
		return true
	}
	if len(s) > 7 && strings.EqualFold(s[:7], "bearer ") {
		return true
	}
	if strings.HasPrefix(s, "hf_") && len(s) >= 30 {
		for _, c := range s[3:] {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
		return true
	}
	return false
}

// redactText replaces the secret-looking words of a free-form message.
func redactText(s string) string {
	words := strings.Fields(s)
	changed := false
	for i, w := range words {
		if looksLikeSecret(strings.Trim(w, "\"'`()[]{}<>,.;:")) {
			words[i] = Redacted
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(words, " ")
}

// namesSecret reports whether m is a name/value pair (an environment
// variable, say) whose name is secret-looking, as in
// {"name": "HF_TOKEN", "value": "..."}: then its "value" is a secret.
func namesSecret(m map[string]any) bool {
	for _, k := range []string{"name", "key"} {
		if n, ok := m[k].(string); ok && isSecretKey(n) {
			return true
		}
	}
	return false
}

// Redact returns a deep copy of v with the values of secret-looking keys
// (and secret-looking strings anywhere) replaced by Redacted. Maps, slices
// and json.RawMessage are walked; structs and other composite values are
// converted through JSON first, so they come back as map[string]any or
// []any. v itself is not modified.
func Redact(v any) any { return redact(v, 0) }

func redact(v any, depth int) any {
	if depth > maxRedactDepth {
		return Redacted
	}
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if looksLikeSecret(x) {
			return Redacted
		}
		return x
	case json.RawMessage:
		return RedactJSON(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		pair := namesSecret(x)
		for k, val := range x {
			if val != nil && (isSecretKey(k) || pair && strings.EqualFold(k, "value")) {
				out[k] = Redacted
				continue
			}
			out[k] = redact(val, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = redact(val, depth+1)
		}
		return out
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return v
	case reflect.String:
		if looksLikeSecret(rv.String()) {
			return Redacted
		}
		return v
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return Redacted // what cannot be inspected cannot be shown
	}
	decoded, ok := decodeJSON(raw)
	if !ok {
		return Redacted
	}
	return redact(decoded, depth+1)
}

// RedactJSON returns raw with secrets redacted as by Redact. Empty input
// gives nil; input that is not one JSON value is redacted whole.
func RedactJSON(raw []byte) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	v, ok := decodeJSON(raw)
	if !ok {
		return json.RawMessage(`"` + Redacted + `"`)
	}
	out, err := json.Marshal(redact(v, 0))
	if err != nil {
		return json.RawMessage(`"` + Redacted + `"`)
	}
	return out
}

// decodeJSON reads exactly one JSON value, keeping numbers exact.
func decodeJSON(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if err := dec.Decode(new(any)); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return v, true
}
