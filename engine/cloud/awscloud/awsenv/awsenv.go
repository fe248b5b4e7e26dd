// Package awsenv keeps the machine's AWS set-up out of tests that build
// the real provider's SDK clients (against a fake, the simulator's wire
// endpoint or an emulator).
package awsenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The static credentials Isolate sets: every request is signed with them.
const (
	AccessKey = "AKIDTESTTESTTEST"
	SecretKey = "test-secret"
)

// Isolate makes the test independent of the machine's AWS set-up and keeps
// the SDK off the network: no instance metadata, no shared config or
// credentials files, no profile, region or endpoint from the environment,
// and static credentials (AccessKey, SecretKey). It uses t.Setenv, so the
// test may not run in parallel.
func Isolate(t testing.TB) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "AWS_ENDPOINT_URL") {
			t.Setenv(name, "")
		}
	}
	for _, k := range []string{
		"AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
		"AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "AWS_CA_BUNDLE",
	} {
		t.Setenv(k, "")
	}
}
