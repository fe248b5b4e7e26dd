package resolvers

import (
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/graph/model"
)

// mapAccessEntries maps a cluster's access entries as EKS has them.
func mapAccessEntries(entries []cluster.AccessEntry) []*model.ClusterAccessEntry {
	out := make([]*model.ClusterAccessEntry, 0, len(entries))
	for _, e := range entries {
		m := &model.ClusterAccessEntry{
			PrincipalArn: e.PrincipalArn, Type: e.Type, Namespaces: nonNil(e.Namespaces), PolicyArns: nonNil(e.PolicyArns),
			KubernetesGroups: nonNil(e.KubernetesGroups), Origin: model.AccessEntryOrigin(e.Origin), CreatedAt: e.CreatedAt, GrantedAt: e.GrantedAt,
		}
		if e.Access != "" {
			a := model.ClusterAccess(e.Access)
			m.Access = &a
		}
		if e.Username != "" {
			m.Username = &e.Username
		}
		if e.GrantedBy != "" {
			m.GrantedBy = &e.GrantedBy
		}
		out = append(out, m)
	}
	return out
}

// nonNil is s, or an empty list for nil: the schema's lists are non-null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
