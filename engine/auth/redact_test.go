package auth

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tok := "isk_" + strings.Repeat("A", 43)
	hf := "hf_" + strings.Repeat("x", 34)
	cases := []struct {
		name string
		in   any
		want any
	}{
		{"scalar", "plain", "plain"},
		{"number", 42, 42},
		{"nil", nil, nil},
		{"flat", map[string]any{"name": "c1", "password": "p"}, map[string]any{"name": "c1", "password": Redacted}},
		{"key forms", map[string]any{
			"HF_TOKEN": "x", "hfToken": "x", "clientSecret": "x", "db_passwd": "x", "apiKey": "x", "api_key": "x",
			"awsCredentials": "x", "privateKey": "x", "private_key": "x", "Authorization": "x", "Cookie": "x",
			"sessionId": "x", "accessToken": map[string]any{"nested": "x"},
		}, map[string]any{
			"HF_TOKEN": Redacted, "hfToken": Redacted, "clientSecret": Redacted, "db_passwd": Redacted, "apiKey": Redacted, "api_key": Redacted,
			"awsCredentials": Redacted, "privateKey": Redacted, "private_key": Redacted, "Authorization": Redacted, "Cookie": Redacted,
			"sessionId": Redacted, "accessToken": Redacted,
		}},
		{"identifiers kept", map[string]any{"idempotencyKey": "k", "tokenId": "01H", "tokenName": "ci", "publicKey": "ssh-ed25519"},
			map[string]any{"idempotencyKey": "k", "tokenId": "01H", "tokenName": "ci", "publicKey": "ssh-ed25519"}},
		{"nested maps and lists", map[string]any{"input": map[string]any{
			"nodes": []any{map[string]any{"name": "n1", "secret": "s"}, map[string]any{"list": []any{map[string]any{"token": "t"}}}},
		}}, map[string]any{"input": map[string]any{
			"nodes": []any{map[string]any{"name": "n1", "secret": Redacted}, map[string]any{"list": []any{map[string]any{"token": Redacted}}}},
		}}},
		{"env var pair", []any{map[string]any{"name": "HF_TOKEN", "value": "v"}, map[string]any{"name": "MODEL", "value": "llama"}},
			[]any{map[string]any{"name": "HF_TOKEN", "value": Redacted}, map[string]any{"name": "MODEL", "value": "llama"}}},
		{"secret-looking values", map[string]any{"note": tok, "hf": hf, "auth": "Bearer abc", "list": []any{tok, "ok"}},
			map[string]any{"note": Redacted, "hf": Redacted, "auth": Redacted, "list": []any{Redacted, "ok"}}},
		{"null secret stays null", map[string]any{"password": nil}, map[string]any{"password": nil}},
		{"struct", struct {
			Name     string `json:"name"`
			Password string `json:"password"`
		}{"n", "p"}, map[string]any{"name": "n", "password": Redacted}},
		{"typed map", map[string]string{"token": "t", "zone": "a"}, map[string]any{"token": Redacted, "zone": "a"}},
		{"raw message", json.RawMessage(`{"secret":1,"n":2}`), json.RawMessage(`{"n":2,"secret":"[REDACTED]"}`)},
		{"raw in map", map[string]any{"args": json.RawMessage(`{"cookie":"c"}`)}, map[string]any{"args": json.RawMessage(`{"cookie":"[REDACTED]"}`)}},
		{"unencodable", make(chan int), Redacted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Redact(c.in)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Redact(%v) = %#v, want %#v", c.in, got, c.want)
			}
			if again := Redact(got); !reflect.DeepEqual(again, got) {
				t.Fatalf("redacting twice changed %#v to %#v", got, again)
			}
		})
	}
}

func TestRedactCopiesAndLeavesInputAlone(t *testing.T) {
	in := map[string]any{"password": "p", "inner": map[string]any{"token": "t"}}
	Redact(in)
	if in["password"] != "p" || in["inner"].(map[string]any)["token"] != "t" {
		t.Fatalf("input modified: %v", in)
	}
}

func TestRedactStopsAtCycles(t *testing.T) {
	m := map[string]any{}
	m["self"] = m
	Redact(m) // must return
}

func TestRedactJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, ``},
		{`  `, ``},
		{`null`, `null`},
		{`{"password":"p","n":12345678901234567890}`, `{"n":12345678901234567890,"password":"[REDACTED]"}`},
		{`[{"apiKey":"k"}]`, `[{"apiKey":"[REDACTED]"}]`},
		{`{"broken":`, `"[REDACTED]"`},
		{`{} {"secret":"s"}`, `"[REDACTED]"`},
	}
	for _, c := range cases {
		if got := string(RedactJSON([]byte(c.in))); got != c.want {
			t.Errorf("RedactJSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestRedactText(t *testing.T) {
	tok := "isk_" + strings.Repeat("A", 43)
	got := redactText(`token "` + tok + `" is not known`)
	if strings.Contains(got, tok) || !strings.Contains(got, Redacted) {
		t.Fatalf("redactText left the secret: %s", got)
	}
	if s := "nothing to hide here"; redactText(s) != s {
		t.Fatal("redactText changed an innocent message")
	}
}
