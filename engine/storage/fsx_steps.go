package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	fsxtypes "github.com/aws/aws-sdk-go-v2/service/fsx/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// Phase names of an FSx storage's operations.
const (
	phaseSecurityGroup  = "security-group"
	phaseFileSystem     = "file-system"
	phaseDataRepository = "data-repository"
)

// The tags that mark what a storage made.
const (
	tagCluster = "instantstart:cluster"
	tagStorage = "instantstart:storage"
)

// sgOutput is what the security group phase made.
type sgOutput struct {
	GroupID string `json:"groupId"`
}

// fsOutput is what the file system phase made.
type fsOutput struct {
	FileSystemID string `json:"fileSystemId"`
	Arn          string `json:"arn"`
	DNSName      string `json:"dnsName"`
	MountName    string `json:"mountName"`
	Lifecycle    string `json:"lifecycle"`
}

// draOutput is what the data repository phase made.
type draOutput struct {
	AssociationID string `json:"associationId"`
	Path          string `json:"path"`
}

func sgName(c *hyperpod.Cluster, in addInput) string { return c.Name + "-fsx-" + in.FSx.Name }

// findSG returns the storage's security group, nil when there is none. A
// group of that name the storage did not make is refused.
func findSG(ctx context.Context, p *cloud.Provider, c *hyperpod.Cluster, in addInput) (*ec2types.SecurityGroup, error) {
	sgs, err := cloud.AllSecurityGroups(ctx, p.EC2, ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{
		{Name: aws.String("vpc-id"), Values: []string{c.Network.VpcID}}, {Name: aws.String("group-name"), Values: []string{sgName(c, in)}},
	}})
	if err != nil {
		return nil, errs.FromUpstream(err, "look up security group "+sgName(c, in))
	}
	for _, g := range sgs {
		if aws.ToString(g.VpcId) != c.Network.VpcID || aws.ToString(g.GroupName) != sgName(c, in) {
			continue // the filters are a hint; what is acted on is checked here
		}
		if ec2Tag(g.Tags, tagStorage) != in.StorageID {
			return nil, errs.New(errs.Conflict, "security group %s (%s) exists in the cluster's VPC and was not made for this storage; delete it, or name the file system otherwise", sgName(c, in), aws.ToString(g.GroupId))
		}
		return &g, nil
	}
	return nil, nil
}

func ec2Tag(tags []ec2types.Tag, key string) string {
	for _, t := range tags {
		if aws.ToString(t.Key) == key {
			return aws.ToString(t.Value)
		}
	}
	return ""
}

// lustreRules let the nodes and the file system's own servers reach
// Lustre's ports.
func lustreRules(nodes, self string) []ec2types.IpPermission {
	from := []ec2types.UserIdGroupPair{{GroupId: aws.String(nodes), Description: aws.String("the cluster's nodes")}, {GroupId: aws.String(self), Description: aws.String("the file system's servers")}}
	return []ec2types.IpPermission{
		{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(lustrePort), ToPort: aws.Int32(lustrePort), UserIdGroupPairs: from},
		{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(lustreFromPort), ToPort: aws.Int32(lustreToPort), UserIdGroupPairs: from},
	}
}

// hasLustreRules tells whether g lets the nodes reach both port ranges.
func hasLustreRules(g *ec2types.SecurityGroup, nodes string) bool {
	found := 0
	for _, perm := range g.IpPermissions {
		if aws.ToString(perm.IpProtocol) != "tcp" {
			continue
		}
		for _, pair := range perm.UserIdGroupPairs {
			if aws.ToString(pair.GroupId) != nodes {
				continue
			}
			if aws.ToInt32(perm.FromPort) == lustrePort && aws.ToInt32(perm.ToPort) == lustrePort || aws.ToInt32(perm.FromPort) == lustreFromPort && aws.ToInt32(perm.ToPort) == lustreToPort {
				found++
			}
		}
	}
	return found >= 2
}

// securityGroupStep makes the file system's security group: Lustre's
// ports open to the cluster's nodes and to itself, nothing else.
func securityGroupStep(p *cloud.Provider, c *hyperpod.Cluster, in addInput) ops.Step {
	return ops.Step{Name: phaseSecurityGroup, Title: "Security group " + sgName(c, in) + " (Lustre TCP 988, 1018-1023 from the nodes)",
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			g, err := findSG(ctx, p, c, in)
			switch {
			case isConflict(err):
				return ops.Observation{State: ops.Broken, Err: err}, nil
			case err != nil:
				return ops.Observation{}, err
			case g == nil:
				return ops.Observation{State: ops.Absent}, nil
			case !hasLustreRules(g, c.Network.SecurityGroupID):
				return ops.Observation{State: ops.Absent, Message: "the group lacks its Lustre rules"}, nil
			}
			return ops.Observation{State: ops.Done, Output: sgOutput{GroupID: aws.ToString(g.GroupId)}}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			g, err := findSG(ctx, p, c, in)
			if err != nil {
				return nil, err
			}
			id := ""
			if g != nil {
				id = aws.ToString(g.GroupId)
			} else {
				out, err := p.EC2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String(sgName(c, in)), VpcId: aws.String(c.Network.VpcID),
					Description: aws.String("FSx for Lustre " + in.FSx.Name + " of cluster " + c.Name + ": Lustre from the nodes"),
					TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSecurityGroup, Tags: []ec2types.Tag{
						{Key: aws.String("Name"), Value: aws.String(sgName(c, in))}, {Key: aws.String(tagCluster), Value: aws.String(c.Name)},
						{Key: aws.String("instantstart:cluster-id"), Value: aws.String(c.ID)}, {Key: aws.String(tagStorage), Value: aws.String(in.StorageID)},
					}}}})
				if err != nil {
					return nil, errs.FromUpstream(err, "create security group "+sgName(c, in))
				}
				id = aws.ToString(out.GroupId)
			}
			_, err = p.EC2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(id), IpPermissions: lustreRules(c.Network.SecurityGroupID, id)})
			if err != nil && !errs.IsAPICode(err, "InvalidPermission.Duplicate") {
				return nil, errs.FromUpstream(err, "open Lustre's ports in security group "+id)
			}
			return sgOutput{GroupID: id}, nil
		},
	}
}

// findFileSystem returns the storage's file system, nil when there is
// none: the one the phase's output names, else the one tagged for the
// storage (made by an attempt that did not record it).
func findFileSystem(ctx context.Context, p *cloud.Provider, id, storageID string) (*fsxtypes.FileSystem, error) {
	in := &fsx.DescribeFileSystemsInput{}
	if id != "" {
		in.FileSystemIds = []string{id}
	}
	var found *fsxtypes.FileSystem
	err := cloud.Pages("DescribeFileSystems", func(token *string) (*string, error) {
		in.NextToken = token
		out, err := p.FSx.DescribeFileSystems(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, fs := range out.FileSystems {
			if fsxTag(fs.Tags, tagStorage) == storageID && fs.Lifecycle != fsxtypes.FileSystemLifecycleDeleting {
				found = &fs
				return nil, cloud.StopPages
			}
		}
		return out.NextToken, nil
	})
	var nf *fsxtypes.FileSystemNotFound
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, errs.FromUpstream(err, "look up the file system of storage "+storageID)
	}
	return found, nil
}

func fsxTag(tags []fsxtypes.Tag, key string) string {
	for _, t := range tags {
		if aws.ToString(t.Key) == key {
			return aws.ToString(t.Value)
		}
	}
	return ""
}

func fsOutputOf(fs *fsxtypes.FileSystem) fsOutput {
	o := fsOutput{FileSystemID: aws.ToString(fs.FileSystemId), Arn: aws.ToString(fs.ResourceARN), DNSName: aws.ToString(fs.DNSName), Lifecycle: string(fs.Lifecycle)}
	if fs.LustreConfiguration != nil {
		o.MountName = aws.ToString(fs.LustreConfiguration.MountName)
	}
	return o
}

// fileSystemStep makes the file system in the compute subnet and waits
// for it to be AVAILABLE.
func fileSystemStep(p *cloud.Provider, c *hyperpod.Cluster, in addInput) ops.Step {
	f := in.FSx
	title := fmt.Sprintf("FSx for Lustre %s: %s, %d GiB, in %s", f.Name, f.DeploymentType, f.CapacityGiB, f.Zone)
	return ops.Step{Name: phaseFileSystem, Title: title, DependsOn: []string{phaseSecurityGroup},
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			made, err := ops.OutputOf[fsOutput](run.Op, phaseFileSystem)
			if err != nil {
				return ops.Observation{}, err
			}
			fs, err := findFileSystem(ctx, p, made.FileSystemID, in.StorageID)
			switch {
			case err != nil:
				return ops.Observation{}, err
			case fs == nil:
				return ops.Observation{State: ops.Absent}, nil
			}
			out := fsOutputOf(fs)
			switch fs.Lifecycle {
			case fsxtypes.FileSystemLifecycleAvailable, fsxtypes.FileSystemLifecycleUpdating:
				return ops.Observation{State: ops.Done, Output: out}, nil
			case fsxtypes.FileSystemLifecycleFailed, fsxtypes.FileSystemLifecycleMisconfigured, fsxtypes.FileSystemLifecycleMisconfiguredUnavailable:
				why := string(fs.Lifecycle)
				if fs.FailureDetails != nil {
					why = aws.ToString(fs.FailureDetails.Message)
				}
				return ops.Observation{State: ops.Broken, Output: out, Err: errs.New(errs.Upstream, "file system %s is %s: %s; remove the storage and add it again", out.FileSystemID, fs.Lifecycle, why)}, nil
			}
			return ops.Observation{State: ops.Pending, Output: out, Message: "file system " + out.FileSystemID + " is " + string(fs.Lifecycle)}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			sg, err := ops.OutputOf[sgOutput](run.Op, phaseSecurityGroup)
			if err != nil {
				return nil, err
			}
			lc := &fsxtypes.CreateFileSystemLustreConfiguration{DeploymentType: fsxtypes.LustreDeploymentType(f.DeploymentType)}
			if f.ThroughputPerTiB > 0 {
				lc.PerUnitStorageThroughput = aws.Int32(int32(f.ThroughputPerTiB))
			}
			out, err := p.FSx.CreateFileSystem(ctx, &fsx.CreateFileSystemInput{
				FileSystemType: fsxtypes.FileSystemTypeLustre, StorageCapacity: aws.Int32(int32(f.CapacityGiB)), StorageType: fsxtypes.StorageTypeSsd,
				SubnetIds: []string{f.SubnetID}, SecurityGroupIds: []string{sg.GroupID}, LustreConfiguration: lc,
				// The token makes a retry after a lost answer return the
				// same file system instead of making a second one.
				ClientRequestToken: aws.String(strings.ToLower(in.StorageID)),
				Tags:               []fsxtypes.Tag{{Key: aws.String("Name"), Value: aws.String(sgName(c, in))}, {Key: aws.String(tagCluster), Value: aws.String(c.Name)}, {Key: aws.String(tagStorage), Value: aws.String(in.StorageID)}},
			})
			if err != nil {
				if errs.IsAPICode(err, "BadRequest", "InvalidNetworkSettings", "IncompatibleParameterError", "ServiceLimitExceeded") {
					return nil, errs.New(errs.Precondition, "FSx refused the file system: %s", errs.FromUpstream(err, "create file system").Error())
				}
				return nil, errs.FromUpstream(err, "create file system "+f.Name)
			}
			return fsOutputOf(out.FileSystem), nil
		},
	}
}

// dataRepositoryStep links the shared bucket to the file system at /s3:
// its objects' metadata are imported, and new and changed files go back.
func dataRepositoryStep(p *cloud.Provider, in addInput) ops.Step {
	path := "s3://" + in.FSx.Bucket + "/"
	return ops.Step{Name: phaseDataRepository, Title: "Link " + path + " at " + fsxLinkPath, DependsOn: []string{phaseFileSystem},
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			fs, err := ops.OutputOf[fsOutput](run.Op, phaseFileSystem)
			if err != nil {
				return ops.Observation{}, err
			}
			a, err := findAssociation(ctx, p, fs.FileSystemID)
			switch {
			case err != nil:
				return ops.Observation{}, err
			case a == nil:
				return ops.Observation{State: ops.Absent}, nil
			}
			out := draOutput{AssociationID: aws.ToString(a.AssociationId), Path: aws.ToString(a.DataRepositoryPath)}
			switch a.Lifecycle {
			case fsxtypes.DataRepositoryLifecycleAvailable:
				return ops.Observation{State: ops.Done, Output: out}, nil
			case fsxtypes.DataRepositoryLifecycleFailed, fsxtypes.DataRepositoryLifecycleMisconfigured:
				why := string(a.Lifecycle)
				if a.FailureDetails != nil {
					why = aws.ToString(a.FailureDetails.Message)
				}
				return ops.Observation{State: ops.Broken, Output: out, Err: errs.New(errs.Upstream, "the link to %s is %s: %s", out.Path, a.Lifecycle, why)}, nil
			}
			return ops.Observation{State: ops.Pending, Output: out, Message: "the link to " + out.Path + " is " + string(a.Lifecycle)}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			fs, err := ops.OutputOf[fsOutput](run.Op, phaseFileSystem)
			if err != nil {
				return nil, err
			}
			events := []fsxtypes.EventType{fsxtypes.EventTypeNew, fsxtypes.EventTypeChanged, fsxtypes.EventTypeDeleted}
			out, err := p.FSx.CreateDataRepositoryAssociation(ctx, &fsx.CreateDataRepositoryAssociationInput{
				FileSystemId: aws.String(fs.FileSystemID), FileSystemPath: aws.String(fsxLinkPath), DataRepositoryPath: aws.String(path),
				BatchImportMetaDataOnCreate: aws.Bool(true), ClientRequestToken: aws.String(strings.ToLower(in.StorageID)),
				S3:   &fsxtypes.S3DataRepositoryConfiguration{AutoImportPolicy: &fsxtypes.AutoImportPolicy{Events: events}, AutoExportPolicy: &fsxtypes.AutoExportPolicy{Events: events}},
				Tags: []fsxtypes.Tag{{Key: aws.String(tagStorage), Value: aws.String(in.StorageID)}},
			})
			if err != nil {
				return nil, errs.FromUpstream(err, "link "+path+" to file system "+fs.FileSystemID)
			}
			return draOutput{AssociationID: aws.ToString(out.Association.AssociationId), Path: path}, nil
		},
	}
}

// findAssociation returns the association at /s3 of file system id.
func findAssociation(ctx context.Context, p *cloud.Provider, id string) (*fsxtypes.DataRepositoryAssociation, error) {
	in := &fsx.DescribeDataRepositoryAssociationsInput{Filters: []fsxtypes.Filter{{Name: fsxtypes.FilterNameFileSystemId, Values: []string{id}}}}
	var found *fsxtypes.DataRepositoryAssociation
	err := cloud.Pages("DescribeDataRepositoryAssociations", func(token *string) (*string, error) {
		in.NextToken = token
		out, err := p.FSx.DescribeDataRepositoryAssociations(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, a := range out.Associations {
			if aws.ToString(a.FileSystemId) == id && aws.ToString(a.FileSystemPath) == fsxLinkPath && a.Lifecycle != fsxtypes.DataRepositoryLifecycleDeleting {
				found = &a
				return nil, cloud.StopPages
			}
		}
		return out.NextToken, nil
	})
	var nf *fsxtypes.FileSystemNotFound
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, errs.FromUpstream(err, "look up the links of file system "+id)
	}
	return found, nil
}

// reflectFileSystem copies into fs what add operation op has made so far.
func reflectFileSystem(fs *FileSystem, op *ops.Operation) error {
	sg, err := ops.OutputOf[sgOutput](op, phaseSecurityGroup)
	if err != nil {
		return err
	}
	made, err := ops.OutputOf[fsOutput](op, phaseFileSystem)
	if err != nil {
		return err
	}
	link, err := ops.OutputOf[draOutput](op, phaseDataRepository)
	if err != nil {
		return err
	}
	set := func(to *string, v string) {
		if v != "" {
			*to = v
		}
	}
	set(&fs.SecurityGroupID, sg.GroupID)
	set(&fs.FileSystemID, made.FileSystemID)
	set(&fs.Arn, made.Arn)
	set(&fs.DNSName, made.DNSName)
	set(&fs.MountName, made.MountName)
	set(&fs.Lifecycle, made.Lifecycle)
	set(&fs.AssociationID, link.AssociationID)
	set(&fs.DataRepositoryPath, link.Path)
	return nil
}

func isConflict(err error) bool {
	var e *errs.Error
	return errors.As(err, &e) && e.Code == errs.Conflict
}
