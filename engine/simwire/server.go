package simwire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"

	"github.com/instantstart/instantstart/engine/cloud"
)

// MaxBodyBytes bounds a request body: no port operation needs more.
const MaxBodyBytes = 4 << 20

// Providers gives the ports of a region; (*sim.World).Provider fits.
type Providers func(region string) (*cloud.Provider, error)

// Handler serves the AWS wire protocols of the services in Providers.
type Handler struct {
	Providers Providers
	// DefaultRegion is used when a request carries no credential scope.
	DefaultRegion string
	// ECR, when set, gives the ECR API of a region ((*sim.World).ECR
	// fits): the registry authorization `instantstart image push` asks
	// for. The control plane's ports have no ECR.
	ECR func(region string) (any, error)
}

// ecrService is ECR's JSON 1.1 protocol.
var ecrService = jsonService{targetPrefix: "AmazonEC2ContainerRegistry_V20150921", camel: true}

var scopeRE = regexp.MustCompile(`Credential=[^/,\s]+/\d{8}/([^/,\s]+)/([^/,\s]+)/aws4_request`)

// keyRE is the access key id of a SigV4 credential.
var keyRE = regexp.MustCompile(`Credential=([^/,\s]+)/`)

// accessKeyID returns the access key id a request is signed with, from
// its Authorization header or a presigned URL's X-Amz-Credential.
func accessKeyID(r *http.Request) string {
	cred := r.Header.Get("Authorization")
	if cred == "" {
		cred = "Credential=" + r.URL.Query().Get("X-Amz-Credential")
	}
	if m := keyRE.FindStringSubmatch(cred); m != nil {
		return m[1]
	}
	return ""
}

// scope returns the region and service of a SigV4-signed request: from
// its Authorization header, or, for a presigned URL (an EKS token's STS
// GetCallerIdentity), from its X-Amz-Credential query parameter.
func scope(r *http.Request) (region, service string) {
	if m := scopeRE.FindStringSubmatch(r.Header.Get("Authorization")); m != nil {
		return m[1], m[2]
	}
	if c := r.URL.Query().Get("X-Amz-Credential"); c != "" {
		return credentialScope(c)
	}
	return "", ""
}

// credentialScope returns the region and service of a SigV4 credential,
// AKID/DATE/REGION/SERVICE/aws4_request, as a presigned URL's
// X-Amz-Credential holds it; both are "" when cred is not one.
func credentialScope(cred string) (region, service string) {
	m := scopeRE.FindStringSubmatch("Credential=" + cred)
	if m == nil {
		return "", ""
	}
	return m[1], m[2]
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		// A fault of the simulator itself answers as a service fault
		// does, rather than dropping the connection.
		if p := recover(); p != nil {
			writeJSONError(w, http.StatusInternalServerError, "InternalFailure", fmt.Sprintf("simulator fault: %v", p))
		}
	}()
	// STS tells a role session's calls from the account's by the key.
	r = r.WithContext(cloud.WithAccessKeyID(r.Context(), accessKeyID(r)))
	region, service := scope(r)
	if region == "" {
		region = h.DefaultRegion
	}
	if service == "" && isCORSPreflight(r) {
		// A browser asks before it sends a presigned upload, unsigned.
		service = "s3"
	}
	if service == "s3" {
		r.Body = http.MaxBytesReader(w, r.Body, MaxS3BodyBytes)
		p, err := h.Providers(region)
		if err != nil {
			writeS3Error(w, r, http.StatusBadRequest, "InvalidRequest", err.Error())
			return
		}
		serveS3(w, r, p.S3)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	target := r.Header.Get("X-Amz-Target")
	if service == "" && target != "" {
		service = serviceOfTarget(target)
	}
	if service == "ecr" || (service == "" && strings.HasPrefix(target, ecrService.targetPrefix+".")) {
		h.serveECR(w, r, region, target)
		return
	}
	if service == "" && strings.HasPrefix(r.URL.Path, "/clusters") {
		service = "eks"
	}
	if svc, ok := jsonServices[service]; ok {
		p, err := h.Providers(region)
		if err != nil {
			writeJSONError(w, http.StatusBadRequest, "InvalidClientTokenId", err.Error())
			return
		}
		serveJSON(w, r, svc, svc.port(p), target)
		return
	}
	if service == "eks" {
		p, err := h.Providers(region)
		if err != nil {
			writeRestError(w, http.StatusForbidden, "UnrecognizedClientException", err.Error(), nil)
			return
		}
		serveRestJSON(w, r, p.EKS)
		return
	}
	if service == "aps" {
		p, err := h.Providers(region)
		if err != nil {
			writeJSONError(w, http.StatusForbidden, "UnrecognizedClientException", err.Error())
			return
		}
		serveAPS(w, r, p.Prometheus)
		return
	}
	if svc, ok := queryServices[service]; ok {
		if service == "iam" {
			// IAM is global: its requests are signed for us-east-1 whatever
			// region the caller works in.
			region = h.DefaultRegion
		}
		p, err := h.Providers(region)
		if err != nil {
			writeQueryError(w, svc, http.StatusBadRequest, "InvalidClientTokenId", err.Error(), nil)
			return
		}
		serveQuery(w, r, svc, svc.port(p))
		return
	}
	msg := fmt.Sprintf("service %q is not served by the simulator's wire endpoint (served: %s)", service, servedServices)
	if service == "" {
		msg = "the request carries no SigV4 credential scope naming its service (served: " + servedServices + ")"
	}
	writeJSONError(w, http.StatusBadRequest, "UnknownOperationException", msg)
}

const servedServices = "sagemaker, fsx, servicequotas, eks, ec2, iam, sts, aps, ecr, s3"

// serveECR answers an ECR call, when the handler serves ECR.
func (h *Handler) serveECR(w http.ResponseWriter, r *http.Request, region, target string) {
	if h.ECR == nil {
		writeJSONError(w, http.StatusBadRequest, "UnknownOperationException", "ECR is not served by this wire endpoint")
		return
	}
	port, err := h.ECR(region)
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "InvalidClientTokenId", err.Error())
		return
	}
	serveJSON(w, r, ecrService, port, target)
}

func serviceOfTarget(target string) string {
	prefix, _, _ := strings.Cut(target, ".")
	for name, s := range jsonServices {
		if s.targetPrefix == prefix {
			return name
		}
	}
	return ""
}

// Listen opens a loopback listener on addr. Any other host is refused: the
// endpoint checks no signatures, so anyone who can reach it can change the
// simulated account.
func Listen(addr string) (net.Listener, error) {
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	return net.Listen("tcp", addr)
}

// CheckAddr says whether addr is a host:port that Listen accepts.
func CheckAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("sim AWS listen address %q: %w", addr, err)
	}
	if !isLoopback(host) {
		return fmt.Errorf("sim AWS listen address %q is not loopback: the simulator's AWS endpoint checks no signatures, so it only listens on 127.0.0.1, [::1] or localhost", addr)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Serve serves h on l until ctx ends.
func Serve(ctx context.Context, l net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
		_ = srv.Close()
		<-done
		return nil
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
