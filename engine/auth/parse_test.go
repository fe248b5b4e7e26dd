package auth

import (
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
)

func TestParseBearer(t *testing.T) {
	tok := "isk_" + strings.Repeat("A", 43)
	custom := strings.Repeat("z", 32)
	cases := []struct {
		header, want string
	}{
		{"Bearer " + tok, tok},
		{"bearer " + tok, tok},
		{"BEARER    " + tok, tok},
		{"  Bearer " + tok + " ", tok},
		{"Bearer " + custom, custom},
		{"", ""},
		{"Bearer", ""},
		{"Bearer ", ""},
		{tok, ""},
		{"Basic " + tok, ""},
		{"Bearer\t" + tok, ""},
		{"Bearer " + tok + " extra", ""},
		{"Bearer " + tok[:len(tok)-1], ""},
		{"Bearer " + tok + "A", ""},
		{"Bearer isk_" + strings.Repeat("A", 42) + "+", ""},
		{"Bearer iss_" + strings.Repeat("A", 43), ""},
		{"Bearer " + strings.Repeat("z", 31), ""},
		{"Bearer " + strings.Repeat("z", 257), ""},
		{"Bearer " + strings.Repeat("é", 20), ""},
	}
	for _, c := range cases {
		got, err := ParseBearer(c.header)
		if c.want != "" {
			if err != nil || got != c.want {
				t.Errorf("ParseBearer(%q) = %q, %v", c.header, got, err)
			}
			continue
		}
		if errs.CodeOf(err) != errs.Unauthenticated {
			t.Errorf("ParseBearer(%q) error %v, want UNAUTHENTICATED", c.header, err)
		}
	}
}

func TestParseCookieValue(t *testing.T) {
	ok := "iss_" + strings.Repeat("b", 42) + "A"
	for _, v := range []string{ok} {
		if got, err := ParseCookieValue(v); err != nil || got != v {
			t.Errorf("ParseCookieValue(%q) = %q, %v", v, got, err)
		}
	}
	for _, v := range []string{"", "iss_", ok[:len(ok)-1], ok + "b", "isk_" + ok[4:], "iss_" + strings.Repeat("b", 43), " " + ok, "iss_" + strings.Repeat("b", 42) + "="} {
		if _, err := ParseCookieValue(v); errs.CodeOf(err) != errs.Unauthenticated {
			t.Errorf("ParseCookieValue(%q) error %v, want UNAUTHENTICATED", v, err)
		}
	}
}

// wantTokenShape fails unless tok has the shape of an API token.
func wantTokenShape(t *testing.T, tok string) {
	t.Helper()
	if strings.HasPrefix(tok, tokenPrefix) {
		if !isIssued(tok, tokenPrefix) {
			t.Fatalf("accepted malformed issued token %q", tok)
		}
		return
	}
	if strings.HasPrefix(tok, sessionPrefix) || len(tok) < minCustomSecret || len(tok) > maxCustomSecret {
		t.Fatalf("accepted %q", tok)
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] <= ' ' || tok[i] > '~' {
			t.Fatalf("accepted %q with byte %#x", tok, tok[i])
		}
	}
}

// wantQuietRefusal fails unless err is UNAUTHENTICATED and does not quote
// the credential it refused.
func wantQuietRefusal(t *testing.T, err error, input string) {
	t.Helper()
	if errs.CodeOf(err) != errs.Unauthenticated {
		t.Fatalf("error %v, want UNAUTHENTICATED", err)
	}
	if s := strings.TrimSpace(input); len(s) >= 8 && strings.Contains(err.Error(), s) {
		t.Fatalf("message %q quotes the input", err)
	}
}

func FuzzParseBearer(f *testing.F) {
	for _, s := range []string{
		"", "Bearer", "Bearer ", "bearer isk_" + strings.Repeat("A", 43), "Bearer  isk_" + strings.Repeat("-", 43),
		"Bearer " + strings.Repeat("x", 32), "Basic dXNlcjpwYXNz", "Bearer iss_" + strings.Repeat("_", 43), "Bearer \x00\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		tok, err := ParseBearer(header)
		if err != nil {
			wantQuietRefusal(t, err, header)
			return
		}
		wantTokenShape(t, tok)
		if !strings.HasSuffix(strings.TrimRight(header, " \t"), tok) {
			t.Fatalf("token %q is not the end of header %q", tok, header)
		}
	})
}

func FuzzParseCookieValue(f *testing.F) {
	for _, s := range []string{"", "iss_", "iss_" + strings.Repeat("A", 43), "isk_" + strings.Repeat("A", 43), "iss_" + strings.Repeat("A", 42) + "B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := ParseCookieValue(v)
		if err != nil {
			wantQuietRefusal(t, err, v)
			return
		}
		if got != v || !isIssued(v, sessionPrefix) || len(v) != 47 {
			t.Fatalf("accepted %q", v)
		}
	})
}

func FuzzAuthenticate(f *testing.F) {
	fx := newFixture(f)
	secret, tok := fx.create(f, "only", Viewer, nil)
	for _, s := range []string{"", secret, secret[:len(secret)-1], secret + "A", strings.Repeat("x", 40), "iss_" + secret[4:]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := fx.svc.Authenticate(s)
		if err != nil {
			wantQuietRefusal(t, err, s)
			return
		}
		if s != secret || id.TokenID != tok.ID {
			t.Fatalf("%q authenticated as %+v", s, id)
		}
	})
}
