package features_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/testwait"
)

const (
	sharedBucket = "train-1-shared"
	madeServer   = "arn:aws:sagemaker:us-west-2:123456789012:mlflow-tracking-server/train-1-mlflow"
)

// newMLflowFixture is a fixture whose cluster has its shared bucket.
func newMLflowFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	f.sharedBucket(t)
	return f
}

// sharedBucket adds the cluster's shared bucket, sharedBucket, through the
// storage area.
func (f *fixture) sharedBucket(t *testing.T) {
	t.Helper()
	apptest.SharedBucket(t, f.app, f.cluster.ID, sharedBucket)
}

func (f *fixture) s3Bucket(t *testing.T, name string) {
	t.Helper()
	p, _ := f.world.Provider("us-west-2")
	if _, err := p.S3.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name),
		CreateBucketConfiguration: &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraintUsWest2}}); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) trackingServer(t *testing.T, name string) *sagemaker.DescribeMlflowTrackingServerOutput {
	t.Helper()
	p, _ := f.world.Provider("us-west-2")
	out, err := p.SageMaker.DescribeMlflowTrackingServer(context.Background(), &sagemaker.DescribeMlflowTrackingServerInput{TrackingServerName: aws.String(name)})
	if err != nil {
		t.Fatalf("describe tracking server %s: %v", name, err)
	}
	return out
}

// policyDocument reads the default version of a customer managed policy.
func (f *fixture) policyDocument(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	p, _ := f.world.Provider("us-west-2")
	arn := aws.String("arn:aws:iam::123456789012:policy/instantstart/" + name)
	pol, err := p.IAM.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: arn})
	if err != nil {
		t.Fatalf("policy %s: %v", name, err)
	}
	v, err := p.IAM.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: arn, VersionId: pol.Policy.DefaultVersionId})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := url.QueryUnescape(aws.ToString(v.PolicyVersion.Document))
	return doc
}

func phasesOf(ops []string) string { return strings.Join(ops, ",") }

func TestMLflowMakesATrackingServerAndItsChain(t *testing.T) {
	f := newMLflowFixture(t)
	ctx := context.Background()
	if got := f.feature(t, hyperpod.MLflow); got.Status != features.Disabled || len(got.Resources) != 0 {
		t.Fatalf("before: %+v", got)
	}
	if srv, err := f.svc.MLflow(ctx, f.cluster.ID); srv != nil || err != nil {
		t.Fatalf("MLflow for the jobs before: %+v, %v", srv, err)
	}

	before := f.mutations()
	on := features.Toggle{Name: hyperpod.MLflow, Enable: true, Settings: &features.Settings{}}
	op := f.update(t, on)
	var phases []string
	for _, p := range op.Phases {
		phases = append(phases, p.Name)
	}
	if want := "mlflow/addon-eks-pod-identity-agent,mlflow/server-policy,mlflow/server-role,mlflow/tracking-server,mlflow/policy,mlflow/role,mlflow/service-account,mlflow/pod-identity"; phasesOf(phases) != want {
		t.Fatalf("phases %v", phases)
	}
	want := []string{"eks.CreatePodIdentityAssociation", "iam.AttachRolePolicy", "iam.CreatePolicy", "iam.CreateRole", "kubernetes.create serviceaccounts", "sagemaker.CreateMlflowTrackingServer"}
	if got := f.made(before); !slices.Equal(got, want) {
		t.Fatalf("enabling made %v, want %v", got, want)
	}

	// The server: the defaults, running as the cluster's server role,
	// which SageMaker may assume and which may touch only mlflow/.
	srv := f.trackingServer(t, "train-1-mlflow")
	serverRole := "arn:aws:iam::123456789012:role/instantstart/instantstart-train-1-mlflow-server"
	if srv.TrackingServerStatus != smtypes.TrackingServerStatusCreated || srv.TrackingServerSize != smtypes.TrackingServerSizeS ||
		aws.ToString(srv.ArtifactStoreUri) != "s3://"+sharedBucket+"/mlflow/" || aws.ToString(srv.RoleArn) != serverRole || aws.ToString(srv.TrackingServerArn) != madeServer {
		t.Fatalf("tracking server %+v", srv)
	}
	p, _ := f.world.Provider("us-west-2")
	role, err := p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("instantstart-train-1-mlflow-server")})
	if err != nil || !strings.Contains(aws.ToString(role.Role.AssumeRolePolicyDocument), "sagemaker.amazonaws.com") {
		t.Fatalf("server role %+v, %v", role, err)
	}
	artifacts := f.policyDocument(t, "instantstart-train-1-mlflow-server")
	for _, w := range []string{`"arn:aws:s3:::train-1-shared/mlflow/*"`, `"s3:prefix":"mlflow/*"`, `"s3:GetObject","s3:PutObject"`, `"s3:ListBucket"`} {
		if !strings.Contains(artifacts, w) {
			t.Errorf("artifact policy %s lacks %s", artifacts, w)
		}
	}
	if strings.Contains(artifacts, `"arn:aws:s3:::train-1-shared/*"`) {
		t.Errorf("artifact policy %s reaches the whole bucket", artifacts)
	}
	// The pods: one policy on exactly this server, a service account, and
	// its pod identity association.
	if doc := f.policyDocument(t, "instantstart-train-1-mlflow"); doc != `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["sagemaker-mlflow:*"],"Resource":["`+madeServer+`"]}]}` {
		t.Fatalf("pods' policy %s", doc)
	}
	kc, err := p.Kubernetes.Clients(ctx, f.cluster.EKS.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Core.CoreV1().ServiceAccounts("default").Get(ctx, cloud.MLflowServiceAccount, metav1.GetOptions{}); err != nil {
		t.Fatalf("the jobs' service account: %v", err)
	}

	got := f.feature(t, hyperpod.MLflow)
	var kinds []string
	for _, r := range got.Resources {
		kinds = append(kinds, r.Kind)
	}
	if got.Status != features.Enabled || got.Settings == nil || got.Settings.TrackingServerArn != madeServer || got.Settings.TrackingServerSize != "Small" ||
		!slices.Contains(kinds, "MLFLOW_TRACKING_SERVER") || len(kinds) != 8 {
		t.Fatalf("after enabling: %+v", got)
	}
	forJobs, err := f.svc.MLflow(ctx, f.cluster.ID)
	if err != nil || forJobs == nil || forJobs.TrackingServerArn != madeServer || forJobs.Namespace != "default" || forJobs.ServiceAccount != cloud.MLflowServiceAccount {
		t.Fatalf("MLflow for the jobs: %+v, %v", forJobs, err)
	}

	// Again: nothing to do. Another size: refused, nothing made.
	before = f.mutations()
	if op := f.update(t, on); !op.Noop {
		t.Fatal("enabling twice was not a no-op")
	}
	_, err = f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.MLflow, Enable: true, Settings: &features.Settings{TrackingServerSize: "Large"}}}, "")
	if e := only(err); e.Code != errs.Precondition || e.Field != "input.mlflow.trackingServerName" || !strings.Contains(e.Message, "turn MLFLOW off first") {
		t.Fatalf("another size: %v", err)
	}
	simtest.NoMutationSince(t, f.world, before)

	// Off: everything it made goes, in reverse; the shared add-on stays.
	op = f.update(t, features.Toggle{Name: hyperpod.MLflow})
	want = []string{"eks.DeletePodIdentityAssociation", "iam.DeletePolicy", "iam.DeleteRole", "iam.DetachRolePolicy", "kubernetes.delete serviceaccounts", "sagemaker.DeleteMlflowTrackingServer"}
	if got := f.made(before); !slices.Equal(got, want) {
		t.Fatalf("disabling made %v, want %v", got, want)
	}
	if op.Phases[0].Name != "mlflow/pod-identity" || op.Phases[len(op.Phases)-1].Name != "mlflow/server-policy" {
		t.Fatalf("disable phases %s ... %s", op.Phases[0].Name, op.Phases[len(op.Phases)-1].Name)
	}
	if _, err := p.SageMaker.DescribeMlflowTrackingServer(ctx, &sagemaker.DescribeMlflowTrackingServerInput{TrackingServerName: aws.String("train-1-mlflow")}); !errs.IsNotFound(err) {
		t.Fatalf("the made server after disabling: %v", err)
	}
	if got := f.feature(t, hyperpod.MLflow); got.Status != features.Disabled {
		t.Fatalf("after disabling: %+v", got)
	}
	if srv, err := f.svc.MLflow(ctx, f.cluster.ID); srv != nil || err != nil {
		t.Fatalf("MLflow for the jobs after disabling: %+v, %v", srv, err)
	}
}

func TestMLflowUsesAnExistingServerAndLeavesIt(t *testing.T) {
	f := newMLflowFixture(t)
	ctx := context.Background()
	p, _ := f.world.Provider("us-west-2")
	f.s3Bucket(t, "team-mlflow")
	if _, err := p.IAM.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("team-mlflow"),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"sagemaker.amazonaws.com"},"Action":"sts:AssumeRole"}]}`)}); err != nil {
		t.Fatal(err)
	}
	hold, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultHold, Service: "sagemaker", Operation: "CreateMlflowTrackingServer"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.SageMaker.CreateMlflowTrackingServer(ctx, &sagemaker.CreateMlflowTrackingServerInput{TrackingServerName: aws.String("team"),
		ArtifactStoreUri: aws.String("s3://team-mlflow/"), RoleArn: aws.String("arn:aws:iam::123456789012:role/team-mlflow")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.TrackingServerArn)
	use := features.Toggle{Name: hyperpod.MLflow, Enable: true, Settings: &features.Settings{TrackingServerArn: arn}}

	// Not yet Created, or not there at all: refused before anything is made.
	before := f.mutations()
	_, err = f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{use}, "")
	if e := only(err); e.Code != errs.Precondition || e.Field != "input.mlflow.trackingServerArn" || !strings.Contains(e.Message, "Creating") {
		t.Fatalf("a Creating server: %v", err)
	}
	missing := use
	missing.Settings = &features.Settings{TrackingServerArn: strings.TrimSuffix(arn, "team") + "nobody"}
	_, err = f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{missing}, "")
	if e := only(err); e.Code != errs.Precondition || e.Field != "input.mlflow.trackingServerArn" || !strings.Contains(e.Message, "does not exist") {
		t.Fatalf("a server that does not exist: %v", err)
	}
	simtest.NoMutationSince(t, f.world, before)
	if err := f.world.ClearFault(hold.ID); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the team's server Created", func() bool {
		return f.trackingServer(t, "team").TrackingServerStatus == smtypes.TrackingServerStatusCreated
	})

	before = f.mutations()
	f.update(t, use)
	want := []string{"eks.CreatePodIdentityAssociation", "iam.AttachRolePolicy", "iam.CreatePolicy", "iam.CreateRole", "kubernetes.create serviceaccounts"}
	if got := f.made(before); !slices.Equal(got, want) {
		t.Fatalf("using a server made %v, want %v", got, want)
	}
	if doc := f.policyDocument(t, "instantstart-train-1-mlflow"); !strings.Contains(doc, `"Resource":["`+arn+`"]`) {
		t.Fatalf("pods' policy %s", doc)
	}
	got := f.feature(t, hyperpod.MLflow)
	i := slices.IndexFunc(got.Resources, func(r features.Resource) bool { return r.Kind == "MLFLOW_TRACKING_SERVER" })
	if got.Status != features.Enabled || i < 0 || !got.Resources[i].Shared || got.Resources[i].Ref != arn || got.Settings.TrackingServerName != "" {
		t.Fatalf("after enabling: %+v", got)
	}
	srv, err := f.svc.MLflow(ctx, f.cluster.ID)
	if err != nil || srv == nil || srv.TrackingServerArn != arn {
		t.Fatalf("MLflow for the jobs: %+v, %v", srv, err)
	}
	// Asking for a server to be made instead is refused while this one is used.
	_, err = f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.MLflow, Enable: true, Settings: &features.Settings{TrackingServerName: "mine"}}}, "")
	if e := only(err); e.Code != errs.Precondition || !strings.Contains(e.Message, "another tracking server") {
		t.Fatalf("switching servers in place: %v", err)
	}

	// Off: the chain goes, the server it only used stays.
	before = f.mutations()
	f.update(t, features.Toggle{Name: hyperpod.MLflow})
	want = []string{"eks.DeletePodIdentityAssociation", "iam.DeletePolicy", "iam.DeleteRole", "iam.DetachRolePolicy", "kubernetes.delete serviceaccounts"}
	if got := f.made(before); !slices.Equal(got, want) {
		t.Fatalf("disabling made %v, want %v", got, want)
	}
	if s := f.trackingServer(t, "team").TrackingServerStatus; s != smtypes.TrackingServerStatusCreated {
		t.Fatalf("the server it used is %s after disabling", s)
	}
	if got := f.feature(t, hyperpod.MLflow); got.Status != features.Disabled {
		t.Fatalf("after disabling: %+v", got)
	}
}

func TestMLflowRefusesBadSettingsBeforeAnything(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	// No shared bucket: nothing to keep artifacts in, nor a namespace for
	// the jobs.
	before := f.mutations()
	_, err := f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.MLflow, Enable: true}}, "")
	if e := only(err); e.Code != errs.Precondition || !strings.Contains(e.Message, "addStorage with kind S3") {
		t.Fatalf("no shared bucket: %v", err)
	}
	simtest.NoMutationSince(t, f.world, before)

	f.sharedBucket(t)
	p, _ := f.world.Provider("us-west-2")
	// A server of the default name that this cluster did not make.
	if _, err := p.IAM.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("someone"), AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[]}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SageMaker.CreateMlflowTrackingServer(ctx, &sagemaker.CreateMlflowTrackingServerInput{TrackingServerName: aws.String("taken"),
		ArtifactStoreUri: aws.String("s3://" + sharedBucket + "/theirs/"), RoleArn: aws.String("arn:aws:iam::123456789012:role/someone")}); err != nil {
		t.Fatal(err)
	}

	before = f.mutations()
	for _, tc := range []struct {
		settings features.Settings
		code     errs.Code
		field    string
	}{
		{features.Settings{TrackingServerName: "bad_name"}, errs.Validation, "input.mlflow.trackingServerName"},
		{features.Settings{TrackingServerName: "-starts-badly"}, errs.Validation, "input.mlflow.trackingServerName"},
		{features.Settings{TrackingServerName: strings.Repeat("a", 257)}, errs.Validation, "input.mlflow.trackingServerName"},
		{features.Settings{TrackingServerSize: "Huge"}, errs.Validation, "input.mlflow.trackingServerSize"},
		{features.Settings{TrackingServerSize: "small"}, errs.Validation, "input.mlflow.trackingServerSize"},
		{features.Settings{ArtifactStoreURI: "https://example.com/mlflow"}, errs.Validation, "input.mlflow.artifactStoreUri"},
		{features.Settings{ArtifactStoreURI: "s3://Bad_Bucket/mlflow/"}, errs.Validation, "input.mlflow.artifactStoreUri"},
		{features.Settings{ArtifactStoreURI: "s3://" + sharedBucket + "//mlflow"}, errs.Validation, "input.mlflow.artifactStoreUri"},
		{features.Settings{ArtifactStoreURI: "s3://other-bucket/mlflow/"}, errs.Validation, "input.mlflow.artifactStoreUri"},
		{features.Settings{TrackingServerArn: "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc"}, errs.Validation, "input.mlflow.trackingServerArn"},
		{features.Settings{TrackingServerArn: "arn:aws:sagemaker:eu-west-1:123456789012:mlflow-tracking-server/x"}, errs.Validation, "input.mlflow.trackingServerArn"},
		{features.Settings{TrackingServerArn: madeServer, TrackingServerName: "both"}, errs.Validation, "input.mlflow.trackingServerArn"},
		{features.Settings{TrackingServerName: "taken"}, errs.Precondition, "input.mlflow.trackingServerName"},
	} {
		s := tc.settings
		_, err := f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.MLflow, Enable: true, Settings: &s}}, "")
		if codesOf(err) != string(tc.code) || !strings.Contains(fieldsOf(err), tc.field) {
			t.Errorf("%+v: %v (codes %s, fields %s)", clipped(tc.settings), err, codesOf(err), fieldsOf(err))
		}
	}
	simtest.NoMutationSince(t, f.world, before)
}

// clipped shortens the long names of a case for its message.
func clipped(s features.Settings) features.Settings {
	if len(s.TrackingServerName) > 40 {
		s.TrackingServerName = s.TrackingServerName[:40] + "..."
	}
	return s
}

// only is the one error a refusal carries (a refusal is an errs.List).
func only(err error) *errs.Error {
	list := listOf(err)
	if len(list) != 1 {
		return &errs.Error{Code: "NOT ONE ERROR", Message: codesOf(err)}
	}
	return list[0]
}
