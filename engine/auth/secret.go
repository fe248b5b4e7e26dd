package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Secrets this package issues are a prefix and the raw-URL base64 of 32
// random bytes. The prefix lets a reader (and a secret scanner) tell an API
// token from a session cookie at a glance.
const (
	tokenPrefix   = "isk_"
	sessionPrefix = "iss_"
	secretBytes   = 32
)

// An admin token supplied through the environment may have any shape within
// these bounds, so that operators can use their own secret generator.
const (
	minCustomSecret = 32
	maxCustomSecret = 256
)

var secretEncoding = base64.RawURLEncoding.Strict()

var issuedLen = secretEncoding.EncodedLen(secretBytes)

func newSecret(prefix string) (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	return prefix + secretEncoding.EncodeToString(b), nil
}

// hashSecret is the only form of a secret the store keeps. The secrets are
// 256 random bits (or at least 32 characters for a custom admin token), so a
// fast unsalted hash is enough: there is nothing to brute-force.
func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// isIssued reports whether s is prefix followed by the canonical encoding
// of 32 bytes.
func isIssued(s, prefix string) bool {
	if len(s) != len(prefix)+issuedLen || !strings.HasPrefix(s, prefix) {
		return false
	}
	b, err := secretEncoding.DecodeString(s[len(prefix):])
	return err == nil && len(b) == secretBytes
}

// tokenShapeProblem says what is wrong with the shape of an API token, or
// returns "" when it has one: an issued token, or a custom secret of 32 to
// 256 printable non-space ASCII characters. The answer never quotes s.
func tokenShapeProblem(s string) string {
	switch {
	case s == "":
		return "the token is empty"
	case strings.HasPrefix(s, sessionPrefix):
		return "that is a session cookie value, not an API token"
	case strings.HasPrefix(s, tokenPrefix):
		if !isIssued(s, tokenPrefix) {
			return fmt.Sprintf("the token is malformed (an InstantStart token is %s followed by %d URL-safe base64 characters): it may have been cut short", tokenPrefix, issuedLen)
		}
		return ""
	case len(s) < minCustomSecret:
		return fmt.Sprintf("the token is %d characters; a token has at least %d", len(s), minCustomSecret)
	case len(s) > maxCustomSecret:
		return fmt.Sprintf("the token is %d characters; a token has at most %d", len(s), maxCustomSecret)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return "the token contains a space, a control character or a non-ASCII character"
		}
	}
	return ""
}
