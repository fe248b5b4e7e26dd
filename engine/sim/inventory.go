package sim

import (
	"slices"
	"strings"
)

// Inventory lists every resource the world holds now, one line each
// ("iam role instantstart-a-s3-csi", "kubernetes us-west-2/a
// persistentvolumes s3-pv", "s3 object data/models/x/config.json"),
// sorted: what a test compares before a cluster is made and after it is
// deleted, to show that nothing made for it is left. It is Resources, one
// line each, with what goes with a resource listed under it too: a role's
// policies, a bucket's objects, an EKS cluster's add-ons, access entries
// and pod identity associations, and the Kubernetes objects and Helm
// releases of the ACTIVE EKS clusters.
func (w *World) Inventory() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.begin("")
	t.sweepKube()
	_ = w.save() // the sweep's changes; a failed save only repeats it

	var out []string
	add := func(parts ...string) { out = append(out, strings.Join(parts, " ")) }
	for _, r := range w.resources(t.now) {
		add(r.line())
		switch {
		case r.Service == svcIAM && r.Kind == "role":
			role := w.st.Roles[strings.ToLower(r.Name)]
			for _, p := range role.Attached {
				add(r.line(), "attached", p)
			}
			for name := range role.Inline {
				add(r.line(), "inline", name)
			}
		case r.Service == svcS3 && r.Kind == "bucket":
			for key := range w.st.Buckets[r.Name].Objects {
				add("s3 object", r.Name+"/"+key)
			}
		case r.Service == svcEKS && r.Kind == "cluster":
			c := w.st.Regions[r.Region].EKS[r.Name]
			for a := range c.Addons {
				add(r.line(), "addon", a)
			}
			for p := range c.AccessEntries {
				add(r.line(), "access-entry", p)
			}
			for _, p := range c.PodIdentities {
				add(r.line(), "pod-identity", p.Namespace+"/"+p.ServiceAccount)
			}
		}
	}
	if ks := w.st.Kube; ks != nil {
		for key, rec := range ks.Clusters {
			for resource, objs := range rec.Objects {
				for name := range objs {
					add("kubernetes", key, resource, name)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// line is the resource as Inventory lists it: its service, its region
// (none for S3, whose bucket names are global), its kind, and what names
// it in its service: the name where names are unique (IAM, S3, EKS and
// SageMaker), the id elsewhere.
func (r Resource) line() string {
	region, key := r.Region, r.ID
	if r.Service == svcS3 {
		region = ""
	}
	if r.Name != "" && (r.Service == svcS3 || r.Service == svcEKS || r.Service == svcSageMaker || (r.Service == svcIAM && r.Kind != "oidc-provider")) {
		key = r.Name
	}
	return strings.Join(slices.DeleteFunc([]string{r.Service, region, r.Kind, key}, func(s string) bool { return s == "" }), " ")
}
