package storage

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// addFSx adds an FSx for Lustre file system to cluster c. The same file
// system again changes nothing; another one of the same name is a
// CONFLICT.
func (s *Service) addFSx(ctx context.Context, caller string, c *hyperpod.Cluster, in AddInput, idempotencyKey string) (*ops.Operation, error) {
	if in.FSx == nil {
		return nil, errs.Field("input.fsxLustre", "an FSX_LUSTRE storage needs input.fsxLustre with its name, deployment type and capacity")
	}
	f := *in.FSx
	if f.DeploymentType == "" {
		f.DeploymentType = Persistent2
	}
	if f.DeploymentType == Persistent2 && f.ThroughputPerTiB == 0 {
		f.ThroughputPerTiB = 125
	}
	sent := in
	if op, err := s.runner.Replay(ops.Request{Kind: KindAdd, Target: ops.Ref{Kind: targetKind}, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: sent}); op != nil || err != nil {
		return op, err
	}
	subnet, err := checkFSx(c, &f)
	if err != nil {
		return nil, err
	}
	if err := c.RequireActive("input.clusterId", "storage can be added"); err != nil {
		return nil, err
	}
	plan := &fsxPlan{Name: f.Name, DeploymentType: f.DeploymentType, CapacityGiB: f.CapacityGiB, ThroughputPerTiB: f.ThroughputPerTiB, SubnetID: subnet.ID, Zone: subnet.Zone}
	if f.LinkSharedBucket {
		shared, err := s.SharedStorage(c.ID)
		if err != nil {
			return nil, err
		}
		if shared == nil || shared.Status != Available {
			return nil, errs.New(errs.Precondition, "cluster %s has no shared bucket ready to link; add it first (addStorage with kind S3), or do not link the bucket", c.Name).WithField("input.fsxLustre.linkSharedBucket")
		}
		plan.Bucket = shared.S3.Bucket
	}
	same, err := s.fileSystemNamed(c.ID, f.Name)
	if err != nil {
		return nil, err
	}
	id := s.ids.NewID()
	if same != nil {
		had := same.FSx
		if had.DeploymentType != plan.DeploymentType || had.CapacityGiB != plan.CapacityGiB || had.ThroughputPerTiB != plan.ThroughputPerTiB ||
			had.Zone != plan.Zone || (had.DataRepositoryPath != "") != (plan.Bucket != "") {
			return nil, errs.New(errs.Conflict, "cluster %s has a file system named %s already (storage %s, %s, %d GiB); remove it first, or choose another name", c.Name, f.Name, same.ID, had.DeploymentType, had.CapacityGiB).WithField("input.fsxLustre.name")
		}
		if same.Status == Available || same.Status == Creating {
			return s.runner.Submit(ops.Request{Kind: KindAdd, Target: ops.Ref{Kind: targetKind, ID: same.ID, Name: f.Name}, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: sent,
				Input: addInput{StorageID: same.ID, ClusterID: c.ID, Region: c.Region, Kind: KindFSxLustre, FSx: plan}, Noop: same.Status == Available})
		}
		id = same.ID // a failed one, added again
	}
	stored := addInput{StorageID: id, ClusterID: c.ID, Region: c.Region, Kind: KindFSxLustre, FSx: plan}
	return s.runner.Submit(ops.Request{
		Kind: KindAdd, Target: ops.Ref{Kind: targetKind, ID: id, Name: f.Name}, RequestedBy: caller, IdempotencyKey: idempotencyKey,
		Input: stored, Fingerprint: sent,
		Prepare: func(tx *store.Tx, op *ops.Operation) error {
			if err := putRecord(tx, op, stored, same); err != nil {
				return err
			}
			return s.mounts.RecordFSxDriver(tx, c.ID, op.ID)
		},
	})
}

// fileSystemNamed returns the cluster's file system storage called name
// that is not deleted, or nil.
func (s *Service) fileSystemNamed(clusterID, name string) (*Storage, error) {
	return s.find(clusterID, func(st *Storage) bool { return st.FSx != nil && st.FSx.Name == name })
}

// find returns the first storage of the cluster that is not deleted and
// matches, or nil.
func (s *Service) find(clusterID string, match func(*Storage) bool) (*Storage, error) {
	req := store.PageRequest{First: 200}
	for {
		page, err := s.Page(clusterID, req)
		if err != nil {
			return nil, err
		}
		for _, st := range page.Items {
			if match(st) {
				return st, nil
			}
		}
		if !page.HasNext || len(page.Items) == 0 {
			return nil, nil
		}
		req.After = page.Items[len(page.Items)-1].ID
	}
}

// addFSxSteps are the phases of adding a file system: the FSx CSI
// driver, the security group, the file system, its link to the shared
// bucket when asked, then the volume and its claim.
func (s *Service) addFSxSteps(p *cloud.Provider, c *hyperpod.Cluster, in addInput) ([]ops.Step, error) {
	steps, err := s.mounts.FSxDriverSteps(c.ID, "")
	if err != nil {
		return nil, err
	}
	driver := steps[len(steps)-1].Name
	steps = append(steps, securityGroupStep(p, c, in), fileSystemStep(p, c, in))
	last := phaseFileSystem
	if in.FSx.Bucket != "" {
		steps = append(steps, dataRepositoryStep(p, in))
		last = phaseDataRepository
	}
	st := in.storage()
	v := volumeStep(p, c, st, func(run *ops.Run) (*corev1.PersistentVolume, error) {
		fs, err := ops.OutputOf[fsOutput](run.Op, phaseFileSystem)
		if err != nil {
			return nil, err
		}
		return fsxVolume(st, fs), nil
	})
	v.DependsOn = []string{driver, last}
	return append(steps, v), nil
}

// linkedFileSystem returns a file system of the cluster linked (or being
// linked) to shared bucket st, or nil.
func (s *Service) linkedFileSystem(st *Storage) (*Storage, error) {
	return s.find(st.ClusterID, func(fs *Storage) bool {
		return fs.FSx != nil && st.S3 != nil && fs.FSx.DataRepositoryPath == "s3://"+st.S3.Bucket+"/"
	})
}
