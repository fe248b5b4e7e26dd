package resolvers

import (
	"github.com/instantstart/instantstart/engine/models"
	"github.com/instantstart/instantstart/graph/model"
)

func mapModel(m *models.Model) *model.Model {
	out := &model.Model{ID: m.ID, ClusterID: m.ClusterID, Name: m.Name, Source: model.ModelSource(m.Source), ModelID: optional(m.ModelID),
		Revision: optional(m.Revision), Commit: optional(m.Commit), Status: model.ModelStatus(m.Status), StatusMessage: optional(m.StatusMessage),
		FilesTotal: m.FilesTotal, FilesDone: m.FilesDone, BytesTotal: float64(m.BytesTotal), BytesDone: float64(m.BytesDone),
		Bucket: m.Bucket, Path: m.Path(), JobName: optional(m.JobName), Namespace: optional(m.Namespace), LastOperationID: optional(m.LastOperationID),
		ReadyAt: m.ReadyAt}
	if !m.CreatedAt.IsZero() {
		out.CreatedAt = &m.CreatedAt
	}
	if !m.UpdatedAt.IsZero() {
		out.UpdatedAt = &m.UpdatedAt
	}
	return out
}
