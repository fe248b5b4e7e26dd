package server_test

import (
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/resolvers/server"
	"github.com/instantstart/instantstart/resolvers/server/gqltest"
)

const clusterUpdatedQuery = `subscription($id: ID!, $since: String) {
  clusterUpdated(id: $id, since: $since) { id name status statusMessage }
}`

// nextCluster returns the next cluster a clusterUpdated subscription sends,
// as "STATUS message".
func nextCluster(t *testing.T, ch <-chan gqltest.Response) string {
	t.Helper()
	var got struct {
		ClusterUpdated struct {
			ID, Name, Status string
			StatusMessage    *string
		}
	}
	res := next(t, ch)
	if err := res.Decode(&got); err != nil {
		t.Fatal(err)
	}
	c := got.ClusterUpdated
	if c.ID != "c-1" || c.Name != "alpha" {
		t.Fatalf("cluster = %+v, want c-1 alpha", c)
	}
	if c.StatusMessage == nil {
		return c.Status
	}
	return c.Status + " " + *c.StatusMessage
}

// The records stay CREATING or DELETING until deleted: the refresher only
// reads ACTIVE and FAILED clusters, so nothing but the test changes them.
func TestClusterUpdatedFromNowOrFromACursorUntilDeleted(t *testing.T) {
	srv := startServer(t, server.Config{})
	now := time.Now().UTC()
	c := hyperpod.Cluster{ID: "c-1", Name: "alpha", Status: hyperpod.ClusterCreating, StatusMessage: "network", CreatedAt: now, UpdatedAt: now}
	putRecord(t, srv, cluster.RecordKind, c.ID, c)
	since := store.Cursor(srv.Store().LastSequence())
	c.StatusMessage = "eks"
	putRecord(t, srv, cluster.RecordKind, c.ID, c)

	ws := dial(t, srv)
	current, err := ws.Subscribe(testContext(t), clusterUpdatedQuery, map[string]any{"id": c.ID})
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := ws.Subscribe(testContext(t), clusterUpdatedQuery, map[string]any{"id": c.ID, "since": since})
	if err != nil {
		t.Fatal(err)
	}
	if got := nextCluster(t, current); got != "CREATING eks" {
		t.Fatalf("without a cursor the first state is %q, want the cluster now, CREATING eks", got)
	}
	if got := nextCluster(t, replayed); got != "CREATING eks" {
		t.Fatalf("from the cursor the first state is %q, want the change after it, CREATING eks", got)
	}

	c.Status, c.StatusMessage = hyperpod.ClusterDeleting, ""
	putRecord(t, srv, cluster.RecordKind, c.ID, c)
	c.Status = hyperpod.ClusterDeleted
	putRecord(t, srv, cluster.RecordKind, c.ID, c)
	for i, ch := range []<-chan gqltest.Response{current, replayed} {
		for _, want := range []string{"DELETING", "DELETED"} {
			if got := nextCluster(t, ch); got != want {
				t.Fatalf("subscription %d: state %q, want %s", i+1, got, want)
			}
		}
		ended(t, ch)
	}

	// A deleted cluster's replay ends with the log.
	replayed, err = ws.Subscribe(testContext(t), clusterUpdatedQuery, map[string]any{"id": c.ID, "since": since})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CREATING eks", "DELETING", "DELETED"} {
		if got := nextCluster(t, replayed); got != want {
			t.Fatalf("replay of the deleted cluster: state %q, want %s", got, want)
		}
	}
	ended(t, replayed)
}

func TestClusterUpdatedRefusesBeforeStreaming(t *testing.T) {
	srv := startServer(t, server.Config{})
	putRecord(t, srv, cluster.RecordKind, "c-1", hyperpod.Cluster{ID: "c-1", Name: "alpha", Status: hyperpod.ClusterCreating})
	ws := dial(t, srv)
	for _, tc := range []struct {
		name string
		vars map[string]any
		code string
	}{
		{"unknown id", map[string]any{"id": "missing"}, "NOT_FOUND"},
		{"bad cursor", map[string]any{"id": "c-1", "since": "yesterday"}, "VALIDATION"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, err := ws.Subscribe(testContext(t), clusterUpdatedQuery, tc.vars)
			if err != nil {
				t.Fatal(err)
			}
			if res := next(t, ch); len(res.Errors) == 0 || res.Errors[0].Code() != tc.code {
				t.Fatalf("errors = %+v, want %s", res.Errors, tc.code)
			}
			ended(t, ch)
		})
	}
}
