package sim

import (
	"slices"
	"time"
)

// holdFault returns the id of the first hold fault on resources of service
// created by op, or "" when none holds them.
func (t *txn) holdFault(service, op string) string {
	for _, f := range t.st.Faults {
		if f.Kind == FaultHold && f.Service == service && (f.Operation == "" || f.Operation == op) && f.inRegion(t.region) {
			return f.ID
		}
	}
	return ""
}

// releaseHolds lets every resource whose hold fault is gone end its
// creation: at its planned time, or at now if that has passed.
func (st *state) releaseHolds(now time.Time) {
	active := func(id string) bool {
		return slices.ContainsFunc(st.Faults, func(f Fault) bool { return f.ID == id })
	}
	release := func(l *lifecycle) bool {
		if l.HeldBy == "" || active(l.HeldBy) {
			return false
		}
		l.HeldBy = ""
		if l.ReadyAt.Before(now) {
			l.ReadyAt = now
		}
		return true
	}
	for _, rs := range st.Regions {
		for _, c := range rs.EKS {
			release(&c.Life)
			for _, a := range c.Addons {
				release(&a.Life)
			}
			for _, g := range c.Nodegroups {
				if release(&g.Life) {
					for i := range g.Nodes {
						g.Nodes[i].ReadyAt = g.Life.ReadyAt
					}
				}
			}
		}
		for _, n := range rs.NATs {
			release(&n.Life)
		}
		for _, s := range rs.MLflowServers {
			release(&s.Life)
		}
		for _, c := range rs.HyperPod {
			if !release(&c.Life) {
				continue
			}
			// The end of creation waited on the agenda (see nextAction).
			for i := range c.Agenda {
				if c.Agenda[i].Kind == actClusterReady {
					c.Agenda[i].At = c.Life.ReadyAt
				}
			}
		}
	}
	for _, hc := range st.Helm {
		for _, r := range hc.Releases {
			release(&r.Life)
		}
	}
}
