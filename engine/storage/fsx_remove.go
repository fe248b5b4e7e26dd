package storage

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	fsxtypes "github.com/aws/aws-sdk-go-v2/service/fsx/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// removeFSxSteps are the phases of removing a file system: the claim and
// the volume, the link to the bucket (the bucket's objects stay), the file
// system and its security group. The FSx CSI driver stays on.
func removeFSxSteps(p *cloud.Provider, c *hyperpod.Cluster, st *Storage) []ops.Step {
	unlink := unlinkStep(p, st)
	unlink.DependsOn = []string{phaseVolume}
	del := deleteFileSystemStep(p, st)
	del.DependsOn = []string{phaseDataRepository}
	sg := deleteSecurityGroupStep(p, c, st)
	sg.DependsOn = []string{phaseFileSystem}
	return []ops.Step{unmountStep(p, c, st), unlink, del, sg}
}

// fileSystemOf returns the storage's file system as FSx has it now, nil
// when it is gone.
func fileSystemOf(ctx context.Context, p *cloud.Provider, st *Storage) (*fsxtypes.FileSystem, error) {
	fs, err := findFileSystem(ctx, p, st.FSx.FileSystemID, st.ID)
	if err != nil || fs != nil || st.FSx.FileSystemID == "" {
		return fs, err
	}
	// One being deleted is left out above; it is still there.
	out, err := p.FSx.DescribeFileSystems(ctx, &fsx.DescribeFileSystemsInput{FileSystemIds: []string{st.FSx.FileSystemID}})
	var nf *fsxtypes.FileSystemNotFound
	switch {
	case errors.As(err, &nf):
		return nil, nil
	case err != nil:
		return nil, errs.FromUpstream(err, "look up file system "+st.FSx.FileSystemID)
	}
	for _, fs := range out.FileSystems {
		if aws.ToString(fs.FileSystemId) == st.FSx.FileSystemID && fsxTag(fs.Tags, tagStorage) == st.ID {
			return &fs, nil
		}
	}
	return nil, nil
}

// unlinkStep deletes the file system's link to the bucket, leaving the
// bucket's objects as they are.
func unlinkStep(p *cloud.Provider, st *Storage) ops.Step {
	return ops.Step{Name: phaseDataRepository, Title: "Unlink the shared bucket (its objects stay)",
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			fs, err := fileSystemOf(ctx, p, st)
			if err != nil || fs == nil {
				return ops.Observation{State: ops.Done}, err
			}
			a, err := findAssociation(ctx, p, aws.ToString(fs.FileSystemId))
			switch {
			case err != nil:
				return ops.Observation{}, err
			case a != nil:
				return ops.Observation{State: ops.Absent}, nil
			}
			if run.Applied {
				// findAssociation leaves out the ones being deleted: wait
				// for them to go before the file system is deleted.
				links, err := cloud.AllDataRepositoryAssociations(ctx, p.FSx, fsx.DescribeDataRepositoryAssociationsInput{Filters: []fsxtypes.Filter{{Name: fsxtypes.FilterNameFileSystemId, Values: []string{aws.ToString(fs.FileSystemId)}}}})
				if err != nil {
					return ops.Observation{}, errs.FromUpstream(err, "look up the links of file system "+aws.ToString(fs.FileSystemId))
				}
				if len(links) > 0 {
					return ops.Observation{State: ops.Pending, Message: "the link is being deleted"}, nil
				}
			}
			if st.FSx.DataRepositoryPath == "" && !run.Applied {
				return ops.Observation{State: ops.NotNeeded}, nil
			}
			return ops.Observation{State: ops.Done}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			fs, err := fileSystemOf(ctx, p, st)
			if err != nil || fs == nil {
				return nil, err
			}
			a, err := findAssociation(ctx, p, aws.ToString(fs.FileSystemId))
			if err != nil || a == nil {
				return nil, err
			}
			_, err = p.FSx.DeleteDataRepositoryAssociation(ctx, &fsx.DeleteDataRepositoryAssociationInput{AssociationId: a.AssociationId, DeleteDataInFileSystem: aws.Bool(false)})
			var nf *fsxtypes.DataRepositoryAssociationNotFound
			if err != nil && !errors.As(err, &nf) {
				return nil, errs.FromUpstream(err, "unlink "+aws.ToString(a.DataRepositoryPath))
			}
			return nil, nil
		},
	}
}

// deleteFileSystemStep deletes the file system and waits for it to go.
func deleteFileSystemStep(p *cloud.Provider, st *Storage) ops.Step {
	return ops.Step{Name: phaseFileSystem, Title: "Delete file system " + st.FSx.Name + " (its files go with it)",
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			fs, err := fileSystemOf(ctx, p, st)
			switch {
			case err != nil:
				return ops.Observation{}, err
			case fs == nil:
				return ops.Observation{State: ops.Done}, nil
			case fs.Lifecycle == fsxtypes.FileSystemLifecycleDeleting:
				return ops.Observation{State: ops.Pending, Message: "file system " + aws.ToString(fs.FileSystemId) + " is DELETING"}, nil
			case fs.Lifecycle == fsxtypes.FileSystemLifecycleCreating:
				return ops.Observation{State: ops.Pending, Message: "file system " + aws.ToString(fs.FileSystemId) + " is still CREATING; FSx deletes it once it is made"}, nil
			}
			return ops.Observation{State: ops.Absent}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			fs, err := fileSystemOf(ctx, p, st)
			if err != nil || fs == nil {
				return nil, err
			}
			_, err = p.FSx.DeleteFileSystem(ctx, &fsx.DeleteFileSystemInput{FileSystemId: fs.FileSystemId, ClientRequestToken: aws.String(run.ClientToken())})
			var nf *fsxtypes.FileSystemNotFound
			if err != nil && !errors.As(err, &nf) {
				return nil, errs.FromUpstream(err, "delete file system "+aws.ToString(fs.FileSystemId))
			}
			return nil, nil
		},
	}
}

// deleteSecurityGroupStep deletes the file system's security group.
func deleteSecurityGroupStep(p *cloud.Provider, c *hyperpod.Cluster, st *Storage) ops.Step {
	in := addInput{StorageID: st.ID, FSx: &fsxPlan{Name: st.FSx.Name}}
	return ops.Step{Name: phaseSecurityGroup, Title: "Delete security group " + sgName(c, in),
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			g, err := findSG(ctx, p, c, in)
			switch {
			case isConflict(err):
				return ops.Observation{State: ops.Done}, nil // not ours: left alone
			case err != nil:
				return ops.Observation{}, err
			case g == nil:
				return ops.Observation{State: ops.Done}, nil
			}
			return ops.Observation{State: ops.Absent}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			g, err := findSG(ctx, p, c, in)
			if err != nil || g == nil {
				return nil, err
			}
			_, err = p.EC2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: g.GroupId})
			if err != nil && !errs.IsAPICode(err, "InvalidGroup.NotFound") {
				if errs.IsAPICode(err, "DependencyViolation") {
					return nil, errs.New(errs.Precondition, "security group %s is still in use (the file system's network interfaces take a few minutes to go); retry the operation", aws.ToString(g.GroupId))
				}
				return nil, errs.FromUpstream(err, "delete security group "+aws.ToString(g.GroupId))
			}
			return nil, nil
		},
	}
}
