package main

import (
	"context"
	"fmt"
	"sync"
)

// deleteCluster is the mutation that deletes a cluster with everything on
// it: its endpoints, jobs, model downloads and storage, then the cluster;
// the shared bucket and its objects stay.
func (r *run) deleteCluster(id string) mutation {
	return mutation{kind: "deleteCluster", field: "deleteCluster", vars: map[string]any{"id": id},
		query: `mutation($id: ID!, $key: String) { deleteCluster(id: $id, cascade: true, idempotencyKey: $key) { ` + opFields + ` } }`}
}

// cleanup deletes every cluster that is not DELETED, with cascade, side by
// side.
func (r *run) cleanup(ctx context.Context) error {
	clusters, err := r.clusters(ctx)
	if err != nil {
		return fmt.Errorf("list the clusters to delete: %w", err)
	}
	var wg sync.WaitGroup
	for _, c := range clusters {
		if c.Status == "DELETED" {
			continue
		}
		r.logf("clean-up: deleting %s (%s, %s)", c.Name, c.ID, c.Status)
		wg.Go(func() { r.do(ctx, -1, "soak-cleanup-"+c.ID, r.deleteCluster(c.ID)) })
	}
	wg.Wait()
	return ctx.Err()
}
