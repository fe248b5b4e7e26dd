package inference

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
)

// DeployRouter puts the SGLang router in front of SGLang endpoint id, or
// changes its policy: a service account allowed to watch the namespace's
// pods (the router discovers the endpoint's pods by their app label), the
// router's Deployment and its ClusterIP Service. Invocations go through
// the router from then on.
func (s *Service) DeployRouter(ctx context.Context, caller, id string, policy RouterPolicy, idempotencyKey string) (*ops.Operation, error) {
	fingerprint := [2]string{id, string(policy)}
	if op, err := s.replay(KindRouter, caller, idempotencyKey, fingerprint); op != nil || err != nil {
		return op, err
	}
	switch policy {
	case CacheAware, RoundRobin, Random, PowerOfTwo:
	default:
		return nil, errs.Field("policy", "policy must be CACHE_AWARE, ROUND_ROBIN, RANDOM or POWER_OF_TWO")
	}
	e, err := s.live(id, "endpointId")
	if err != nil {
		return nil, err
	}
	if e.Engine != SGLang {
		return nil, errs.New(errs.Precondition, "endpoint %s is not served by SGLang (path %s, engine %s); the SGLang router routes to SGLang workers: deploy a SELF_MANAGED SGLANG endpoint", e.Name, e.Path, e.Engine).WithField("endpointId")
	}
	if e.Form == ModelPool {
		return nil, errs.New(errs.Precondition, "endpoint %s is a model pool, whose workers each business reaches through its own Service; a router over the whole pool would mix the businesses", e.Name).WithField("endpointId")
	}
	name := routerName(e)
	lbl := with(labels(e), componentLabel, "router")
	objs := []struct {
		r     schema.GroupVersionResource
		kind  string
		phase string
		obj   runtime.Object
	}{
		{serviceAccounts, "ServiceAccount", "router-account", &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.Namespace, Labels: lbl}}},
		{roles, "Role", "router-role", &rbacv1.Role{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.Namespace, Labels: lbl},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}}}}},
		{roleBindings, "RoleBinding", "router-binding", &rbacv1.RoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.Namespace, Labels: lbl},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: e.Namespace}}}},
		{deployments, "Deployment", "router", routerDeployment(e, policy)},
		{services, "Service", "router-service", withLabels(service(e, name, map[string]string{appLabel: name}, false), lbl)},
	}
	var actions []action
	for _, o := range objs {
		u, err := toUnstructured(o.obj)
		if err != nil {
			return nil, err
		}
		a, err := newAction(verbEnsure, o.r, o.phase, "Make "+objectTitle(o.kind, e.Namespace, name), u)
		if err != nil {
			return nil, err
		}
		actions = append(actions, a)
	}
	ch := &change{Router: &Router{Name: name, Policy: policy}}
	return s.submit(KindRouter, caller, idempotencyKey, e, opInput{Actions: actions, Change: ch}, fingerprint, nil)
}

// withLabels gives a Service the labels l.
func withLabels(svc *corev1.Service, l map[string]string) *corev1.Service {
	svc.Labels = l
	return svc
}
