package hyperpod

import "github.com/instantstart/instantstart/engine/errs"

// Bucket is a cluster's shared S3 bucket as pods mount it: through the
// claim ClaimName in Namespace, at MountPath. Jobs and endpoints that mount
// it run in Namespace.
type Bucket struct {
	Name      string
	Namespace string
	ClaimName string
	MountPath string
}

// RequireBucket refuses, with a PRECONDITION on field, what needs the
// cluster's shared bucket b when it has none ready (b is nil); needs says
// what the bucket is for ("models live in it").
func (c *Cluster) RequireBucket(b *Bucket, field, needs string) error {
	if b != nil {
		return nil
	}
	return errs.New(errs.Precondition, "cluster %s has no shared bucket ready; %s: add it first (addStorage with kind S3)", c.Name, needs).WithField(field)
}
