package server_test

import (
	"slices"
	"testing"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

// TestSharedBucketOverGraphQL adds a cluster's shared bucket through the
// API, refuses a bad name at its field, browses the bucket, and removes the
// storage; an operator may not delete the bucket with it.
func TestSharedBucketOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	clusterID := createClusterOverGraphQL(t, srv, "storage-e2e")
	const add = `mutation($in: AddStorageInput!) { addStorage(input: $in) { id statusQuery target { id kind } } }`

	res := query(t, srv, add, map[string]any{"in": map[string]any{"clusterId": clusterID, "kind": "S3", "s3": map[string]any{"bucket": "Not_A_Bucket", "create": true}}})
	if len(res.Errors) != 1 || res.Errors[0].Code() != "VALIDATION" || res.Errors[0].Extensions["field"] != "input.s3.bucket" {
		t.Fatalf("a bad bucket name: %+v", res.Errors)
	}

	res = query(t, srv, add, map[string]any{"in": map[string]any{"clusterId": clusterID, "kind": "S3", "s3": map[string]any{"bucket": "storage-e2e-data", "create": true}}})
	var added struct {
		AddStorage struct {
			ID, StatusQuery string
			Target          struct{ ID, Kind string }
		}
	}
	mustDecode(t, res, &added)
	if added.AddStorage.StatusQuery != "storage" || added.AddStorage.Target.Kind != "STORAGE" {
		t.Fatalf("addStorage %+v", added.AddStorage)
	}
	if s := waitOperation(t, srv, added.AddStorage.ID); s != "SUCCEEDED" {
		t.Fatalf("addStorage ended %s", s)
	}
	storageID := added.AddStorage.Target.ID
	// The cluster lists the operations on its resources with its own.
	res = query(t, srv, `query($c: ID!) { cluster(id: $c) { operations { edges { node { kind } } } } }`, map[string]any{"c": clusterID})
	var ops struct {
		Cluster struct {
			Operations struct {
				Edges []struct{ Node struct{ Kind string } }
			}
		}
	}
	mustDecode(t, res, &ops)
	var kinds []string
	for _, e := range ops.Cluster.Operations.Edges {
		kinds = append(kinds, e.Node.Kind)
	}
	if !slices.Contains(kinds, "AddStorage") || !slices.Contains(kinds, "CreateCluster") {
		t.Fatalf("the cluster's operations are %v; want its CreateCluster and the AddStorage on its bucket", kinds)
	}
	sub, err := dial(t, srv).Subscribe(testContext(t), `subscription($ids: [ID!]) { events(since: "0", filter: {ids: $ids}) { storage { id status claimName } } }`,
		map[string]any{"ids": []string{storageID}})
	if err != nil {
		t.Fatal(err)
	}
	for {
		var ev struct {
			Events struct {
				Storage *struct{ ID, Status, ClaimName string }
			}
		}
		if res := next(t, sub); res.Decode(&ev) != nil {
			t.Fatalf("an event that does not decode: %s", res.Data)
		}
		if st := ev.Events.Storage; st == nil || st.ID != storageID || st.ClaimName != "s3-shared" {
			t.Fatalf("an event of the storage without it: %+v", ev.Events)
		} else if st.Status == "AVAILABLE" {
			break
		}
	}

	res = query(t, srv, `query($c: ID!) { storages(clusterId: $c) { totalCount edges { node {
	  id kind status namespace volumeName claimName mountPath s3 { name region arn createdByInstantStart } } } } }`, map[string]any{"c": clusterID})
	var list struct {
		Storages struct {
			TotalCount int
			Edges      []struct {
				Node struct {
					ID, Kind, Status, Namespace, VolumeName, ClaimName, MountPath string
					S3                                                            struct {
						Name, Region, Arn     string
						CreatedByInstantStart bool
					}
				}
			}
		}
	}
	mustDecode(t, res, &list)
	if list.Storages.TotalCount != 1 || len(list.Storages.Edges) != 1 {
		t.Fatalf("storages %+v", list.Storages)
	}
	n := list.Storages.Edges[0].Node
	if n.ID != storageID || n.Kind != "S3" || n.Status != "AVAILABLE" || n.MountPath != "/s3" || n.ClaimName == "" || n.S3.Name != "storage-e2e-data" ||
		n.S3.Region != "us-west-2" || n.S3.Arn != "arn:aws:s3:::storage-e2e-data" || !n.S3.CreatedByInstantStart {
		t.Fatalf("storage %+v", n)
	}

	res = query(t, srv, `query($c: ID!) { s3Objects(clusterId: $c, prefix: "models/") { bucket prefix edges { node { key } } pageInfo { hasNextPage } } }`, map[string]any{"c": clusterID})
	var browse struct {
		S3Objects struct {
			Bucket, Prefix string
			Edges          []struct{ Node struct{ Key string } }
		}
	}
	mustDecode(t, res, &browse)
	if browse.S3Objects.Bucket != "storage-e2e-data" || browse.S3Objects.Prefix != "models/" || len(browse.S3Objects.Edges) != 0 {
		t.Fatalf("browse of an empty bucket %+v", browse.S3Objects)
	}
	res = query(t, srv, `query($c: ID!) { s3Objects(clusterId: $c, first: 5000) { bucket } }`, map[string]any{"c": clusterID})
	if len(res.Errors) != 1 || res.Errors[0].Code() != "VALIDATION" || res.Errors[0].Extensions["field"] != "first" {
		t.Fatalf("a page of 5000: %+v", res.Errors)
	}

	_, operator := newToken(t, srv, "ops", "OPERATOR", nil)
	const remove = `mutation($id: ID!, $d: Boolean) { removeStorage(id: $id, deleteBucket: $d) { id } }`
	if res := queryAs(t, srv, operator, remove, map[string]any{"id": storageID, "d": true}); code(res) != "FORBIDDEN" {
		t.Fatalf("an operator deleting the bucket: %+v", res.Errors)
	}
	res = queryAs(t, srv, operator, remove, map[string]any{"id": storageID})
	var removed struct{ RemoveStorage struct{ ID string } }
	mustDecode(t, res, &removed)
	if s := waitOperation(t, srv, removed.RemoveStorage.ID); s != "SUCCEEDED" {
		t.Fatalf("removeStorage ended %s", s)
	}
	res = query(t, srv, `query($id: ID!) { storage(id: $id) { status } }`, map[string]any{"id": storageID})
	var gone struct{ Storage struct{ Status string } }
	mustDecode(t, res, &gone)
	if gone.Storage.Status != "DELETED" {
		t.Fatalf("status after removal %s", gone.Storage.Status)
	}
	if res := query(t, srv, `query { storage(id: "nope") { id } }`, nil); code(res) != "NOT_FOUND" {
		t.Fatalf("an unknown storage: %+v", res.Errors)
	}
}
