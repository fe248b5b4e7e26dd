package features

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// linkState is what one link of a feature looks like now.
type linkState struct {
	present bool   // it exists (or the setting is on)
	settled bool   // it is not changing (an add-on ACTIVE, a cluster InService)
	matches bool   // it has the settings the feature wants
	failed  string // why it is broken, when it is (an add-on CREATE_FAILED)
	ref     string // its ARN or Kubernetes reference
	detail  string
}

// link is one resource or setting of a feature's chain.
type link struct {
	key, title, kind string
	// shared marks a prerequisite that other features use too: it is made
	// when missing but never removed.
	shared bool
	// retryFailed: making the link again mends it when it is broken (a
	// failed Helm release is upgraded in place); otherwise a broken link
	// must be removed first (a failed EKS add-on).
	retryFailed bool
	timeout     time.Duration
	state       func(ctx context.Context) (linkState, error)
	create      func(ctx context.Context) error // make it, or bring it to the wanted settings
	delete      func(ctx context.Context) error // remove it, or turn the setting off
}

// linkOutput is the output of a link's phase: what it made or found.
type linkOutput struct {
	Ref string `json:"ref,omitempty"`
}

func (l link) observeMade(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	st, err := l.state(ctx)
	if err != nil {
		return ops.Observation{}, err
	}
	switch {
	case st.failed != "" && (run.Applied || !l.retryFailed):
		return ops.Observation{State: ops.Broken, Err: errs.New(errs.Upstream, "%s: %s", l.title, st.failed)}, nil
	case st.failed != "":
		return ops.Observation{State: ops.Absent, Message: "broken; making it again"}, nil
	case st.present && st.settled && st.matches:
		return ops.Observation{State: ops.Done, Message: st.ref, Output: linkOutput{Ref: st.ref}}, nil
	case st.present && !st.settled:
		return ops.Observation{State: ops.Pending, Message: cmpOr(st.detail, "changing")}, nil
	case run.Applied:
		return ops.Observation{State: ops.Pending, Message: "requested; waiting for it to show"}, nil
	}
	return ops.Observation{State: ops.Absent}, nil
}

func (l link) observeRemoved(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	st, err := l.state(ctx)
	if err != nil {
		return ops.Observation{}, err
	}
	switch {
	case !st.present:
		return ops.Observation{State: ops.Done, Message: "removed"}, nil
	case !st.settled || run.Applied:
		return ops.Observation{State: ops.Pending, Message: cmpOr(st.detail, "being removed")}, nil
	}
	return ops.Observation{State: ops.Absent}, nil
}

func (l link) make(ctx context.Context, _ *ops.Run) (any, error) {
	return nil, l.create(ctx)
}

func (l link) remove(ctx context.Context, _ *ops.Run) (any, error) {
	return nil, l.delete(ctx)
}

// optional is nil for an empty string.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// policyDocument is an IAM policy or trust document.
type policyDocument struct {
	Version   string      `json:"Version"`
	Statement []statement `json:"Statement"`
}

type statement struct {
	Effect    string                       `json:"Effect"`
	Principal map[string]string            `json:"Principal,omitempty"`
	Action    []string                     `json:"Action"`
	Resource  []string                     `json:"Resource,omitempty"`
	Condition map[string]map[string]string `json:"Condition,omitempty"`
}

func (d policyDocument) String() string {
	b, _ := json.Marshal(d)
	return string(b)
}

// sameDocument compares a document IAM returned (URL-encoded) with want.
func sameDocument(encoded string, want policyDocument) bool {
	raw, err := url.QueryUnescape(encoded)
	if err != nil {
		raw = encoded
	}
	var got, exp any
	if json.Unmarshal([]byte(raw), &got) != nil || json.Unmarshal([]byte(want.String()), &exp) != nil {
		return false
	}
	return reflect.DeepEqual(got, exp)
}

// iamName names an IAM role or policy of the cluster: instantstart-<cluster>-<suffix>,
// shortened to IAM's 64 characters with the cluster's id when the name is long.
func iamName(c *hyperpod.Cluster, suffix string) string {
	name := "instantstart-" + c.Name + "-" + suffix
	if len(name) <= 64 {
		return name
	}
	id := strings.ToLower(c.ID)
	return "instantstart-" + id[max(0, len(id)-12):] + "-" + suffix
}

// iamPath keeps InstantStart's roles and policies together.
const iamPath = "/instantstart/"

// accountOf reads the account id from an IAM ARN.
func accountOf(arn string) string {
	parts := strings.Split(arn, ":")
	if len(parts) > 4 {
		return parts[4]
	}
	return ""
}

// policyLink is a customer managed policy with document doc.
func policyLink(e *env, key, title, name string, doc policyDocument) link {
	arn := fmt.Sprintf("arn:aws:iam::%s:policy%s%s", e.c.AccountID(), iamPath, name)
	return link{key: key, title: title, kind: "IAM_POLICY", timeout: 5 * time.Minute,
		state: func(ctx context.Context) (linkState, error) {
			out, err := e.p.IAM.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(arn)})
			if errs.IsNotFound(err) {
				return linkState{}, nil
			}
			if err != nil {
				return linkState{}, errs.FromUpstream(err, "read IAM policy "+arn)
			}
			v, err := e.p.IAM.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(arn), VersionId: out.Policy.DefaultVersionId})
			if err != nil {
				return linkState{}, errs.FromUpstream(err, "read IAM policy "+arn)
			}
			return linkState{present: true, settled: true, ref: arn, matches: sameDocument(aws.ToString(v.PolicyVersion.Document), doc)}, nil
		},
		create: func(ctx context.Context) error {
			_, err := e.p.IAM.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(arn)})
			switch {
			case err == nil:
				return newPolicyVersion(ctx, e, arn, doc) // it exists with another document
			case !errs.IsNotFound(err):
				return errs.FromUpstream(err, "read IAM policy "+arn)
			}
			_, err = e.p.IAM.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String(name), Path: aws.String(iamPath), PolicyDocument: aws.String(doc.String()),
				Description: aws.String("InstantStart: " + title + " of cluster " + e.c.Name)})
			if err != nil && !errs.IsAPICode(err, "EntityAlreadyExists") {
				return errs.FromUpstream(err, "create IAM policy "+name)
			}
			return nil
		},
		delete: func(ctx context.Context) error {
			if _, err := prunePolicyVersions(ctx, e, arn, 0); err != nil {
				return err
			}
			_, err := e.p.IAM.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: aws.String(arn)})
			if err != nil && !errs.IsNotFound(err) {
				return errs.FromUpstream(err, "delete IAM policy "+arn)
			}
			return nil
		},
	}
}

// newPolicyVersion makes doc the default version of policy arn, deleting
// the oldest other version when the policy has as many as IAM keeps.
func newPolicyVersion(ctx context.Context, e *env, arn string, doc policyDocument) error {
	if _, err := prunePolicyVersions(ctx, e, arn, maxPolicyVersions-1); err != nil {
		return err
	}
	_, err := e.p.IAM.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: aws.String(arn), PolicyDocument: aws.String(doc.String()), SetAsDefault: true})
	if err != nil {
		return errs.FromUpstream(err, "write a new version of IAM policy "+arn)
	}
	return nil
}

// maxPolicyVersions is how many versions IAM keeps of a managed policy.
const maxPolicyVersions = 5

// prunePolicyVersions deletes the oldest versions of policy arn other than
// the default until at most keep versions remain in all.
func prunePolicyVersions(ctx context.Context, e *env, arn string, keep int) (int, error) {
	versions, err := cloud.AllPolicyVersions(ctx, e.p.IAM, iam.ListPolicyVersionsInput{PolicyArn: aws.String(arn)})
	if errs.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, errs.FromUpstream(err, "list the versions of IAM policy "+arn)
	}
	slices.SortFunc(versions, func(a, b iamtypes.PolicyVersion) int {
		return aws.ToTime(a.CreateDate).Compare(aws.ToTime(b.CreateDate))
	})
	deleted := 0
	for _, v := range versions {
		if len(versions)-deleted <= max(keep, 1) {
			break
		}
		if v.IsDefaultVersion {
			continue
		}
		if _, err := e.p.IAM.DeletePolicyVersion(ctx, &iam.DeletePolicyVersionInput{PolicyArn: aws.String(arn), VersionId: v.VersionId}); err != nil && !errs.IsNotFound(err) {
			return deleted, errs.FromUpstream(err, "delete version "+aws.ToString(v.VersionId)+" of IAM policy "+arn)
		}
		deleted++
	}
	return deleted, nil
}

// roleLink is an IAM role with trust document trust and the managed
// policies attach.
func roleLink(e *env, key, title, name string, trust policyDocument, attach []string) link {
	return link{key: key, title: title, kind: "IAM_ROLE", timeout: 5 * time.Minute,
		state: func(ctx context.Context) (linkState, error) {
			out, err := e.p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
			if errs.IsNotFound(err) {
				return linkState{}, nil
			}
			if err != nil {
				return linkState{}, errs.FromUpstream(err, "read IAM role "+name)
			}
			attached, err := cloud.AllAttachedRolePolicies(ctx, e.p.IAM, iam.ListAttachedRolePoliciesInput{RoleName: aws.String(name)})
			if err != nil {
				return linkState{}, errs.FromUpstream(err, "read the policies of IAM role "+name)
			}
			var have []string
			for _, a := range attached {
				have = append(have, aws.ToString(a.PolicyArn))
			}
			matches := sameDocument(aws.ToString(out.Role.AssumeRolePolicyDocument), trust) &&
				!slices.ContainsFunc(attach, func(a string) bool { return !slices.Contains(have, a) })
			return linkState{present: true, settled: true, matches: matches, ref: aws.ToString(out.Role.Arn)}, nil
		},
		create: func(ctx context.Context) error {
			_, err := e.p.IAM.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), Path: aws.String(iamPath), AssumeRolePolicyDocument: aws.String(trust.String()),
				Description: aws.String("InstantStart: " + title + " of cluster " + e.c.Name)})
			if err != nil && !errs.IsAPICode(err, "EntityAlreadyExists") {
				return errs.FromUpstream(err, "create IAM role "+name)
			}
			for _, arn := range attach {
				if _, err := e.p.IAM.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(name), PolicyArn: aws.String(arn)}); err != nil {
					return errs.FromUpstream(err, "attach "+arn+" to IAM role "+name)
				}
			}
			return nil
		},
		delete: func(ctx context.Context) error {
			attached, err := cloud.AllAttachedRolePolicies(ctx, e.p.IAM, iam.ListAttachedRolePoliciesInput{RoleName: aws.String(name)})
			if errs.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return errs.FromUpstream(err, "read the policies of IAM role "+name)
			}
			for _, a := range attached {
				if _, err := e.p.IAM.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String(name), PolicyArn: a.PolicyArn}); err != nil && !errs.IsNotFound(err) {
					return errs.FromUpstream(err, "detach "+aws.ToString(a.PolicyArn)+" from IAM role "+name)
				}
			}
			if _, err := e.p.IAM.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(name)}); err != nil && !errs.IsNotFound(err) {
				return errs.FromUpstream(err, "delete IAM role "+name)
			}
			return nil
		},
	}
}

func roleArn(e *env, name string) string {
	return fmt.Sprintf("arn:aws:iam::%s:role%s%s", e.c.AccountID(), iamPath, name)
}

// addonLink is an EKS add-on with EKS's default configuration.
func addonLink(e *env, name string, shared bool) link {
	return addonWith(e, name, addonConfig{shared: shared})
}

// addonConfig is what a feature asks of its add-on.
type addonConfig struct {
	shared bool
	// values are the add-on's configuration values (nil: EKS's defaults).
	values map[string]any
	// roleName names the IAM role of the add-on's service account (IRSA),
	// when it has one.
	roleName string
}

// addonWith is an EKS add-on with the configuration values and service
// account role of cfg; an add-on that exists with others is updated.
func addonWith(e *env, name string, cfg addonConfig) link {
	role := ""
	if cfg.roleName != "" {
		role = roleArn(e, cfg.roleName)
	}
	values := ""
	if cfg.values != nil {
		b, _ := json.Marshal(cfg.values)
		values = string(b)
	}
	configured := func(a *ekstypes.Addon) bool {
		if aws.ToString(a.ServiceAccountRoleArn) != role {
			return false
		}
		if cfg.values == nil {
			return true
		}
		var have map[string]any
		return json.Unmarshal([]byte(aws.ToString(a.ConfigurationValues)), &have) == nil && sameJSON(have, cfg.values)
	}
	return link{key: "addon-" + name, title: "EKS add-on " + name, kind: "EKS_ADDON", shared: cfg.shared, timeout: 20 * time.Minute,
		state: func(ctx context.Context) (linkState, error) {
			out, err := e.p.EKS.DescribeAddon(ctx, &eks.DescribeAddonInput{ClusterName: aws.String(e.c.EKS.Name), AddonName: aws.String(name)})
			if errs.IsNotFound(err) {
				return linkState{}, nil
			}
			if err != nil {
				return linkState{}, errs.FromUpstream(err, "read EKS add-on "+name)
			}
			a := out.Addon
			st := linkState{present: true, matches: configured(a), ref: aws.ToString(a.AddonArn), detail: "add-on " + string(a.Status)}
			switch a.Status {
			case ekstypes.AddonStatusActive:
				st.settled = true
			case ekstypes.AddonStatusCreateFailed, ekstypes.AddonStatusDegraded, ekstypes.AddonStatusDeleteFailed, ekstypes.AddonStatusUpdateFailed:
				st.settled, st.failed = true, fmt.Sprintf("add-on %s is %s; look at its health issues with aws eks describe-addon", name, a.Status)
			}
			return st, nil
		},
		create: func(ctx context.Context) error {
			in := &eks.CreateAddonInput{ClusterName: aws.String(e.c.EKS.Name), AddonName: aws.String(name), ResolveConflicts: ekstypes.ResolveConflictsOverwrite,
				ServiceAccountRoleArn: optional(role), ConfigurationValues: optional(values)}
			out, err := e.p.EKS.DescribeAddon(ctx, &eks.DescribeAddonInput{ClusterName: in.ClusterName, AddonName: in.AddonName})
			switch {
			case err == nil && configured(out.Addon):
				return nil
			case err == nil:
				// It exists with other settings: bring it to these.
				_, err = e.p.EKS.UpdateAddon(ctx, &eks.UpdateAddonInput{ClusterName: in.ClusterName, AddonName: in.AddonName, ResolveConflicts: ekstypes.ResolveConflictsOverwrite,
					ServiceAccountRoleArn: aws.String(role), ConfigurationValues: aws.String(values)})
				if err != nil {
					return errs.FromUpstream(err, "update EKS add-on "+name)
				}
				return nil
			case !errs.IsNotFound(err):
				return errs.FromUpstream(err, "read EKS add-on "+name)
			}
			_, err = e.p.EKS.CreateAddon(ctx, in)
			if err != nil && !errs.IsAPICode(err, "ResourceInUseException") {
				return errs.FromUpstream(err, "install EKS add-on "+name)
			}
			return nil
		},
		delete: func(ctx context.Context) error {
			_, err := e.p.EKS.DeleteAddon(ctx, &eks.DeleteAddonInput{ClusterName: aws.String(e.c.EKS.Name), AddonName: aws.String(name)})
			if err != nil && !errs.IsNotFound(err) {
				return errs.FromUpstream(err, "remove EKS add-on "+name)
			}
			return nil
		},
	}
}

// podIdentityLink lets the service account namespace/sa assume role.
func podIdentityLink(e *env, namespace, sa, role string) link {
	find := func(ctx context.Context) (*ekstypes.PodIdentityAssociationSummary, error) {
		in := &eks.ListPodIdentityAssociationsInput{ClusterName: aws.String(e.c.EKS.Name), Namespace: aws.String(namespace), ServiceAccount: aws.String(sa)}
		var found *ekstypes.PodIdentityAssociationSummary
		err := cloud.Pages("ListPodIdentityAssociations", func(token *string) (*string, error) {
			in.NextToken = token
			out, err := e.p.EKS.ListPodIdentityAssociations(ctx, in)
			if err != nil {
				return nil, err
			}
			if len(out.Associations) > 0 {
				found = &out.Associations[0]
				return nil, cloud.StopPages
			}
			return out.NextToken, nil
		})
		if err != nil {
			return nil, errs.FromUpstream(err, "list the pod identity associations of "+namespace+"/"+sa)
		}
		return found, nil
	}
	return link{key: "pod-identity", title: "pod identity association " + namespace + "/" + sa, kind: "POD_IDENTITY_ASSOCIATION", timeout: 5 * time.Minute,
		state: func(ctx context.Context) (linkState, error) {
			a, err := find(ctx)
			if err != nil || a == nil {
				return linkState{}, err
			}
			return linkState{present: true, settled: true, matches: true, ref: aws.ToString(a.AssociationArn)}, nil
		},
		create: func(ctx context.Context) error {
			_, err := e.p.EKS.CreatePodIdentityAssociation(ctx, &eks.CreatePodIdentityAssociationInput{ClusterName: aws.String(e.c.EKS.Name),
				Namespace: aws.String(namespace), ServiceAccount: aws.String(sa), RoleArn: aws.String(roleArn(e, role))})
			if err != nil && !errs.IsAPICode(err, "ResourceInUseException") {
				return errs.FromUpstream(err, "create the pod identity association of "+namespace+"/"+sa)
			}
			return nil
		},
		delete: func(ctx context.Context) error {
			a, err := find(ctx)
			if err != nil || a == nil {
				return err
			}
			_, err = e.p.EKS.DeletePodIdentityAssociation(ctx, &eks.DeletePodIdentityAssociationInput{ClusterName: aws.String(e.c.EKS.Name), AssociationId: a.AssociationId})
			if err != nil && !errs.IsNotFound(err) {
				return errs.FromUpstream(err, "delete the pod identity association of "+namespace+"/"+sa)
			}
			return nil
		},
	}
}

// serviceAccountLink is a Kubernetes service account with annotations.
func serviceAccountLink(e *env, namespace, name string, annotations map[string]string) link {
	ref := "serviceaccount/" + namespace + "/" + name
	return link{key: "service-account", title: "service account " + namespace + "/" + name, kind: "KUBERNETES_OBJECT", timeout: 5 * time.Minute,
		state: func(ctx context.Context) (linkState, error) {
			kc, err := e.p.KubeOf(ctx, e.c.EKS.Name)
			if err != nil {
				return linkState{}, err
			}
			sa, err := kc.Core.CoreV1().ServiceAccounts(namespace).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return linkState{}, nil
			}
			if err != nil {
				return linkState{}, errs.Wrap(errs.Upstream, err, "read %s: %v", ref, err)
			}
			matches := true
			for k, v := range annotations {
				matches = matches && sa.Annotations[k] == v
			}
			return linkState{present: true, settled: sa.DeletionTimestamp == nil, matches: matches, ref: ref}, nil
		},
		create: func(ctx context.Context) error {
			kc, err := e.p.KubeOf(ctx, e.c.EKS.Name)
			if err != nil {
				return err
			}
			if _, err := kc.Core.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{}); apierrors.IsNotFound(err) {
				ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "instantstart"}}}
				if _, err := kc.Core.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
					return errs.Wrap(errs.Upstream, err, "create namespace %s: %v", namespace, err)
				}
			}
			sas := kc.Core.CoreV1().ServiceAccounts(namespace)
			sa, err := sas.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				sa = &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace,
					Labels: map[string]string{"app.kubernetes.io/managed-by": "instantstart"}, Annotations: annotations}}
				_, err = sas.Create(ctx, sa, metav1.CreateOptions{})
			} else if err == nil {
				if sa.Annotations == nil {
					sa.Annotations = map[string]string{}
				}
				for k, v := range annotations {
					sa.Annotations[k] = v
				}
				_, err = sas.Update(ctx, sa, metav1.UpdateOptions{})
			}
			if err != nil {
				return errs.Wrap(errs.Upstream, err, "write %s: %v", ref, err)
			}
			return nil
		},
		delete: func(ctx context.Context) error {
			kc, err := e.p.KubeOf(ctx, e.c.EKS.Name)
			if err != nil {
				return err
			}
			if err := kc.Core.CoreV1().ServiceAccounts(namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return errs.Wrap(errs.Upstream, err, "delete %s: %v", ref, err)
			}
			return nil
		},
	}
}

// clusterSettingLink is a setting of the HyperPod cluster: on reports
// whether it is on (and matches what is wanted), set turns it on or off.
func clusterSettingLink(e *env, key, title string, on func(*sagemaker.DescribeClusterOutput) (present, matches bool),
	set func(in *sagemaker.UpdateClusterInput, enable bool)) link {
	update := func(ctx context.Context, enable bool) error {
		in := &sagemaker.UpdateClusterInput{ClusterName: aws.String(e.c.HyperPod.Name)}
		set(in, enable)
		if _, err := e.p.SageMaker.UpdateCluster(ctx, in); err != nil {
			return errs.FromUpstream(err, "update HyperPod cluster "+e.c.HyperPod.Name)
		}
		return nil
	}
	return link{key: key, title: title, kind: "CLUSTER_SETTING", timeout: 30 * time.Minute,
		state: func(ctx context.Context) (linkState, error) {
			out, err := e.describe(ctx)
			if err != nil {
				return linkState{}, err
			}
			present, matches := on(out)
			settled := out.ClusterStatus == smtypes.ClusterStatusInservice
			return linkState{present: present, matches: matches, settled: settled, ref: aws.ToString(out.ClusterArn) + " " + title,
				detail: "HyperPod cluster " + string(out.ClusterStatus)}, nil
		},
		create: func(ctx context.Context) error { return update(ctx, true) },
		delete: func(ctx context.Context) error { return update(ctx, false) },
	}
}
