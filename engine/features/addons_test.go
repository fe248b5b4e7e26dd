package features_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
)

// toggleMakes turns t and checks that it made exactly want, then that the
// same toggle again is a no-op with no mutating call.
func (f *fixture) toggleMakes(t *testing.T, toggle features.Toggle, want ...string) *ops.Operation {
	t.Helper()
	before := f.mutations()
	op := f.update(t, toggle)
	if got := f.made(before); !slices.Equal(got, want) {
		t.Fatalf("%s enable=%v made %v, want %v", toggle.Name, toggle.Enable, got, want)
	}
	before = f.mutations()
	if again := f.update(t, toggle); !again.Noop || len(f.made(before)) != 0 {
		t.Fatalf("%s enable=%v twice: noop %v, made %v", toggle.Name, toggle.Enable, again.Noop, f.made(before))
	}
	return op
}

func (f *fixture) provider(t *testing.T) *cloud.Provider {
	t.Helper()
	p, err := f.world.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// groupChecks reads the deep health checks of each instance group.
func (f *fixture) groupChecks(t *testing.T) map[string][]string {
	t.Helper()
	out, err := f.provider(t).SageMaker.DescribeCluster(context.Background(), &sagemaker.DescribeClusterInput{ClusterName: aws.String(f.cluster.HyperPod.Name)})
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string][]string{}
	for _, g := range out.InstanceGroups {
		checks[aws.ToString(g.InstanceGroupName)] = []string{}
		for _, c := range g.OnStartDeepHealthChecks {
			checks[aws.ToString(g.InstanceGroupName)] = append(checks[aws.ToString(g.InstanceGroupName)], string(c))
		}
	}
	return checks
}

func TestDeepHealthChecksCoverTheAcceleratedGroups(t *testing.T) {
	f := newFixtureWith(t, []hyperpod.GroupSpec{
		{Name: "gpu", InstanceTypes: []string{"ml.g5.xlarge"}, Count: 1, Zone: "us-west-2a"},
		{Name: "cpu", InstanceTypes: []string{"ml.m5.xlarge"}, Count: 1, Zone: "us-west-2a"},
	})
	ctx := context.Background()
	got := f.feature(t, hyperpod.DeepHealthChecks)
	if got.Status != features.Disabled || len(got.Resources) != 0 {
		t.Fatalf("before: %+v", got)
	}

	// A group without accelerators and an unknown check are refused.
	before := f.mutations()
	_, err := f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.DeepHealthChecks, Enable: true,
		Settings: &features.Settings{InstanceGroups: []string{"cpu"}, Checks: []string{"InstanceStress", "Vibes"}}}}, "")
	if fields := fieldsOf(err); !strings.Contains(fields, "input.deepHealthChecks.instanceGroups[0]") || !strings.Contains(fields, "input.deepHealthChecks.checks[1]") {
		t.Fatalf("cpu group and unknown check: %v", err)
	}
	if got := f.made(before); len(got) != 0 {
		t.Fatalf("a refused request made %v", got)
	}

	// By default the checks go on every accelerated group, and only there.
	on := features.Toggle{Name: hyperpod.DeepHealthChecks, Enable: true}
	f.toggleMakes(t, on, "sagemaker.UpdateCluster")
	checks := f.groupChecks(t)
	if !slices.Equal(checks["gpu"], []string{"InstanceStress", "InstanceConnectivity"}) || len(checks["cpu"]) != 0 {
		t.Fatalf("after enabling: %v", checks)
	}
	got = f.feature(t, hyperpod.DeepHealthChecks)
	if got.Status != features.Enabled || len(got.Resources) != 1 || got.Settings == nil || !slices.Equal(got.Settings.InstanceGroups, []string{"gpu"}) {
		t.Fatalf("after enabling: %+v", got)
	}
	target, _ := f.groupCounts(t, "gpu")
	if target != 1 {
		t.Fatalf("the gpu group's count changed to %d", target)
	}

	f.toggleMakes(t, features.Toggle{Name: hyperpod.DeepHealthChecks}, "sagemaker.UpdateCluster")
	if checks := f.groupChecks(t); len(checks["gpu"]) != 0 {
		t.Fatalf("after disabling: %v", checks)
	}
}

func TestDeepHealthChecksWithoutAcceleratedGroups(t *testing.T) {
	f := newFixtureWith(t, []hyperpod.GroupSpec{{Name: "cpu", InstanceTypes: []string{"ml.m5.xlarge"}, Count: 1, Zone: "us-west-2a"}})
	got := f.feature(t, hyperpod.DeepHealthChecks)
	if got.Status != features.Disabled || !strings.Contains(got.Message, "no instance group of GPU or Trainium") {
		t.Fatalf("table row: %+v", got)
	}
	_, err := f.svc.Update(context.Background(), "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.DeepHealthChecks, Enable: true}}, "")
	if !strings.Contains(codesOf(err), string(errs.Precondition)) {
		t.Fatalf("enabling with no accelerated group: %v", err)
	}
}

func TestS3CSIDriverChainAndBucketChange(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, bad := range []*features.Settings{{}, {Buckets: []string{"Bad_Bucket"}}, {Buckets: []string{"data", "data"}}} {
		_, err := f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.S3CSIDriver, Enable: true, Settings: bad}}, "")
		if !strings.Contains(fieldsOf(err), "input.s3CsiDriver.buckets") {
			t.Errorf("buckets %v: %v", bad.Buckets, err)
		}
	}

	on := features.Toggle{Name: hyperpod.S3CSIDriver, Enable: true, Settings: &features.Settings{Buckets: []string{"datasets"}}}
	f.toggleMakes(t, on, "eks.CreateAddon", "iam.AttachRolePolicy", "iam.CreatePolicy", "iam.CreateRole")
	p := f.provider(t)
	addon, err := p.EKS.DescribeAddon(ctx, &eks.DescribeAddonInput{ClusterName: aws.String("train-1"), AddonName: aws.String("aws-mountpoint-s3-csi-driver")})
	if err != nil || aws.ToString(addon.Addon.ServiceAccountRoleArn) != "arn:aws:iam::123456789012:role/instantstart/instantstart-train-1-s3-csi" {
		t.Fatalf("add-on %+v, %v", addon, err)
	}
	role, err := p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("instantstart-train-1-s3-csi")})
	if err != nil || !strings.Contains(aws.ToString(role.Role.AssumeRolePolicyDocument), "system%3Aserviceaccount%3Akube-system%3As3-csi-driver-sa") {
		t.Fatalf("role %+v, %v", role, err)
	}

	// Another list of buckets is a new version of the policy, nothing else.
	more := features.Toggle{Name: hyperpod.S3CSIDriver, Enable: true, Settings: &features.Settings{Buckets: []string{"datasets", "models"}}}
	f.toggleMakes(t, more, "iam.CreatePolicyVersion")
	got := f.feature(t, hyperpod.S3CSIDriver)
	if got.Status != features.Enabled || got.Message != "" || !slices.Equal(got.Settings.Buckets, []string{"datasets", "models"}) {
		t.Fatalf("after the change: %+v", got)
	}

	// Disabling removes the add-on, the role and every version of the policy.
	f.toggleMakes(t, features.Toggle{Name: hyperpod.S3CSIDriver},
		"eks.DeleteAddon", "iam.DeletePolicy", "iam.DeletePolicyVersion", "iam.DeleteRole", "iam.DetachRolePolicy")
	if got := f.feature(t, hyperpod.S3CSIDriver); got.Status != features.Disabled || len(got.Resources) != 0 {
		t.Fatalf("after disabling: %+v", got)
	}
}

func TestObservabilityWritesToTheWorkspace(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.Observability, Enable: true,
		Settings: &features.Settings{WorkspaceArn: "arn:aws:aps:eu-west-1:123456789012:workspace/ws-abc"}}}, "")
	if !strings.Contains(fieldsOf(err), "input.observability.prometheusWorkspaceArn") || !strings.Contains(err.Error(), "us-west-2") {
		t.Fatalf("a workspace in another region: %v", err)
	}

	ws := "arn:aws:aps:us-west-2:123456789012:workspace/ws-1111"
	op := f.toggleMakes(t, features.Toggle{Name: hyperpod.Observability, Enable: true, Settings: &features.Settings{WorkspaceArn: ws}},
		"eks.CreateAddon", "eks.CreatePodIdentityAssociation", "iam.AttachRolePolicy", "iam.CreateRole")
	if op.Phases[0].Name != "observability/addon-eks-pod-identity-agent" {
		t.Fatalf("the pod identity agent is not first: %s", op.Phases[0].Name)
	}
	p := f.provider(t)
	values := func() map[string]any {
		out, err := p.EKS.DescribeAddon(ctx, &eks.DescribeAddonInput{ClusterName: aws.String("train-1"), AddonName: aws.String("amazon-sagemaker-hyperpod-observability")})
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(aws.ToString(out.Addon.ConfigurationValues)), &v); err != nil {
			t.Fatal(err)
		}
		return v["ampWorkspace"].(map[string]any)
	}
	if v := values(); v["arn"] != ws || v["prometheusEndpoint"] != "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1111" {
		t.Fatalf("configuration %v", v)
	}
	assoc, err := p.EKS.ListPodIdentityAssociations(ctx, &eks.ListPodIdentityAssociationsInput{ClusterName: aws.String("train-1"),
		Namespace: aws.String("hyperpod-observability"), ServiceAccount: aws.String("hyperpod-observability-operator-otel-collector")})
	if err != nil || len(assoc.Associations) != 1 {
		t.Fatalf("pod identity %+v, %v", assoc, err)
	}

	// Another workspace updates the add-on in place.
	other := "arn:aws:aps:us-west-2:123456789012:workspace/ws-2222"
	f.toggleMakes(t, features.Toggle{Name: hyperpod.Observability, Enable: true, Settings: &features.Settings{WorkspaceArn: other}}, "eks.UpdateAddon")
	if v := values(); v["arn"] != other {
		t.Fatalf("configuration after the change %v", v)
	}

	// Disabling leaves the shared pod identity agent.
	f.toggleMakes(t, features.Toggle{Name: hyperpod.Observability},
		"eks.DeleteAddon", "eks.DeletePodIdentityAssociation", "iam.DeleteRole", "iam.DetachRolePolicy")
	got := f.feature(t, hyperpod.Observability)
	if got.Status != features.Disabled || len(got.Resources) != 1 || !got.Resources[0].Shared {
		t.Fatalf("after disabling: %+v", got)
	}
}

func TestInferenceOperatorChain(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.InferenceOperator, Enable: true, Settings: &features.Settings{}}}, "")
	if !strings.Contains(fieldsOf(err), "input.inferenceOperator.tlsCertificateBucket") {
		t.Fatalf("no bucket: %v", err)
	}
	on := features.Toggle{Name: hyperpod.InferenceOperator, Enable: true, Settings: &features.Settings{Bucket: "tls-certs"}}
	op := f.toggleMakes(t, on, "eks.CreateAddon", "iam.AttachRolePolicy", "iam.CreatePolicy", "iam.CreateRole")
	var phases []string
	for _, ph := range op.Phases {
		phases = append(phases, ph.Name)
	}
	if !slices.Equal(phases, []string{"inference-operator/addon-cert-manager", "inference-operator/policy", "inference-operator/role", "inference-operator/addon-amazon-sagemaker-hyperpod-inference"}) {
		t.Fatalf("phases %v", phases)
	}
	p := f.provider(t)
	out, err := p.EKS.DescribeAddon(ctx, &eks.DescribeAddonInput{ClusterName: aws.String("train-1"), AddonName: aws.String("amazon-sagemaker-hyperpod-inference")})
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(aws.ToString(out.Addon.ConfigurationValues)), &v); err != nil ||
		v["executionRoleArn"] != "arn:aws:iam::123456789012:role/instantstart/instantstart-train-1-inference-operator" || v["tlsCertificateS3Bucket"] != "tls-certs" {
		t.Fatalf("configuration %v, %v", v, err)
	}
	role, err := p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("instantstart-train-1-inference-operator")})
	if err != nil || !strings.Contains(aws.ToString(role.Role.AssumeRolePolicyDocument), "hyperpod-inference-system%3Ahyperpod-inference-operator-controller-manager") {
		t.Fatalf("role %+v, %v", role, err)
	}
	f.toggleMakes(t, features.Toggle{Name: hyperpod.InferenceOperator}, "eks.DeleteAddon", "iam.DeletePolicy", "iam.DeleteRole", "iam.DetachRolePolicy")
}

func TestKubeRayAndKEDAAreHelmReleases(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	before := f.mutations()
	f.update(t, features.Toggle{Name: hyperpod.KubeRay, Enable: true}, features.Toggle{Name: hyperpod.KEDA, Enable: true})
	// KEDA's operator also gets a pod identity role that may query
	// Prometheus, for the ScaledObjects of endpoints.
	want := []string{"eks.CreatePodIdentityAssociation", "helm.Install", "iam.AttachRolePolicy", "iam.CreateRole"}
	if got := f.made(before); !slices.Equal(got, want) || f.mutations()["helm.Install"]-before["helm.Install"] != 2 {
		t.Fatalf("made %v, want %v", got, want)
	}
	before = f.mutations()
	if op := f.update(t, features.Toggle{Name: hyperpod.KubeRay, Enable: true}, features.Toggle{Name: hyperpod.KEDA, Enable: true}); !op.Noop || len(f.made(before)) != 0 {
		t.Fatal("installing twice was not a no-op")
	}
	for name, ref := range map[hyperpod.Feature]string{hyperpod.KubeRay: "helm release kuberay/kuberay-operator", hyperpod.KEDA: "helm release keda/keda"} {
		got := f.feature(t, name)
		last := got.Resources[len(got.Resources)-1]
		if got.Status != features.Enabled || last.Kind != "HELM_RELEASE" || last.Ref != ref {
			t.Fatalf("%s: %+v", name, got)
		}
	}
	kc, err := f.provider(t).Kubernetes.Clients(ctx, "train-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Core.AppsV1().Deployments("kuberay").Get(ctx, "kuberay-operator", metav1.GetOptions{}); err != nil {
		t.Fatalf("the operator's deployment: %v", err)
	}
	f.toggleMakes(t, features.Toggle{Name: hyperpod.KubeRay}, "helm.Uninstall")
	if got := f.feature(t, hyperpod.KubeRay); got.Status != features.Disabled {
		t.Fatalf("after removing: %+v", got)
	}

	// A release Helm reports failed fails the toggle and shows why.
	fault, err := sim.ParseFault("fail:service=helm,message=pods not ready")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.world.InjectFault(fault); err != nil {
		t.Fatal(err)
	}
	op, err := f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.KubeRay, Enable: true}}, "")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	done := op
	for !done.Status.Terminal() && err == nil && time.Now().Before(deadline) {
		done, err = f.runner.Wait(ctx, op.ID, time.Until(deadline))
	}
	if err != nil || done.Status != ops.Failed {
		t.Fatalf("operation %+v, %v", done, err)
	}
	if got := f.feature(t, hyperpod.KubeRay); got.Status != features.Failed || !strings.Contains(got.Message, "pods not ready") {
		t.Fatalf("after the failed install: %+v", got)
	}

	// Enabling again upgrades the failed release in place.
	f.world.ClearFaults()
	before = f.mutations()
	f.update(t, features.Toggle{Name: hyperpod.KubeRay, Enable: true})
	if got := f.made(before); !slices.Equal(got, []string{"helm.Install"}) {
		t.Fatalf("retrying made %v", got)
	}
	if got := f.feature(t, hyperpod.KubeRay); got.Status != features.Enabled || !strings.Contains(got.Resources[0].Detail, "revision 2 deployed") {
		t.Fatalf("after the retry: %+v", got)
	}
}
