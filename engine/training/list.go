package training

import (
	"slices"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// MaxPage is the most jobs one page holds.
const MaxPage = 200

// List returns a page of the cluster's jobs, newest first, those in one of
// statuses (all when empty).
func (s *Service) List(clusterID string, statuses []Status, req store.PageRequest) (*store.Page[Job], error) {
	if req.First < 1 || req.First > MaxPage {
		return nil, errs.Field("first", "first must be between 1 and %d, got %d", MaxPage, req.First)
	}
	if _, err := s.clusters.Get(clusterID); err != nil {
		return nil, err
	}
	var match func(*Job) bool
	if len(statuses) > 0 {
		match = func(j *Job) bool { return slices.Contains(statuses, j.Status) }
	}
	var page *store.Page[Job]
	err := s.store.View(func(tx *store.Tx) (err error) {
		page, err = store.ReadPage(tx, store.Scan{Kind: RecordKind, Index: clusterIndex, Prefix: clusterID + "/", Descending: true}, req, match)
		return err
	})
	return page, err
}
