package sim

import (
	"cmp"
	"maps"
	"slices"
	"time"
)

// Resource is one thing the world holds that a client made and must
// delete: a VPC, an EKS cluster, an IAM role, a bucket... What goes with
// another is left out: a VPC's main route table and default security
// group, an EKS cluster's add-ons, access entries and Kubernetes objects,
// an instance group's nodes, a bucket's objects (counted in Items).
type Resource struct {
	Service string `json:"service"` // as the call counters name it: "ec2", "eks", "iam"...
	Kind    string `json:"kind"`    // "vpc", "subnet", "cluster", "role", "bucket", "release"...
	Region  string `json:"region,omitempty"`
	ID      string `json:"id"`
	Name    string `json:"name,omitempty"`
	// State is the resource's status as its service reports it, for
	// those that have one ("available", "ACTIVE", "InService"...).
	State string            `json:"state,omitempty"`
	Tags  map[string]string `json:"tags,omitempty"`
	Items int               `json:"items,omitempty"` // a bucket's objects
}

// Resources lists what the world holds, as of now, by service, kind,
// region and id, with their states and tags: a soak run reads it to find
// what was made twice, two live resources InstantStart tagged as one.
// Resources that have finished disappearing are not listed. Inventory
// lists every resource, what goes with another included, one line each,
// without tags: what a test diffs to find what was left behind.
func (w *World) Resources() []Resource {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.resources(w.clock())
}

// resources is Resources as of now, with the world locked.
func (w *World) resources(now time.Time) []Resource {
	var out []Resource
	for _, region := range slices.Sorted(maps.Keys(w.st.Regions)) {
		out = append(out, w.st.Regions[region].resources(region, now)...)
	}
	for _, r := range w.st.Roles {
		out = append(out, Resource{Service: svcIAM, Kind: "role", ID: r.ID, Name: r.Name, Tags: r.Tags})
	}
	for _, p := range w.st.Policies {
		out = append(out, Resource{Service: svcIAM, Kind: "policy", ID: p.ID, Name: p.Name})
	}
	for _, o := range w.st.OIDC {
		out = append(out, Resource{Service: svcIAM, Kind: "oidc-provider", ID: o.Arn, Name: o.URL, Tags: o.Tags})
	}
	for _, b := range w.st.Buckets {
		out = append(out, Resource{Service: svcS3, Kind: "bucket", Region: b.Region, ID: b.Name, Name: b.Name, Tags: b.Tags, Items: len(b.Objects)})
	}
	t := &txn{w: w, st: w.st, now: now}
	for _, hc := range w.st.Helm {
		if !t.kubeAlive(hc.Region, hc.Name, hc.EKSID) {
			continue
		}
		for key, r := range hc.Releases {
			out = append(out, Resource{Service: svcHelm, Kind: "release", Region: hc.Region, ID: hc.Name + "/" + key, Name: r.Name})
		}
	}
	slices.SortFunc(out, func(a, b Resource) int {
		return cmp.Or(cmp.Compare(a.Service, b.Service), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Region, b.Region), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// resources lists the region's resources (see World.Resources).
func (rs *regionState) resources(region string, now time.Time) []Resource {
	var out []Resource
	ec2 := func(kind, id, state string) {
		out = append(out, Resource{Service: svcEC2, Kind: kind, Region: region, ID: id, Name: rs.Tags[id]["Name"], State: state, Tags: rs.Tags[id]})
	}
	for id := range rs.VPCs {
		ec2("vpc", id, "available")
	}
	for id := range rs.Subnets {
		ec2("subnet", id, "available")
	}
	for id, g := range rs.IGWs {
		state := "detached"
		if g.VpcID != "" {
			state = "attached"
		}
		ec2("internet-gateway", id, state)
	}
	for id := range rs.Addresses {
		ec2("elastic-ip", id, "allocated")
	}
	for id, n := range rs.NATs {
		if n.Life.phase(now) != phaseGone {
			ec2("nat-gateway", id, string(n.state(now)))
		}
	}
	for id, rt := range rs.RouteTables {
		if !rt.Main { // a VPC's main route table goes with it
			ec2("route-table", id, "")
		}
	}
	for id, sg := range rs.SecurityGroups {
		if sg.Name != "default" && sg.EKSCluster == "" { // the default group goes with its VPC, the cluster group with its EKS cluster
			ec2("security-group", id, "")
		}
	}
	for name, c := range rs.EKS {
		if c.Life.phase(now) != phaseGone {
			out = append(out, Resource{Service: svcEKS, Kind: "cluster", Region: region, ID: c.Arn, Name: name, State: string(c.status(now)), Tags: c.Tags})
		}
		for gn, g := range c.Nodegroups {
			if g.Life.phase(now) != phaseGone {
				out = append(out, Resource{Service: svcEKS, Kind: "nodegroup", Region: region, ID: g.Arn, Name: name + "/" + gn, State: string(g.lifeStatus(now)), Tags: g.Tags})
			}
		}
	}
	for name, c := range rs.HyperPod {
		if c.Life.phase(now) != phaseGone {
			out = append(out, Resource{Service: svcSageMaker, Kind: "cluster", Region: region, ID: c.Arn, Name: name, State: string(c.status(now)), Tags: c.Tags})
		}
	}
	for name, s := range rs.MLflowServers {
		if s.Life.phase(now) != phaseGone {
			out = append(out, Resource{Service: svcSageMaker, Kind: "mlflow-tracking-server", Region: region, ID: s.Arn, Name: name, State: string(s.status(now)), Tags: s.Tags})
		}
	}
	for id, fs := range rs.FileSystems {
		if fs.Life.phase(now) != phaseGone {
			tags := fsxTagMap(fs.Tags)
			out = append(out, Resource{Service: svcFSx, Kind: "file-system", Region: region, ID: id, Name: tags["Name"], State: string(fs.status(now)), Tags: tags})
		}
	}
	for id, d := range rs.DataRepoAssociations {
		if d.Life.phase(now) != phaseGone {
			tags := fsxTagMap(d.Tags)
			out = append(out, Resource{Service: svcFSx, Kind: "data-repository-association", Region: region, ID: id, Name: d.FileSystemPath, State: string(d.status(now)), Tags: tags})
		}
	}
	return out
}

// fsxTagMap is FSx's list of tags as a map, nil for none.
func fsxTagMap(tags []fsxTagRec) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	m := make(map[string]string, len(tags))
	for _, t := range tags {
		m[t.Key] = t.Value
	}
	return m
}
