package awscloud

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/instantstart/instantstart/engine/cloud/awscloud/awsenv"
)

// isolateAWSEnv keeps the machine's AWS set-up out of the test.
func isolateAWSEnv(t *testing.T) { awsenv.Isolate(t) }

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
	r, err := New(context.Background(), testOptions(endpoint))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return r
}

// testOptions are the options of newTestRegions: us-west-2, static
// credentials and endpoint ("" for AWS's own).
func testOptions(endpoint string) Options {
	return Options{
		DefaultRegion: "us-west-2",
		BaseEndpoint:  endpoint,
		Credentials:   credentials.NewStaticCredentialsProvider("AKIDTESTTESTTEST", "test-secret", ""),
	}
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
