package inference

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	klabels "k8s.io/apimachinery/pkg/labels"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// observed is what the cluster says of an endpoint now.
type observed struct {
	status        Status
	message       string
	operatorState string
	replicas      int
	ready         int
	pods          []Pod
	address       *Address
	routerReady   int
	scalingReady  bool
	scalingActive bool
}

// failingReasons are container states from which a replica does not come
// up by waiting.
var failingReasons = map[string]bool{"ErrImagePull": true, "ImagePullBackOff": true, "CrashLoopBackOff": true, "InvalidImageName": true, "CreateContainerConfigError": true, "OOMKilled": true}

// observe reads endpoint e's objects, pods and Services.
func observe(ctx context.Context, kc *cloud.KubeClients, e *Endpoint) (*observed, error) {
	o := &observed{}
	if e.Path == Managed {
		r := endpointConfigs
		if e.Source == FromJumpStart {
			r = jumpStartModels
		}
		obj, err := kc.Dynamic.Resource(r).Namespace(e.Namespace).Get(ctx, e.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			o.status, o.message = Failed, e.Object+" is gone: it was deleted outside InstantStart; delete the endpoint, or deploy it again"
			return o, nil
		case err != nil:
			return nil, errs.Wrap(errs.Upstream, err, "read %s: %v", e.Object, err)
		}
		o.operatorState, _, _ = unstructured.NestedString(obj.Object, "status", "state")
		if msg, _, _ := unstructured.NestedString(obj.Object, "status", "deploymentStatus", "message"); msg != "" {
			o.message = msg
		}
	}
	dep, err := kc.Core.AppsV1().Deployments(e.Namespace).Get(ctx, e.Workload, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) && e.Path == Managed:
		o.status = Deploying
		if o.operatorState == "DeploymentFailed" {
			o.status = Failed
		}
		o.message = cmp.Or(o.message, "waiting for the inference operator to make the Deployment ("+cmp.Or(o.operatorState, "no state yet")+")")
		return o, nil
	case apierrors.IsNotFound(err):
		o.status, o.message = Failed, "Deployment "+e.Workload+" is gone: it was deleted outside InstantStart; delete the endpoint, or deploy it again"
		return o, nil
	case err != nil:
		return nil, errs.Wrap(errs.Upstream, err, "read Deployment %s/%s: %v", e.Namespace, e.Workload, err)
	}
	if dep.Spec.Replicas != nil {
		o.replicas = int(*dep.Spec.Replicas)
	}
	o.ready = int(dep.Status.ReadyReplicas)
	if o.pods, err = podsOf(ctx, kc, dep); err != nil {
		return nil, err
	}
	if err := readAddress(ctx, kc, e, o); err != nil {
		return nil, err
	}
	if e.Router != nil {
		if r, err := kc.Core.AppsV1().Deployments(e.Namespace).Get(ctx, routerName(e), metav1.GetOptions{}); err == nil {
			o.routerReady = int(r.Status.ReadyReplicas)
		} else if !apierrors.IsNotFound(err) {
			return nil, errs.Wrap(errs.Upstream, err, "read the router: %v", err)
		}
	}
	if e.Autoscaling != nil {
		so, err := kc.Dynamic.Resource(scaledObjects).Namespace(e.Namespace).Get(ctx, e.Workload, metav1.GetOptions{})
		if err == nil {
			o.scalingReady, o.scalingActive = condition(so, "Ready"), condition(so, "Active")
		} else if !apierrors.IsNotFound(err) {
			return nil, errs.Wrap(errs.Upstream, err, "read the ScaledObject: %v", err)
		}
	}
	judge(e, o)
	return o, nil
}

// rejudge works endpoint e's status out again from its record, after an
// operation changed what is wanted of it (its replicas, its image): READY
// only when every wanted replica is ready. An endpoint on its way in or out
// (PENDING, DELETING, DELETED) keeps the status its operation gave it, and
// the refresh reads the cluster again soon after.
func rejudge(e *Endpoint) {
	if e.Status == Pending || e.Status == Deleting || e.Status == Deleted {
		return
	}
	o := &observed{operatorState: e.OperatorState, replicas: e.Replicas, ready: e.ReadyReplicas, pods: e.Pods, address: e.Address}
	judge(e, o)
	e.Status, e.StatusMessage = o.status, o.message
}

// judge sets the endpoint's status from what was read.
func judge(e *Endpoint, o *observed) {
	failing := ""
	for _, p := range o.pods {
		if !p.Ready && p.Message != "" && failingReasons[strings.SplitN(p.Message, ":", 2)[0]] {
			failing = "pod " + p.Name + ": " + p.Message
			break
		}
	}
	waiting := ""
	for _, p := range o.pods {
		if !p.Ready && p.Message != "" {
			waiting = "pod " + p.Name + ": " + p.Message
			break
		}
	}
	switch {
	case o.operatorState == "DeploymentFailed":
		o.status, o.message = Failed, cmp.Or(o.message, "the inference operator failed to deploy it")
	case o.replicas == 0:
		o.status, o.message = ScaledToZero, "scaled to 0 replicas: nothing serves until it is scaled up"
	case o.ready >= o.replicas && e.Form == LoadBalancer && (o.address == nil || o.address.Host == ""):
		o.status, o.message = Deploying, "every replica is ready; waiting for the load balancer's DNS name (the AWS Load Balancer Controller makes it)"
	case o.ready >= o.replicas:
		o.status, o.message = Ready, ""
	case o.ready > 0:
		o.status, o.message = Degraded, fmt.Sprintf("%d of %d replicas ready", o.ready, o.replicas)
		if waiting != "" {
			o.message += "; " + waiting
		}
	case failing != "":
		o.status, o.message = Failed, failing
	default:
		o.status = Deploying
		o.message = cmp.Or(waiting, fmt.Sprintf("0 of %d replicas ready: loading the model", o.replicas))
	}
}

// podsOf lists the pods of a Deployment, by name.
func podsOf(ctx context.Context, kc *cloud.KubeClients, dep *appsv1.Deployment) ([]Pod, error) {
	if dep.Spec.Selector == nil || len(dep.Spec.Selector.MatchLabels) == 0 {
		return []Pod{}, nil
	}
	list, err := kc.Core.CoreV1().Pods(dep.Namespace).List(ctx, metav1.ListOptions{LabelSelector: klabels.SelectorFromSet(dep.Spec.Selector.MatchLabels).String()})
	if err != nil {
		return nil, errs.Wrap(errs.Upstream, err, "list the pods of %s: %v", dep.Name, err)
	}
	sel := klabels.SelectorFromSet(dep.Spec.Selector.MatchLabels)
	out := []Pod{}
	for i := range list.Items {
		p := &list.Items[i]
		if !sel.Matches(klabels.Set(p.Labels)) {
			continue
		}
		out = append(out, podOf(p))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func podOf(p *corev1.Pod) Pod {
	out := Pod{Name: p.Name, UID: string(p.UID), Phase: string(p.Status.Phase), Ready: podReady(p), Node: p.Spec.NodeName, Business: p.Labels[businessLabel]}
	if p.Status.StartTime != nil {
		t := p.Status.StartTime.Time
		out.StartedAt = &t
	}
	for _, c := range p.Status.ContainerStatuses {
		out.ContainerRestarts += int(c.RestartCount)
		switch {
		case out.Message != "":
		case c.State.Waiting != nil && c.State.Waiting.Reason != "" && c.State.Waiting.Reason != "ContainerCreating":
			out.Message = c.State.Waiting.Reason + ": " + c.State.Waiting.Message
			if last := lastExit(c); last != "" {
				out.Message += "; " + last
			}
		case c.State.Terminated != nil:
			out.Message = c.State.Terminated.Reason + ": " + c.State.Terminated.Message
		}
	}
	if out.Message == "" && p.Status.Phase == corev1.PodPending {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				out.Message = c.Reason + ": " + c.Message
			}
		}
	}
	if out.Message == "" && p.DeletionTimestamp != nil {
		out.Message = "terminating"
	}
	return out
}

// lastExit says how a container's last run ended.
func lastExit(c corev1.ContainerStatus) string {
	if t := c.LastTerminationState.Terminated; t != nil {
		return fmt.Sprintf("the last run exited %d (%s): %s", t.ExitCode, t.Reason, t.Message)
	}
	return ""
}

// readAddress reads where the endpoint is reached.
func readAddress(ctx context.Context, kc *cloud.KubeClients, e *Endpoint, o *observed) error {
	name := e.Workload
	kind := string(e.Form)
	switch {
	case e.Path == Managed:
		name, kind = managedServiceName(e), "MANAGED"
	case e.Form == ModelPool:
		o.address = &Address{Kind: "POOL", Service: ""}
		return nil
	}
	svc, err := kc.Core.CoreV1().Services(e.Namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return errs.Wrap(errs.Upstream, err, "read Service %s/%s: %v", e.Namespace, name, err)
	}
	a := &Address{Kind: kind, Service: name}
	if e.Router != nil {
		a.Service = routerName(e)
	}
	port := servicePort
	if len(svc.Spec.Ports) > 0 {
		port = int(svc.Spec.Ports[0].Port)
	}
	a.Port = port
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		for _, in := range svc.Status.LoadBalancer.Ingress {
			if in.Hostname != "" {
				a.Host = in.Hostname
				break
			}
		}
	} else {
		a.Host = fmt.Sprintf("%s.%s.svc.cluster.local", name, e.Namespace)
	}
	o.address = a
	return nil
}

// condition tells whether a status condition of obj is True.
func condition(obj *unstructured.Unstructured, t string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == t {
			return m["status"] == "True"
		}
	}
	return false
}
