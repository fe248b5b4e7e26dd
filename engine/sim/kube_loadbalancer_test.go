package sim

import (
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/instantstart/instantstart/engine/cloud"
)

func lbcChartOf(version string) cloud.HelmChart {
	return cloud.HelmChart{
		Release: "aws-load-balancer-controller", Namespace: "kube-system",
		Repository: "https://aws.github.io/eks-charts", Chart: "aws-load-balancer-controller", Version: version,
		Values: map[string]any{"clusterName": "eks"},
	}
}

// nlbService is a Service of type LoadBalancer as the control plane makes
// one for an endpoint, with annotations added to its own.
func nlbService(name string, annotations map[string]string) *corev1.Service {
	a := map[string]string{
		"service.beta.kubernetes.io/aws-load-balancer-type":            "external",
		"service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip",
		"service.beta.kubernetes.io/aws-load-balancer-scheme":          "internet-facing",
	}
	for k, v := range annotations {
		if v == "" {
			delete(a, k)
		} else {
			a[k] = v
		}
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Annotations: a},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeLoadBalancer, LoadBalancerClass: new(lbcClass), Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}},
		},
	}
}

func hostnameOf(f *fixture, kc *cloud.KubeClients, name string) string {
	f.t.Helper()
	svc := ok(kc.Core.CoreV1().Services("default").Get(f.ctx, name, metav1.GetOptions{})).must(f.t)
	if in := svc.Status.LoadBalancer.Ingress; len(in) > 0 {
		return in[0].Hostname
	}
	return ""
}

func TestLoadBalancerControllerChart(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	ok(f.p.Helm.Install(f.ctx, "eks", lbcChartOf(""))).must(t)
	f.advance(helmInstallTime)
	r := f.release("kube-system", "aws-load-balancer-controller")
	if r.Status != cloud.HelmDeployed || r.ChartVersion != "1.13.4" || r.AppVersion != "v2.13.4" {
		t.Errorf("release = %+v", r)
	}
	d, found := deployments(f, kc, "kube-system")["aws-load-balancer-controller"]
	if !found || !available(d) || d.Spec.Template.Spec.Containers[0].Image != "public.ecr.aws/eks/aws-load-balancer-controller:v2.13.4" ||
		d.Labels["app.kubernetes.io/version"] != "v2.13.4" || d.Labels["helm.sh/chart"] != "aws-load-balancer-controller-1.13.4" {
		t.Errorf("controller Deployment = %+v", d)
	}
	ok(f.p.Helm.Install(f.ctx, "eks", lbcChartOf("1.12.0"))).must(t)
	f.advance(helmUpgradeTime)
	if r := f.release("kube-system", "aws-load-balancer-controller"); r.ChartVersion != "1.12.0" || r.AppVersion != "v2.12.0" {
		t.Errorf("after the downgrade: %+v", r)
	}
	if _, err := f.p.Helm.Install(f.ctx, "eks", lbcChartOf("2.13.4")); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("an app version as the chart's: %v", err)
	}
}

func TestLoadBalancerServiceGetsItsHostnameWhileTheControllerRuns(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	core := kc.Core.CoreV1().Services("default")
	svc := ok(core.Create(f.ctx, nlbService("vllm-qwen3-8b", nil), metav1.CreateOptions{})).must(t)
	f.advance(time.Hour)
	if h := hostnameOf(f, kc, svc.Name); h != "" {
		t.Fatalf("a hostname without the controller: %s", h)
	}
	ok(f.p.Helm.Install(f.ctx, "eks", lbcChartOf("1.13.4"))).must(t)
	f.advance(helmInstallTime)
	if h := hostnameOf(f, kc, svc.Name); h != "" {
		t.Errorf("a hostname as the controller starts: %s", h)
	}
	f.advance(lbProvisionTime)
	want := regexp.MustCompile(`^k8s-default-vllmqwen-[0-9a-f]{10}\.elb\.us-west-2\.amazonaws\.com$`)
	h := hostnameOf(f, kc, svc.Name)
	if !want.MatchString(h) {
		t.Fatalf("hostname %q, want one like %s", h, want)
	}
	if h != lbcDNSName("eks", "us-west-2", "internet-facing", svc) {
		t.Errorf("hostname %q is not the controller's for the Service", h)
	}
	// The hostname is the scheme's and the Service's: an internal one of
	// the same name made again differs.
	if lbcDNSName("eks", "us-west-2", "internal", svc) == h {
		t.Error("the scheme does not change the name")
	}
	events := ok(kc.Core.CoreV1().Events("default").List(f.ctx, metav1.ListOptions{})).must(t).Items
	if len(events) != 1 || events[0].Reason != "SuccessfullyReconciled" || events[0].Type != corev1.EventTypeNormal || events[0].Source.Component != "service" {
		t.Errorf("events = %+v", events)
	}
	// It stays once the controller goes, as the load balancer does.
	if err := f.p.Helm.Uninstall(f.ctx, "eks", "kube-system", "aws-load-balancer-controller"); err != nil {
		t.Fatal(err)
	}
	f.advance(helmUninstallTime)
	if got := hostnameOf(f, kc, svc.Name); got != h {
		t.Errorf("hostname after the controller went: %q", got)
	}
	// A new Service stays pending without the controller.
	ok(core.Create(f.ctx, nlbService("sglang-llama", nil), metav1.CreateOptions{})).must(t)
	f.advance(time.Hour)
	if got := hostnameOf(f, kc, "sglang-llama"); got != "" {
		t.Errorf("a hostname after the controller went: %q", got)
	}
}

func TestLoadBalancerControllerLeavesOthersAlone(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	ok(f.p.Helm.Install(f.ctx, "eks", lbcChartOf("1.13.4"))).must(t)
	f.advance(helmInstallTime)
	core := kc.Core.CoreV1().Services("default")
	// By annotation alone, without the class, it is the controller's.
	annotated := nlbService("annotated", nil)
	annotated.Spec.LoadBalancerClass = nil
	ok(core.Create(f.ctx, annotated, metav1.CreateOptions{})).must(t)
	// Neither class nor annotation: the in-tree provider's, left alone.
	plain := nlbService("plain", map[string]string{lbcTypeAnnotation: "", lbcTargetType: "", lbcSchemeKey: ""})
	plain.Spec.LoadBalancerClass = nil
	ok(core.Create(f.ctx, plain, metav1.CreateOptions{})).must(t)
	other := nlbService("other-class", nil)
	other.Spec.LoadBalancerClass = new("example.com/lb")
	ok(core.Create(f.ctx, other, metav1.CreateOptions{})).must(t)
	bad := ok(core.Create(f.ctx, nlbService("bad-scheme", map[string]string{lbcSchemeKey: "public"}), metav1.CreateOptions{})).must(t)
	f.advance(lbProvisionTime)
	if h := hostnameOf(f, kc, "annotated"); !strings.HasPrefix(h, "k8s-default-annotate-") {
		t.Errorf("annotated Service's hostname %q", h)
	}
	for _, name := range []string{"plain", "other-class", "bad-scheme"} {
		if h := hostnameOf(f, kc, name); h != "" {
			t.Errorf("Service %s got hostname %q", name, h)
		}
	}
	f.advance(time.Minute)
	var warnings []corev1.Event
	for _, e := range ok(kc.Core.CoreV1().Events("default").List(f.ctx, metav1.ListOptions{})).must(t).Items {
		if e.Type == corev1.EventTypeWarning {
			warnings = append(warnings, e)
		}
	}
	if len(warnings) != 1 || warnings[0].InvolvedObject.UID != bad.UID || warnings[0].Reason != "FailedBuildModel" ||
		warnings[0].Message != "Failed build model due to unknown scheme: public" {
		t.Errorf("warnings = %+v, want one FailedBuildModel of bad-scheme", warnings)
	}
}
