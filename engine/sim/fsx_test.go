package sim

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	fsxtypes "github.com/aws/aws-sdk-go-v2/service/fsx/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// fsxAvailableAfter is when, at the default speed, every file system is
// AVAILABLE however long its creation drew; draAvailableAfter is the same
// for an association.
var (
	fsxAvailableAfter = scaled(fsxCreateMax) + time.Second
	draAvailableAfter = scaled(draCreateMax) + time.Second
)

// lustreNetwork is a network whose security group lets Lustre traffic in
// from its own members, as FSx asks.
func (f *fixture) lustreNetwork() network {
	f.t.Helper()
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	self := []ec2types.UserIdGroupPair{{GroupId: aws.String(n.sg)}}
	ok(f.p.EC2.AuthorizeSecurityGroupIngress(f.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(n.sg), IpPermissions: []ec2types.IpPermission{
		{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(988), ToPort: aws.Int32(988), UserIdGroupPairs: self},
		{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(1018), ToPort: aws.Int32(1023), UserIdGroupPairs: self},
	}})).must(f.t)
	return n
}

// lustreInput is a PERSISTENT_2 file system of 1.2 TiB on n, changed by
// each of mods.
func lustreInput(n network, mods ...func(*fsx.CreateFileSystemInput)) *fsx.CreateFileSystemInput {
	in := &fsx.CreateFileSystemInput{
		FileSystemType: fsxtypes.FileSystemTypeLustre, StorageCapacity: aws.Int32(1200),
		SubnetIds: []string{n.subnets[0]}, SecurityGroupIds: []string{n.sg},
		LustreConfiguration: &fsxtypes.CreateFileSystemLustreConfiguration{DeploymentType: persistent2, PerUnitStorageThroughput: aws.Int32(125)},
	}
	for _, m := range mods {
		m(in)
	}
	return in
}

// availableFileSystem creates a file system and waits (on the test clock)
// until it is AVAILABLE.
func (f *fixture) availableFileSystem(in *fsx.CreateFileSystemInput) *fsxtypes.FileSystem {
	f.t.Helper()
	id := ok(f.p.FSx.CreateFileSystem(f.ctx, in)).must(f.t).FileSystem.FileSystemId
	f.clock.Advance(fsxAvailableAfter)
	fs := f.describeFileSystem(*id)
	if fs.Lifecycle != fsxtypes.FileSystemLifecycleAvailable {
		f.t.Fatalf("file system %s is %s, want AVAILABLE", *id, fs.Lifecycle)
	}
	return &fs
}

func (f *fixture) describeFileSystem(id string) fsxtypes.FileSystem {
	f.t.Helper()
	out := ok(f.p.FSx.DescribeFileSystems(f.ctx, &fsx.DescribeFileSystemsInput{FileSystemIds: []string{id}})).must(f.t)
	if len(out.FileSystems) != 1 {
		f.t.Fatalf("DescribeFileSystems(%s) = %d file systems", id, len(out.FileSystems))
	}
	return out.FileSystems[0]
}

// bucket makes an S3 bucket of the account in the fixture's region.
func (f *fixture) bucket(name string) {
	f.t.Helper()
	ok(f.p.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String(name),
		CreateBucketConfiguration: &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraintUsWest2}})).must(f.t)
}

// wantFSxError checks that err is the error want names: "params" for the
// SDK's client-side validation, "" for none, else an API error code.
func wantFSxError(t *testing.T, err error, want string) {
	t.Helper()
	var params *smithy.InvalidParamsError
	switch {
	case want == "params":
		if !errors.As(err, &params) {
			t.Errorf("error = %v, want the SDK's invalid parameters error", err)
		}
	case errors.As(err, &params):
		t.Errorf("error = %v, want %q", err, want)
	case errorCode(t, err) != want:
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestFSxStatePersists(t *testing.T) {
	f := newFixture(t)
	n := f.lustreNetwork()
	f.bucket("shared-data")
	fs := f.availableFileSystem(lustreInput(n))
	dra := ok(f.p.FSx.CreateDataRepositoryAssociation(f.ctx, &fsx.CreateDataRepositoryAssociationInput{
		FileSystemId: fs.FileSystemId, FileSystemPath: aws.String("/s3"), DataRepositoryPath: aws.String("s3://shared-data/"),
	})).must(t).Association

	f.w = f.world() // a restart reads the saved world
	again := f.describeFileSystem(*fs.FileSystemId)
	if *again.LustreConfiguration.MountName != *fs.LustreConfiguration.MountName || again.Lifecycle != fsxtypes.FileSystemLifecycleAvailable {
		t.Errorf("after a restart: %s %s, want %s AVAILABLE", *again.LustreConfiguration.MountName, again.Lifecycle, *fs.LustreConfiguration.MountName)
	}
	got := ok(f.p.FSx.DescribeDataRepositoryAssociations(f.ctx, &fsx.DescribeDataRepositoryAssociationsInput{AssociationIds: []string{*dra.AssociationId}})).must(t)
	if len(got.Associations) != 1 || *got.Associations[0].FileSystemPath != "/s3" {
		t.Errorf("association after a restart = %+v", got.Associations)
	}
}

func TestFSxCallsCountAndFaults(t *testing.T) {
	f := newFixture(t)
	if _, err := f.w.InjectFault(Fault{Kind: FaultThrottle, Service: svcFSx, Operation: "DescribeFileSystems", Count: 1}); err != nil {
		t.Fatalf("InjectFault: %v", err)
	}
	_, err := f.p.FSx.DescribeFileSystems(f.ctx, &fsx.DescribeFileSystemsInput{})
	var oe *smithy.OperationError
	if errorCode(t, err) != "ThrottlingException" || !errors.As(err, &oe) || oe.ServiceID != "FSx" {
		t.Errorf("throttled call: %v", err)
	}
	if out := ok(f.p.FSx.DescribeFileSystems(f.ctx, &fsx.DescribeFileSystemsInput{})).must(t); len(out.FileSystems) != 0 {
		t.Errorf("file systems = %d", len(out.FileSystems))
	}
	if got := f.w.Calls()[svcFSx]["DescribeFileSystems"]; got != 2 {
		t.Errorf("DescribeFileSystems calls = %d, want 2", got)
	}
	fault, err := ParseFault("error:service=fsx,operation=CreateFileSystem,code=InternalServerError")
	if err != nil {
		t.Fatalf("ParseFault: %v", err)
	}
	if _, err := f.w.InjectFault(fault); err != nil {
		t.Fatalf("InjectFault: %v", err)
	}
	_, err = f.p.FSx.CreateFileSystem(f.ctx, lustreInput(f.lustreNetwork()))
	wantFSxError(t, err, "InternalServerError")
}
