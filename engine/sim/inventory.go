package sim

import (
	"slices"
	"strings"
)

// Inventory lists every resource the world holds now, one line each
// ("iam role instantstart-a-s3-csi", "kubernetes eks-a persistentvolumes
// s3-pv", "s3 object data/models/x/config.json"), sorted: what a test
// compares before a cluster is made and after it is deleted, to show that
// nothing made for it is left. Resources that are being deleted count
// until they are gone; a NAT gateway counts until it is deleted (EC2 shows
// it "deleted" for an hour more). Kubernetes objects and Helm releases
// count while their EKS cluster is ACTIVE: they go with it.
func (w *World) Inventory() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.begin("")
	t.sweepKube()
	_ = w.save() // the sweep's changes; a failed save only repeats it

	var out []string
	add := func(parts ...string) { out = append(out, strings.Join(parts, " ")) }
	for _, r := range w.st.Roles {
		add("iam role", r.Name)
		for _, p := range r.Attached {
			add("iam role", r.Name, "attached", p)
		}
		for name := range r.Inline {
			add("iam role", r.Name, "inline", name)
		}
	}
	for _, p := range w.st.Policies {
		add("iam policy", p.Path+p.Name)
	}
	for arn := range w.st.OIDC {
		add("iam oidc-provider", arn)
	}
	for name, b := range w.st.Buckets {
		add("s3 bucket", name)
		for key := range b.Objects {
			add("s3 object", name+"/"+key)
		}
	}
	for region, rs := range w.st.Regions {
		for id := range rs.VPCs {
			add("ec2", region, "vpc", id)
		}
		for id := range rs.Subnets {
			add("ec2", region, "subnet", id)
		}
		for id := range rs.IGWs {
			add("ec2", region, "internet-gateway", id)
		}
		for id := range rs.Addresses {
			add("ec2", region, "address", id)
		}
		for id, n := range rs.NATs {
			if n.Life.DeletingAt == nil {
				add("ec2", region, "nat-gateway", id)
			}
		}
		for id := range rs.RouteTables {
			add("ec2", region, "route-table", id)
		}
		for id := range rs.SecurityGroups {
			add("ec2", region, "security-group", id)
		}
		for name, c := range rs.EKS {
			add("eks", region, "cluster", name)
			for a := range c.Addons {
				add("eks", region, "cluster", name, "addon", a)
			}
			for p := range c.AccessEntries {
				add("eks", region, "cluster", name, "access-entry", p)
			}
			for _, p := range c.PodIdentities {
				add("eks", region, "cluster", name, "pod-identity", p.Namespace+"/"+p.ServiceAccount)
			}
		}
		for name := range rs.HyperPod {
			add("sagemaker", region, "cluster", name)
		}
		for name := range rs.MLflowServers {
			add("sagemaker", region, "mlflow-tracking-server", name)
		}
		for id := range rs.FileSystems {
			add("fsx", region, "file-system", id)
		}
		for id := range rs.DataRepoAssociations {
			add("fsx", region, "data-repository-association", id)
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
	for key, hc := range w.st.Helm {
		for name := range hc.Releases {
			add("helm", key, name)
		}
	}
	slices.Sort(out)
	return out
}
