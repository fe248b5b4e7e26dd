package inference

import (
	"slices"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// MaxPage is the most endpoints one page holds.
const MaxPage = 200

// List returns a page of the cluster's endpoints, newest first, those in
// one of statuses (all when empty).
func (s *Service) List(clusterID string, statuses []Status, req store.PageRequest) (*store.Page[Endpoint], error) {
	if req.First < 1 || req.First > MaxPage {
		return nil, errs.Field("first", "first must be between 1 and %d, got %d", MaxPage, req.First)
	}
	if _, err := s.clusters.Get(clusterID); err != nil {
		return nil, err
	}
	var match func(*Endpoint) bool
	if len(statuses) > 0 {
		match = func(e *Endpoint) bool { return slices.Contains(statuses, e.Status) }
	}
	var page *store.Page[Endpoint]
	err := s.store.View(func(tx *store.Tx) (err error) {
		page, err = store.ReadPage(tx, store.Scan{Kind: RecordKind, Index: clusterIndex, Prefix: clusterID + "/", Descending: true}, req, match)
		return err
	})
	return page, err
}
