package simwire

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestMalformedWireRequestsAre400 sends the EC2, IAM, STS and EKS
// endpoints requests they cannot read: each is a 400 (or 404 for a path
// EKS has no operation at) with a message, never a panic or a 500.
func TestMalformedWireRequestsAre400(t *testing.T) {
	w := newWorld(t)
	srv := httptest.NewServer(&Handler{Providers: w.Provider, DefaultRegion: w.DefaultRegion()})
	defer srv.Close()
	auth := func(service string) string {
		return "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/" + service + "/aws4_request, SignedHeaders=host, Signature=x"
	}
	deep := "Action=DescribeVpcs&Version=2016-11-15&" + strings.Repeat("A.", 100) + "B=1"
	cases := []struct {
		name, service, method, path, body string
		status                            int
		want                              string
	}{
		{"ec2 unknown action", "ec2", "POST", "/", "Action=RunInstances&Version=2016-11-15", 400, "RunInstances"},
		{"ec2 no action", "ec2", "POST", "/", "Version=2016-11-15", 400, "MissingAction"},
		{"ec2 huge list index", "ec2", "POST", "/", "Action=DescribeVpcs&Filter.100000.Name=x", 400, "list index"},
		{"ec2 index zero", "ec2", "POST", "/", "Action=DescribeVpcs&VpcId.0=x", 400, "index from 1"},
		{"ec2 deep key", "ec2", "POST", "/", deep, 400, "deeper"},
		{"ec2 bad integer", "ec2", "POST", "/", "Action=DescribeVpcs&MaxResults=lots", 400, "not an integer"},
		{"ec2 bad encoding", "ec2", "POST", "/", "Action=DescribeVpcs&%zz", 400, "form-encoded"},
		{"ec2 missing parameter", "ec2", "POST", "/", "Action=CreateVpc&Version=2016-11-15&TagSpecification.1.Tag.1.Key=k", 400, ""},
		{"iam unknown action", "iam", "POST", "/", "Action=CreateUser&UserName=x", 400, "CreateUser"},
		{"iam list without member", "iam", "POST", "/", "Action=CreateRole&RoleName=r&AssumeRolePolicyDocument=%7B%7D&Tags.1.Key=k", 400, "Tags.member.N"},
		{"sts unknown action", "sts", "POST", "/", "Action=AssumeRole", 400, "AssumeRole"},
		{"eks bad json", "eks", "POST", "/clusters", "{", 400, "not JSON"},
		{"eks wrong member type", "eks", "POST", "/clusters", `{"name": 5}`, 400, "name"},
		{"eks deep nesting", "eks", "POST", "/clusters", `{"resourcesVpcConfig":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}", 400, ""},
		{"eks not an object", "eks", "POST", "/clusters", `[1]`, 400, "object"},
		{"eks unknown path", "eks", "GET", "/clusters/x/not-served", "", 404, "no EKS operation served"},
		{"eks bad query", "eks", "GET", "/clusters?maxResults=many", "", 400, "maxResults"},
		{"eks missing parameter", "eks", "POST", "/clusters", `{}`, 400, "Name"},
		{"unknown service", "lambda", "POST", "/", "", 400, "lambda"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
			req.Header.Set("Authorization", auth(c.service))
			if c.service != "eks" {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			if !strings.Contains(string(body), c.want) {
				t.Errorf("answer %s does not say %q", body, c.want)
			}
		})
	}
}

func TestOversizedBodyIsRefused(t *testing.T) {
	w := newWorld(t)
	srv := httptest.NewServer(&Handler{Providers: w.Provider, DefaultRegion: w.DefaultRegion()})
	defer srv.Close()
	big := "Action=DescribeVpcs&VpcId.1=" + url.QueryEscape(strings.Repeat("x", MaxBodyBytes+10))
	req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(big))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/ec2/aws4_request, SignedHeaders=host, Signature=x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 4 {
		t.Fatalf("status %d for a body over MaxBodyBytes, want a 4xx", resp.StatusCode)
	}
}
