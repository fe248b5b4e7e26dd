package awscloud

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
)

// isolateAWSEnv makes the test independent of the machine's AWS setup and
// keeps the SDK off the network: no instance metadata, no shared config or
// credentials files, no profile, region or endpoint from the environment,
// and static credentials.
func isolateAWSEnv(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTESTTESTTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	for _, k := range []string{
		"AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
		"AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SAGEMAKER",
		"AWS_ENDPOINT_URL_EKS", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "AWS_CA_BUNDLE",
	} {
		t.Setenv(k, "")
	}
}

// seenRequest is what a fake AWS endpoint received.
type seenRequest struct {
	method, path, target, authorization string
	body                                []byte
}

// fakeAWS starts a loopback server that records each request and answers
// with status, contentType and body. Requests arrive on the returned
// channel, which holds the last few; the server never blocks on it.
func fakeAWS(t *testing.T, status int, contentType, body string) (*httptest.Server, <-chan seenRequest) {
	t.Helper()
	seen := make(chan seenRequest, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read request body: %v", err)
		}
		select {
		case seen <- seenRequest{
			method:        r.Method,
			path:          r.URL.Path,
			target:        r.Header.Get("X-Amz-Target"),
			authorization: r.Header.Get("Authorization"),
			body:          b,
		}:
		default:
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, seen
}

// newTestRegions returns Regions in us-west-2 whose clients all talk to
// endpoint with static credentials.
func newTestRegions(t *testing.T, endpoint string) *Regions {
	t.Helper()
	r, err := New(context.Background(), Options{
		DefaultRegion: "us-west-2",
		BaseEndpoint:  endpoint,
		Credentials:   credentials.NewStaticCredentialsProvider("AKIDTESTTESTTEST", "test-secret", ""),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return r
}

// lastRequest returns the request the fake endpoint has already received;
// the handler records it before answering, so it is there once a call has
// returned.
func lastRequest(t *testing.T, seen <-chan seenRequest) seenRequest {
	t.Helper()
	select {
	case r := <-seen:
		return r
	default:
		t.Fatal("the fake endpoint received no request")
		return seenRequest{}
	}
}
