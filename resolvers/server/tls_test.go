package server_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their paths and a pool that trusts the certificate.
func selfSigned(t *testing.T) (certPath, keyPath string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "instantstart-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certPath, keyPath, pool
}

func TestTLSServesHTTPSWithSecureCookies(t *testing.T) {
	certPath, keyPath, pool := selfSigned(t)
	srv := startServer(t, server.Config{TLSCert: certPath, TLSKey: keyPath})
	if !strings.HasPrefix(srv.URL(), "https://") {
		t.Fatalf("URL %s", srv.URL())
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequestWithContext(testContext(t), http.MethodPost, srv.URL()+"/auth/login", strings.NewReader(`{"token":"`+adminSecret+`"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || len(res.Cookies()) != 1 || !res.Cookies()[0].Secure {
		t.Fatalf("login over TLS: %s, cookies %+v (want one Secure cookie)", res.Status, res.Cookies())
	}
	// Plain HTTP to the TLS listener is not served.
	if plain, err := http.Get("http://" + srv.Addr() + "/healthz"); err == nil {
		plain.Body.Close()
		if plain.StatusCode == http.StatusOK {
			t.Fatal("plain HTTP served by the TLS listener")
		}
	}
	if _, err := server.New(server.Config{Engine: app.Config{DataDir: t.TempDir()}, Listen: "127.0.0.1:0", TLSCert: certPath}); err == nil {
		t.Fatal("a certificate without a key was accepted")
	}
}
