package resolvers

import (
	"github.com/instantstart/instantstart/engine/storage"
	"github.com/instantstart/instantstart/graph/model"
)

func mapStorage(st *storage.Storage) *model.Storage {
	out := &model.Storage{
		ID: st.ID, ClusterID: st.ClusterID, Kind: model.StorageKind(st.Kind), Status: model.StorageStatus(st.Status), StatusMessage: optional(st.StatusMessage),
		Namespace: st.Namespace, VolumeName: st.VolumeName, ClaimName: st.ClaimName, MountPath: st.MountPath,
		LastOperationID: optional(st.LastOperationID), CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt,
	}
	if b := st.S3; b != nil {
		out.S3 = &model.S3Bucket{Name: b.Bucket, Region: b.Region, Arn: b.Arn(), CreatedByInstantStart: b.Created}
	}
	if f := st.FSx; f != nil {
		out.Fsx = &model.FsxFileSystem{Name: f.Name, DeploymentType: model.FsxDeploymentType(f.DeploymentType), StorageCapacityGiB: f.CapacityGiB,
			SubnetID: f.SubnetID, Zone: f.Zone, SecurityGroupID: optional(f.SecurityGroupID), FileSystemID: optional(f.FileSystemID), Arn: optional(f.Arn),
			DNSName: optional(f.DNSName), MountName: optional(f.MountName), Lifecycle: optional(f.Lifecycle),
			DataRepositoryPath: optional(f.DataRepositoryPath), DataRepositoryAssociationID: optional(f.AssociationID)}
		if f.ThroughputPerTiB > 0 {
			out.Fsx.ThroughputPerTiB = &f.ThroughputPerTiB
		}
	}
	return out
}

func mapEntry(e storage.Entry) *model.S3Entry {
	n := &model.S3Entry{Key: e.Key, Folder: e.Folder}
	if !e.Folder {
		size := float64(e.Size)
		n.Size, n.LastModified, n.Etag, n.StorageClass = &size, e.Modified, optional(e.ETag), optional(e.StorageClass)
	}
	return n
}

func mapObjectPage(p *storage.ObjectPage) *model.S3EntryConnection {
	out := &model.S3EntryConnection{Bucket: p.Bucket, Prefix: p.Prefix, PageInfo: &model.PageInfo{HasNextPage: p.HasNext}, Edges: make([]*model.S3EntryEdge, 0, len(p.Entries))}
	for _, e := range p.Entries {
		out.Edges = append(out.Edges, &model.S3EntryEdge{Cursor: e.Key, Node: mapEntry(e)})
	}
	if k := len(out.Edges); k > 0 {
		end := out.Edges[k-1].Cursor
		out.PageInfo.EndCursor = &end
	}
	return out
}
