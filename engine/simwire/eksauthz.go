package simwire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	authzv1 "k8s.io/api/authorization/v1"

	"github.com/instantstart/instantstart/engine/cloud"
)

// maxAccessReviewBytes bounds a SubjectAccessReview request body.
const maxAccessReviewBytes = 64 << 10

// EKSAuthorizer answers a kube-apiserver's webhook authorization (a
// SubjectAccessReview of authorization.k8s.io/v1, the API server's
// --authorization-webhook-config-file, after RBAC in its
// --authorization-mode) for one simulated EKS cluster, as EKS's own
// authorizer applies access policies: a request is allowed when an access
// policy associated with the caller's access entry grants it, within the
// policy's scope; otherwise it has no opinion, and RBAC's answer stands.
//
// The caller is the IAM principal EKSAuthenticator put in the user's
// extra "canonicalArn"; its policies are read from the EKS port at each
// review (the API server caches the answers for its webhook cache TTLs).
//
// The rights of each policy are those of the Kubernetes role EKS names
// beside it (EKS access policy reference):
//   - AmazonEKSClusterAdminPolicy (cluster-admin): every verb on every
//     resource and non-resource URL.
//   - AmazonEKSAdminPolicy (admin): what edit grants, plus roles and role
//     bindings, and resource quotas, limit ranges and namespaces read.
//   - AmazonEKSEditPolicy (edit): what view grants, plus create, update,
//     patch and delete of workloads (pods and their exec, attach and
//     port-forward, deployments, stateful sets, daemon sets, replica sets,
//     jobs, cron jobs, autoscalers, disruption budgets), services,
//     endpoints, ingresses, network policies, config maps, secrets
//     (also read), service accounts and volume claims.
//   - AmazonEKSViewPolicy (view): get, list and watch those resources, the
//     pods' logs and statuses, events, namespaces, resource quotas and
//     limit ranges; not secrets.
//
// A namespace scope limits a policy to requests in those namespaces (a
// trailing * matches a prefix); cluster-scoped requests are left to RBAC.
type EKSAuthorizer struct {
	// Providers gives the EKS port the access policies are read from.
	Providers Providers
	// Region and Cluster name the EKS cluster whose API server asks.
	Region, Cluster string
}

// Policy ARNs the authorizer knows.
const (
	eksPolicyPrefix       = "arn:aws:eks::aws:cluster-access-policy/"
	eksClusterAdminPolicy = eksPolicyPrefix + "AmazonEKSClusterAdminPolicy"
	eksAdminPolicy        = eksPolicyPrefix + "AmazonEKSAdminPolicy"
	eksEditPolicy         = eksPolicyPrefix + "AmazonEKSEditPolicy"
	eksViewPolicy         = eksPolicyPrefix + "AmazonEKSViewPolicy"
)

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}
)

// rule grants verbs on resources (resource or resource/subresource) of
// an API group ("" is the core group).
type rule struct {
	group     string
	resources []string
	verbs     []string
}

// viewRules are Kubernetes' view role.
var viewRules = []rule{
	{"", []string{"pods", "pods/log", "pods/status", "services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status",
		"configmaps", "serviceaccounts", "replicationcontrollers", "replicationcontrollers/scale", "replicationcontrollers/status", "events",
		"limitranges", "resourcequotas", "resourcequotas/status", "namespaces", "namespaces/status", "bindings"}, readVerbs},
	{"events.k8s.io", []string{"events"}, readVerbs},
	{"apps", []string{"deployments", "deployments/scale", "deployments/status", "daemonsets", "daemonsets/status", "statefulsets", "statefulsets/scale",
		"statefulsets/status", "replicasets", "replicasets/scale", "replicasets/status", "controllerrevisions"}, readVerbs},
	{"batch", []string{"jobs", "jobs/status", "cronjobs", "cronjobs/status"}, readVerbs},
	{"autoscaling", []string{"horizontalpodautoscalers", "horizontalpodautoscalers/status"}, readVerbs},
	{"networking.k8s.io", []string{"ingresses", "ingresses/status", "networkpolicies"}, readVerbs},
	{"policy", []string{"poddisruptionbudgets", "poddisruptionbudgets/status"}, readVerbs},
	{"discovery.k8s.io", []string{"endpointslices"}, readVerbs},
}

// editRules are what Kubernetes' edit role adds to view.
var editRules = []rule{
	{"", []string{"pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "pods/eviction", "services", "services/proxy", "endpoints",
		"persistentvolumeclaims", "configmaps", "secrets", "serviceaccounts", "serviceaccounts/token", "replicationcontrollers", "replicationcontrollers/scale"},
		append(slices.Clone(writeVerbs), readVerbs...)},
	{"apps", []string{"deployments", "deployments/scale", "deployments/rollback", "daemonsets", "statefulsets", "statefulsets/scale", "replicasets", "replicasets/scale"}, writeVerbs},
	{"batch", []string{"jobs", "cronjobs"}, writeVerbs},
	{"autoscaling", []string{"horizontalpodautoscalers"}, writeVerbs},
	{"networking.k8s.io", []string{"ingresses", "networkpolicies"}, writeVerbs},
	{"policy", []string{"poddisruptionbudgets"}, writeVerbs},
}

// adminRules are what Kubernetes' admin role adds to edit.
var adminRules = []rule{
	{"rbac.authorization.k8s.io", []string{"roles", "rolebindings"}, append(slices.Clone(writeVerbs), readVerbs...)},
	{"authorization.k8s.io", []string{"localsubjectaccessreviews"}, []string{"create"}},
}

// rulesOf are the rules of an access policy; nil for one it does not know.
func rulesOf(policyArn string) []rule {
	switch policyArn {
	case eksViewPolicy:
		return viewRules
	case eksEditPolicy:
		return slices.Concat(viewRules, editRules)
	case eksAdminPolicy:
		return slices.Concat(viewRules, editRules, adminRules)
	}
	return nil
}

func (a *EKSAuthorizer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "a SubjectAccessReview is POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAccessReviewBytes))
	if err != nil {
		http.Error(w, fmt.Sprintf("read the SubjectAccessReview (at most %d bytes): %v", maxAccessReviewBytes, err), http.StatusRequestEntityTooLarge)
		return
	}
	var review authzv1.SubjectAccessReview
	if err := json.Unmarshal(body, &review); err != nil {
		http.Error(w, "the body is not a SubjectAccessReview: "+err.Error(), http.StatusBadRequest)
		return
	}
	out := authzv1.SubjectAccessReview{TypeMeta: review.TypeMeta}
	if out.APIVersion == "" {
		out.APIVersion, out.Kind = "authorization.k8s.io/v1", "SubjectAccessReview"
	}
	allowed, reason, err := a.Authorize(r.Context(), review.Spec)
	switch {
	case err != nil:
		out.Status.EvaluationError = err.Error()
	case allowed:
		out.Status.Allowed, out.Status.Reason = true, reason
	default:
		out.Status.Reason = reason
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// Authorize tells whether an access policy of the caller of spec allows
// its request, and why.
func (a *EKSAuthorizer) Authorize(ctx context.Context, spec authzv1.SubjectAccessReviewSpec) (bool, string, error) {
	principals := spec.Extra["canonicalArn"]
	if len(principals) != 1 || principals[0] == "" {
		return false, "the user carries no IAM principal (not authenticated by EKS)", nil
	}
	principal := principals[0]
	p, err := a.Providers(a.Region)
	if err != nil {
		return false, "", fmt.Errorf("EKS cluster %q: %w", a.Cluster, err)
	}
	policies, err := cloud.AllAssociatedAccessPolicies(ctx, p.EKS, eks.ListAssociatedAccessPoliciesInput{ClusterName: aws.String(a.Cluster), PrincipalArn: aws.String(principal)})
	if err != nil {
		var nf *ekstypes.ResourceNotFoundException
		if errors.As(err, &nf) {
			return false, principal + " has no access entry", nil
		}
		return false, "", fmt.Errorf("read the access policies of %s in EKS cluster %q: %w", principal, a.Cluster, err)
	}
	for _, pol := range policies {
		arn := aws.ToString(pol.PolicyArn)
		if allows(arn, pol.AccessScope, spec) {
			return true, fmt.Sprintf("%s allows it to %s", arn, principal), nil
		}
	}
	return false, "no access policy of " + principal + " allows it", nil
}

// allows tells whether policy, at scope, allows the request of spec.
func allows(policy string, scope *ekstypes.AccessScope, spec authzv1.SubjectAccessReviewSpec) bool {
	res := spec.ResourceAttributes
	if scope != nil && scope.Type == ekstypes.AccessScopeTypeNamespace {
		if res == nil || res.Namespace == "" || !inNamespaces(res.Namespace, scope.Namespaces) {
			return false
		}
	}
	if policy == eksClusterAdminPolicy {
		return true
	}
	if res == nil {
		return false // non-resource URLs: RBAC's discovery roles cover what view and edit need
	}
	name := res.Resource
	if res.Subresource != "" {
		name += "/" + res.Subresource
	}
	for _, r := range rulesOf(policy) {
		if r.group == res.Group && slices.Contains(r.resources, name) && slices.Contains(r.verbs, res.Verb) {
			return true
		}
	}
	return false
}

// inNamespaces tells whether ns is one of scope's, where a trailing *
// matches a prefix.
func inNamespaces(ns string, scope []string) bool {
	for _, s := range scope {
		if prefix, ok := strings.CutSuffix(s, "*"); ok && strings.HasPrefix(ns, prefix) || s == ns {
			return true
		}
	}
	return false
}
