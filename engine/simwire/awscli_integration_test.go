//go:build integration

package simwire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAWSCLIListsWhatGraphQLMade starts the real server with
// --sim-aws-listen, creates a cluster and its shared bucket through the
// GraphQL API, uploads to a URL it signs, and reads the simulated account
// back with the aws CLI: its EKS cluster and system node group, network,
// roles, registry login, and s3 ls and s3 cp, both ways.
func TestAWSCLIListsWhatGraphQLMade(t *testing.T) {
	awsCLI, err := exec.LookPath("aws")
	if err != nil {
		t.Fatal("the aws CLI is not on PATH: install awscli (apt-get install awscli, or pip install awscli) to run this test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "instantstart")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/instantstart/instantstart")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("build: %v", err)
	}
	srv := startServer(ctx, t, bin, dir)

	var created struct {
		CreateCluster struct{ ID string } `json:"createCluster"`
	}
	srv.graphql(ctx, t, `mutation { createCluster(input: {name: "wirecli", region: "us-east-1", zones: ["us-east-1a", "us-east-1c"],
		instanceGroups: [{name: "gpu", instanceType: "ml.p5.48xlarge", count: 1, zone: "us-east-1a"}]}) { id } }`, &created)
	srv.waitEnd(ctx, t, created.CreateCluster.ID)

	var clusters struct {
		Clusters struct {
			Edges []struct {
				Node struct {
					ID, Name          string
					EksClusterRoleArn string
					Network           struct {
						VpcID   string
						Subnets []struct{ ID string }
					}
					Eks struct{ Name, Arn string }
				}
			}
		}
	}
	srv.graphql(ctx, t, `{ clusters { edges { node { id name eksClusterRoleArn network { vpcId subnets { id } } eks { name arn } } } } }`, &clusters)
	if len(clusters.Clusters.Edges) != 1 {
		t.Fatalf("GraphQL lists %d clusters, want 1", len(clusters.Clusters.Edges))
	}
	c := clusters.Clusters.Edges[0].Node
	if c.Network.VpcID == "" || len(c.Network.Subnets) == 0 || c.Eks.Arn == "" || c.EksClusterRoleArn == "" {
		t.Fatalf("the cluster lacks its network, EKS cluster or role: %+v", c)
	}

	run := func(args ...string) []byte {
		t.Helper()
		full := append([]string{"--endpoint-url", "http://" + srv.simAWS, "--region", "us-east-1", "--output", "json"}, args...)
		cmd := exec.CommandContext(ctx, awsCLI, full...)
		cmd.Env = []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
			"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
			"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null",
			"AWS_EC2_METADATA_DISABLED=true", "AWS_PAGER=",
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("aws %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.Bytes()
	}
	cli := func(args ...string) map[string]any {
		t.Helper()
		stdout := bytes.NewBuffer(run(args...))
		var out map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("aws %s answered no JSON object: %v\n%s", strings.Join(args, " "), err, stdout.String())
		}
		return out
	}

	if got := cli("eks", "list-clusters")["clusters"]; !contains(got, c.Eks.Name) {
		t.Errorf("eks list-clusters = %v, want %s in it", got, c.Eks.Name)
	}
	desc := cli("eks", "describe-cluster", "--name", c.Eks.Name)["cluster"].(map[string]any)
	if desc["arn"] != c.Eks.Arn || desc["roleArn"] != c.EksClusterRoleArn {
		t.Errorf("eks describe-cluster = arn %v role %v, want %s %s", desc["arn"], desc["roleArn"], c.Eks.Arn, c.EksClusterRoleArn)
	}
	if vpc := desc["resourcesVpcConfig"].(map[string]any)["vpcId"]; vpc != c.Network.VpcID {
		t.Errorf("eks describe-cluster vpcId = %v, want %s", vpc, c.Network.VpcID)
	}

	// The system node group createCluster made, as EKS lists it.
	system := c.Eks.Name + "-system"
	if got := cli("eks", "list-nodegroups", "--cluster-name", c.Eks.Name)["nodegroups"]; !contains(got, system) {
		t.Errorf("eks list-nodegroups = %v, want %s in it", got, system)
	}
	ng := cli("eks", "describe-nodegroup", "--cluster-name", c.Eks.Name, "--nodegroup-name", system)["nodegroup"].(map[string]any)
	if ng["status"] != "ACTIVE" || ng["labels"].(map[string]any)["instantstart.io/role"] != "system" ||
		ng["scalingConfig"].(map[string]any)["desiredSize"] != float64(2) || !contains(ng["instanceTypes"], "m5.large") {
		t.Errorf("eks describe-nodegroup = %v, want ACTIVE with 2 m5.large nodes labelled instantstart.io/role=system", ng)
	}

	vpcs := cli("ec2", "describe-vpcs", "--filters", "Name=tag:instantstart:cluster-id,Values="+c.ID)["Vpcs"].([]any)
	if len(vpcs) != 1 || vpcs[0].(map[string]any)["VpcId"] != c.Network.VpcID {
		t.Errorf("ec2 describe-vpcs by the cluster's tag = %v, want only %s", vpcs, c.Network.VpcID)
	}
	if tags := vpcs[0].(map[string]any)["Tags"]; tags == nil {
		t.Errorf("ec2 describe-vpcs gave the VPC no Tags")
	}
	subnets := cli("ec2", "describe-subnets", "--filters", "Name=vpc-id,Values="+c.Network.VpcID)["Subnets"].([]any)
	var subnetIDs []any
	for _, s := range subnets {
		subnetIDs = append(subnetIDs, s.(map[string]any)["SubnetId"])
	}
	for _, s := range c.Network.Subnets {
		if !contains(subnetIDs, s.ID) {
			t.Errorf("ec2 describe-subnets = %v, want %s in it", subnetIDs, s.ID)
		}
	}

	roleName := c.EksClusterRoleArn[strings.LastIndex(c.EksClusterRoleArn, "/")+1:]
	var listed []string
	for _, r := range cli("iam", "list-roles")["Roles"].([]any) {
		listed = append(listed, r.(map[string]any)["Arn"].(string))
	}
	if !contains(toAny(listed), c.EksClusterRoleArn) {
		t.Errorf("iam list-roles = %v, want it to hold %s", listed, c.EksClusterRoleArn)
	}
	role := cli("iam", "get-role", "--role-name", roleName)["Role"].(map[string]any)
	if role["Arn"] != c.EksClusterRoleArn || role["AssumeRolePolicyDocument"] == nil {
		t.Errorf("iam get-role = %v, want %s with its trust policy", role, c.EksClusterRoleArn)
	}
	if got := cli("iam", "list-attached-role-policies", "--role-name", roleName)["AttachedPolicies"]; len(got.([]any)) == 0 {
		t.Errorf("iam list-attached-role-policies of %s lists none", roleName)
	}
	if id := cli("sts", "get-caller-identity"); id["Account"] != "123456789012" {
		t.Errorf("sts get-caller-identity = %v, want the simulated account", id)
	}
	// What aws ecr get-login-password and instantstart image push ask for.
	auth, _ := cli("ecr", "get-authorization-token")["authorizationData"].([]any)
	if len(auth) != 1 || auth[0].(map[string]any)["proxyEndpoint"] != "https://123456789012.dkr.ecr.us-east-1.amazonaws.com" ||
		auth[0].(map[string]any)["authorizationToken"] == nil {
		t.Errorf("ecr get-authorization-token = %v, want one token for the simulated account's registry", auth)
	}

	// The shared bucket, a file put in it through a URL GraphQL signed,
	// and the aws CLI's s3 commands on it.
	var added struct {
		AddStorage struct{ ID string } `json:"addStorage"`
	}
	srv.graphql(ctx, t, fmt.Sprintf(`mutation { addStorage(input: {clusterId: %q, kind: S3, s3: {bucket: "wirecli-data", create: true}}) { id } }`, c.ID), &added)
	srv.waitEnd(ctx, t, added.AddStorage.ID)
	var signed struct {
		CreateUploadUrls []struct{ URL string } `json:"createUploadUrls"`
	}
	srv.graphql(ctx, t, fmt.Sprintf(`mutation { createUploadUrls(clusterId: %q, keys: ["datasets/made-by-graphql.jsonl"]) { url } }`, c.ID), &signed)
	content := []byte(`{"text": "uploaded through a signed URL"}` + "\n")
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, signed.CreateUploadUrls[0].URL, bytes.NewReader(content))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT to the signed URL: %s", resp.Status)
	}
	if ls := string(run("s3", "ls", "s3://wirecli-data/datasets/")); !strings.Contains(ls, fmt.Sprintf("%d made-by-graphql.jsonl", len(content))) {
		t.Errorf("aws s3 ls s3://wirecli-data/datasets/ = %q, want the file GraphQL signed for", ls)
	}
	if ls := string(run("s3", "ls")); !strings.Contains(ls, "wirecli-data") {
		t.Errorf("aws s3 ls = %q, want the shared bucket", ls)
	}
	// Down, and up: a file over the CLI's 8 MiB threshold goes by parts.
	down := filepath.Join(dir, "down.jsonl")
	run("s3", "cp", "s3://wirecli-data/datasets/made-by-graphql.jsonl", down)
	if got, err := os.ReadFile(down); err != nil || !bytes.Equal(got, content) {
		t.Errorf("aws s3 cp down read %q, %v; want %q", got, err, content)
	}
	big := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(big, bytes.Repeat([]byte("0123456789abcdef"), 10<<16), 0o600); err != nil { // 10 MiB
		t.Fatal(err)
	}
	run("s3", "cp", big, "s3://wirecli-data/code/big.bin")
	if ls := string(run("s3", "ls", "--recursive", "s3://wirecli-data/")); !strings.Contains(ls, fmt.Sprintf("%d code/big.bin", 10<<20)) {
		t.Errorf("aws s3 ls --recursive = %q, want code/big.bin of 10 MiB", ls)
	}
	var browse struct {
		S3Objects struct {
			Edges []struct {
				Node struct {
					Key  string
					Etag string
				}
			}
		} `json:"s3Objects"`
	}
	srv.graphql(ctx, t, fmt.Sprintf(`{ s3Objects(clusterId: %q, prefix: "code/") { edges { node { key etag } } } }`, c.ID), &browse)
	if e := browse.S3Objects.Edges; len(e) != 1 || e[0].Node.Key != "code/big.bin" || !strings.Contains(e[0].Node.Etag, "-") {
		t.Errorf("s3Objects under code/ = %+v, want the CLI's multipart upload", e)
	}
}

func contains(list any, want string) bool {
	l, _ := list.([]any)
	for _, x := range l {
		if x == want {
			return true
		}
	}
	return false
}

const cliAdmin = "isk_" + "WIRECLIWIRECLIWIRECLIWIRECLIWIRECLIWIRECLI" + "A"

type server struct {
	base, simAWS string
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func startServer(ctx context.Context, t *testing.T, bin, dir string) *server {
	t.Helper()
	addr, simAWS := freeAddr(t), freeAddr(t)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--listen", addr, "--data-dir", filepath.Join(dir, "data"), "--sim-speed", "150",
		"--region", "us-east-1", "--sim-aws-listen", simAWS)
	cmd.Env = append(os.Environ(), "INSTANTSTART_ADMIN_TOKEN="+cliAdmin)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("server output:\n%s", out.String())
		}
	})
	s := &server{base: "http://" + addr, simAWS: simAWS}
	// Poll readiness with a deadline: the process gives no other signal.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for {
		resp, err := http.Get(s.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("server did not become ready:\n%s", out.String())
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
}

func (s *server) graphql(ctx context.Context, t *testing.T, query string, into any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+cliAdmin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data   json.RawMessage
		Errors []struct{ Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out.Errors) > 0 {
		t.Fatalf("graphql errors: %+v", out.Errors)
	}
	if err := json.Unmarshal(out.Data, into); err != nil {
		t.Fatal(err)
	}
}

// waitEnd waits, through waitOperation's long poll, for operation id to
// succeed.
func (s *server) waitEnd(ctx context.Context, t *testing.T, id string) {
	t.Helper()
	for ctx.Err() == nil {
		var st struct {
			WaitOperation struct{ Status string } `json:"waitOperation"`
		}
		s.graphql(ctx, t, fmt.Sprintf(`{ waitOperation(id: %q, timeoutSeconds: 10) { status } }`, id), &st)
		switch st.WaitOperation.Status {
		case "SUCCEEDED":
			return
		case "FAILED", "CANCELLED":
			t.Fatalf("createCluster ended %s", st.WaitOperation.Status)
		}
	}
	t.Fatalf("createCluster did not end: %v", ctx.Err())
}

func toAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
