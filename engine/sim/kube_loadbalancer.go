package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/instantstart/instantstart/engine/cloud"
)

// The AWS Load Balancer Controller's Service reconciler, as a settle plays
// it after the scheduler (see playInference), while a Helm release of the
// aws-load-balancer-controller chart is deployed (or being upgraded) in
// the cluster. It takes the Services of type LoadBalancer it supports, as
// the controller decides: loadBalancerClass service.k8s.aws/nlb, or
// without a class the annotation
// service.beta.kubernetes.io/aws-load-balancer-type nlb-ip, or external
// with aws-load-balancer-nlb-target-type ip or instance. Others (no class
// and no such annotation, which EKS's in-tree cloud provider would give a
// Classic Load Balancer, or another class) are left alone, pending.
//
//   - The scheme is service.beta.kubernetes.io/aws-load-balancer-scheme,
//     internal or internet-facing (internal when not set). Another value
//     fails the Service's model: it is left pending, with the controller's
//     Warning event FailedBuildModel, "Failed build model due to unknown
//     scheme: <value>".
//   - Otherwise the Network Load Balancer is made: lbProvisionTime (real
//     time, divided by the world's speed) after the later of the
//     Service's creation and the controller's start, the Service's
//     status.loadBalancer.ingress[0].hostname is its DNS name, and a Normal
//     event SuccessfullyReconciled is recorded. The name is the
//     controller's: k8s-<namespace>-<name>-<10 hex>, the namespace and the
//     name stripped to letters and digits and cut to 8 characters, the hex
//     from a SHA-256 of the EKS cluster's name, the Service's uid and the
//     scheme; the DNS name is <name>.elb.<region>.amazonaws.com.
//
// Once set, the hostname stays: nothing takes it back if the controller
// goes (as on a real cluster, where the load balancer outlives it). Left
// out: the load balancer itself (no ELB API), its target groups,
// security groups and finalizer, Ingresses (ALBs) and the
// TargetGroupBinding kind, and the real DNS name's trailing
// -<16 hex> id.

// The chart and what the controller recognises.
const (
	lbcChart          = "aws-load-balancer-controller"
	lbcClass          = "service.k8s.aws/nlb"
	lbcTypeAnnotation = "service.beta.kubernetes.io/aws-load-balancer-type"
	lbcTargetType     = "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"
	lbcSchemeKey      = "service.beta.kubernetes.io/aws-load-balancer-scheme"
	lbcComponent      = "service"
)

// lbProvisionTime is how long, in real time, the controller takes to make
// a Service's Network Load Balancer and write its DNS name.
const lbProvisionTime = 30 * time.Second

// lbcInvalidName matches what the controller strips from a namespace and
// a name to build a load balancer's name.
var lbcInvalidName = regexp.MustCompile("[[:^alnum:]]")

// lbControllerSince tells whether the AWS Load Balancer Controller runs in
// the session's cluster, and since when.
func (s *kubeSession) lbControllerSince() (time.Time, bool) {
	hc := s.t.st.Helm[kubeClusterKey(s.rec.Region, s.rec.Name)]
	if hc == nil || hc.EKSID != s.rec.EKSID {
		return time.Time{}, false
	}
	var since time.Time
	found := false
	for _, key := range sortedKeys(hc.Releases) {
		r := hc.Releases[key]
		if r.Chart != lbcChart {
			continue
		}
		at := r.Life.ReadyAt
		switch r.status(s.t.now) {
		case cloud.HelmDeployed:
		case cloud.HelmPendingUpgrade:
			at = r.Life.CreatedAt // the previous revision still runs
		default:
			continue
		}
		if !found || at.Before(since) {
			since, found = at, true
		}
	}
	return since, found
}

// lbcSupports tells whether the controller takes svc, as its Service
// reconciler decides.
func lbcSupports(svc *corev1.Service) bool {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer || svc.DeletionTimestamp != nil {
		return false
	}
	if c := svc.Spec.LoadBalancerClass; c != nil {
		return *c == lbcClass
	}
	switch svc.Annotations[lbcTypeAnnotation] {
	case "nlb-ip":
		return true
	case "external":
		t := svc.Annotations[lbcTargetType]
		return t == "ip" || t == "instance"
	}
	return false
}

// lbcScheme is svc's load balancer scheme, or an error in the
// controller's words.
func lbcScheme(svc *corev1.Service) (string, error) {
	v, ok := svc.Annotations[lbcSchemeKey]
	switch {
	case !ok:
		return "internal", nil
	case v == "internal" || v == "internet-facing":
		return v, nil
	}
	return "", fmt.Errorf("unknown scheme: %v", v)
}

// lbcDNSName is the DNS name of the Network Load Balancer the controller
// makes for svc with scheme in EKS cluster cluster of region.
func lbcDNSName(cluster, region, scheme string, svc *corev1.Service) string {
	h := sha256.New()
	h.Write([]byte(cluster))
	h.Write([]byte(svc.UID))
	h.Write([]byte(scheme))
	id := hex.EncodeToString(h.Sum(nil))
	ns := lbcInvalidName.ReplaceAllString(svc.Namespace, "")
	name := lbcInvalidName.ReplaceAllString(svc.Name, "")
	return fmt.Sprintf("k8s-%.8s-%.8s-%.10s.elb.%s.amazonaws.com", ns, name, id, region)
}

// playLoadBalancers plays the controller for every Service (see the top
// of this file). It returns the coming moments at which a load balancer
// is due.
func (s *kubeSession) playLoadBalancers() ([]time.Time, error) {
	since, on := s.lbControllerSince()
	if !on {
		return nil, nil
	}
	objs, err := s.list(inferenceServicesKey, "")
	if err != nil {
		return nil, err
	}
	var wakes []time.Time
	for _, obj := range objs {
		var svc corev1.Service
		if err := kubeDecodeAs(obj, &svc); err != nil {
			return nil, err
		}
		if !lbcSupports(&svc) || len(svc.Status.LoadBalancer.Ingress) > 0 {
			continue
		}
		scheme, err := lbcScheme(&svc)
		if err != nil {
			kubeRecordEvent(s, obj, corev1.EventTypeWarning, "FailedBuildModel", "Failed build model due to "+err.Error(), lbcComponent)
			continue
		}
		start := svc.CreationTimestamp.Time
		if since.After(start) {
			start = since
		}
		at := start.Add(s.t.w.scale(lbProvisionTime))
		if s.t.now.Before(at) {
			wakes = append(wakes, at)
			continue
		}
		next := obj.DeepCopy()
		ingress := []any{map[string]any{"hostname": lbcDNSName(s.eks.Name, s.rec.Region, scheme, &svc)}}
		if err := unstructured.SetNestedField(next.Object, ingress, "status", "loadBalancer", "ingress"); err != nil {
			return nil, err
		}
		s.put(inferenceServicesKey, obj, next)
		kubeRecordEvent(s, next, corev1.EventTypeNormal, "SuccessfullyReconciled", "Successfully reconciled", lbcComponent)
	}
	return wakes, nil
}
