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
		query: `mutation($id: ID!, $key: String) { deleteCluster(id: $id, idempotencyKey: $key) { ` + opFields + ` } }`}
}

// clearWorkloads deletes, one by one, the endpoints, jobs and storage of
// a cluster that are not deleted yet, as deleteCluster needs.
func (r *run) clearWorkloads(ctx context.Context, lane int, prefix, cluster string) {
	recs, err := r.records(ctx, cluster)
	if err != nil {
		r.logf("lane %d: list the workloads of %s: %v", lane, cluster, err)
		return
	}
	for _, e := range recs.Endpoints {
		if e.Status != "DELETED" {
			r.do(ctx, lane, prefix+"-delete-"+e.ID, mutation{kind: "deleteEndpoint", field: "deleteEndpoint", vars: map[string]any{"id": e.ID},
				query: `mutation($id: ID!, $key: String) { deleteEndpoint(id: $id, idempotencyKey: $key) { ` + opFields + ` } }`})
		}
	}
	for _, j := range recs.Jobs {
		if j.Status != "DELETED" {
			r.do(ctx, lane, prefix+"-delete-"+j.ID, mutation{kind: "deleteJob", field: "deleteJob", vars: map[string]any{"id": j.ID},
				query: `mutation($id: ID!, $key: String) { deleteJob(id: $id, idempotencyKey: $key) { ` + opFields + ` } }`})
		}
	}
	for _, s := range recs.Storages {
		if s.Status != "DELETED" {
			r.do(ctx, lane, prefix+"-delete-"+s.ID, mutation{kind: "removeStorage", field: "removeStorage", vars: map[string]any{"id": s.ID},
				query: `mutation($id: ID!, $key: String) { removeStorage(id: $id, idempotencyKey: $key) { ` + opFields + ` } }`})
		}
	}
}

// cleanup deletes every cluster that is not DELETED, side by side.
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
		wg.Go(func() {
			prefix := "soak-cleanup-" + c.ID
			r.clearWorkloads(ctx, -1, prefix, c.ID)
			r.do(ctx, -1, prefix, r.deleteCluster(c.ID))
		})
	}
	wg.Wait()
	return ctx.Err()
}
