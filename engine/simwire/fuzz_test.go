package simwire

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/sim"
)

// FuzzWireRequests sends arbitrary bodies to each protocol: the answer is
// always a well-formed status below 500, never a panic.
func FuzzWireRequests(f *testing.F) {
	for _, seed := range []string{
		"ec2 Action=DescribeVpcs&Filter.1.Name=tag:x&Filter.1.Value.1=y",
		"ec2 Action=CreateVpc&CidrBlock=10.0.0.0/16&TagSpecification.1.ResourceType=vpc&TagSpecification.1.Tag.1.Key=k",
		"ec2 Action=AuthorizeSecurityGroupIngress&IpPermissions.1.IpRanges.1.CidrIp=x&IpPermissions.1.FromPort=99999999999",
		"iam Action=CreateRole&RoleName=r&AssumeRolePolicyDocument={}&Tags.member.1.Key=k&Tags.member.1000.Value=v",
		"iam Action=GetRole&RoleName.member.1=x",
		"sts Action=GetCallerIdentity",
		`eks {"name":"x","resourcesVpcConfig":{"subnetIds":[1]}}`,
		`eks {"name":"x","tags":{"a":5}}`,
	} {
		f.Add(seed)
	}
	w, err := newWorldForFuzz()
	if err != nil {
		f.Fatal(err)
	}
	h := &Handler{Providers: w.Provider, DefaultRegion: w.DefaultRegion()}
	f.Fuzz(func(t *testing.T, in string) {
		service, body, _ := strings.Cut(in, " ")
		path := "/"
		if service == "eks" {
			path = "/clusters"
		}
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/"+service+"/aws4_request, SignedHeaders=host, Signature=x")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s: status %d: %s", in, rec.Code, rec.Body.String())
		}
	})
}

func newWorldForFuzz() (*sim.World, error) {
	return sim.New(sim.Options{Seed: 1, Clock: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
}
