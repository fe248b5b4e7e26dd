package kubecrds

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ValidatePodTemplate checks a pod template that a CRD keeps whole (a
// replica's or a Ray group's template): it must decode into a
// corev1.PodTemplateSpec with no unknown field, and hold what a server
// would refuse it without (containers with unique DNS-label names and an
// image, volume mounts of declared volumes, a known restart policy,
// extended resources requested as much as limited).
func ValidatePodTemplate(raw map[string]any) error {
	w := &walker{}
	if !w.bounded(raw, "template", 0) {
		return w.errs
	}
	var t corev1.PodTemplateSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(raw, &t, true); err != nil {
		return fmt.Errorf("not a PodTemplateSpec: %w", err)
	}
	var errs FieldErrors
	fail := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	spec := t.Spec
	if len(spec.Containers) == 0 {
		fail("spec.containers", "required: at least one container")
	}
	switch spec.RestartPolicy {
	case "", corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
	default:
		fail("spec.restartPolicy", "%q is not Always, OnFailure or Never", spec.RestartPolicy)
	}
	volumes := map[string]bool{}
	for i, v := range spec.Volumes {
		at := fmt.Sprintf("spec.volumes[%d].name", i)
		for _, m := range validation.IsDNS1123Label(v.Name) {
			fail(at, "%s", m)
		}
		if volumes[v.Name] {
			fail(at, "%q is declared twice", v.Name)
		}
		volumes[v.Name] = true
	}
	names := map[string]bool{}
	check := func(kind string, cs []corev1.Container) {
		for i, c := range cs {
			at := fmt.Sprintf("spec.%s[%d]", kind, i)
			for _, m := range validation.IsDNS1123Label(c.Name) {
				fail(at+".name", "%s", m)
			}
			if names[c.Name] {
				fail(at+".name", "%q is used twice", c.Name)
			}
			names[c.Name] = true
			if c.Image == "" {
				fail(at+".image", "required")
			}
			env := map[string]bool{}
			for j, e := range c.Env {
				if e.Name == "" {
					fail(fmt.Sprintf("%s.env[%d].name", at, j), "required")
				}
				if env[e.Name] {
					fail(fmt.Sprintf("%s.env[%d].name", at, j), "%q is set twice", e.Name)
				}
				env[e.Name] = true
			}
			for j, m := range c.VolumeMounts {
				if !volumes[m.Name] {
					fail(fmt.Sprintf("%s.volumeMounts[%d].name", at, j), "no volume %q is declared", m.Name)
				}
				if m.MountPath == "" {
					fail(fmt.Sprintf("%s.volumeMounts[%d].mountPath", at, j), "required")
				}
			}
			for name, limit := range c.Resources.Limits {
				if isExtended(name) {
					if req, ok := c.Resources.Requests[name]; ok && req.Cmp(limit) != 0 {
						fail(fmt.Sprintf("%s.resources.requests[%s]", at, name), "must equal its limit %s", limit.String())
					}
				}
			}
			for name, req := range c.Resources.Requests {
				if limit, ok := c.Resources.Limits[name]; isExtended(name) && !ok {
					fail(fmt.Sprintf("%s.resources.limits[%s]", at, name), "required: an extended resource needs a limit equal to its request %s", req.String())
				} else if ok && !isExtended(name) && req.Cmp(limit) > 0 {
					fail(fmt.Sprintf("%s.resources.requests[%s]", at, name), "more than its limit %s", limit.String())
				}
			}
		}
	}
	check("initContainers", spec.InitContainers)
	check("containers", spec.Containers)
	if len(errs) > maxErrors {
		errs = errs[:maxErrors]
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// isExtended reports whether a resource is a device plugin's or an
// operator's (nvidia.com/gpu, vpc.amazonaws.com/efa), not one of
// Kubernetes' own (cpu, memory, hugepages-2Mi).
func isExtended(name corev1.ResourceName) bool {
	n := string(name)
	return strings.Contains(n, "/") && !strings.HasPrefix(n, "kubernetes.io/")
}
