package sim

import (
	"errors"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	fsxtypes "github.com/aws/aws-sdk-go-v2/service/fsx/types"
)

// lustre sets the deployment type, capacity and throughput (0: none).
func lustre(d fsxtypes.LustreDeploymentType, capacity, throughput int32) func(*fsx.CreateFileSystemInput) {
	return func(in *fsx.CreateFileSystemInput) {
		in.StorageCapacity = aws.Int32(capacity)
		in.LustreConfiguration.DeploymentType = d
		in.LustreConfiguration.PerUnitStorageThroughput = nil
		if throughput != 0 {
			in.LustreConfiguration.PerUnitStorageThroughput = aws.Int32(throughput)
		}
	}
}

func TestFSxCreateFileSystemValidation(t *testing.T) {
	type mod = func(*fsx.CreateFileSystemInput)
	cases := []struct {
		name string
		mod  func(n network, other network) mod
		want string
	}{
		{"persistent 2, 1.2 TiB", nil, ""},
		{"no file system type", func(network, network) mod { return func(in *fsx.CreateFileSystemInput) { in.FileSystemType = "" } }, "params"},
		{"no subnets", func(network, network) mod { return func(in *fsx.CreateFileSystemInput) { in.SubnetIds = nil } }, "params"},
		{"tag without a value", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) { in.Tags = []fsxtypes.Tag{{Key: aws.String("Name")}} }
		}, "params"},
		{"windows", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) { in.FileSystemType = fsxtypes.FileSystemTypeWindows }
		}, "BadRequest"},
		{"unknown file system type", func(network, network) mod { return func(in *fsx.CreateFileSystemInput) { in.FileSystemType = "NFS" } }, "ValidationException"},
		{"unknown deployment type", func(network, network) mod { return lustre("SCRATCH_3", 1200, 0) }, "ValidationException"},
		{"no capacity", func(network, network) mod { return func(in *fsx.CreateFileSystemInput) { in.StorageCapacity = nil } }, "BadRequest"},

		{"persistent 2, 2.4 TiB", func(network, network) mod { return lustre(persistent2, 2400, 250) }, ""},
		{"persistent 2, 4.8 TiB", func(network, network) mod { return lustre(persistent2, 4800, 1000) }, ""},
		{"persistent 2, 1000 GiB", func(network, network) mod { return lustre(persistent2, 1000, 125) }, "BadRequest"},
		{"persistent 2, 3.6 TiB", func(network, network) mod { return lustre(persistent2, 3600, 125) }, "BadRequest"},
		{"persistent 1, 1.2 TiB", func(network, network) mod { return lustre(persistent1, 1200, 200) }, ""},
		{"scratch 2, 1.2 TiB", func(network, network) mod { return lustre(scratch2, 1200, 0) }, ""},
		{"scratch 2, 3.6 TiB", func(network, network) mod { return lustre(scratch2, 3600, 0) }, "BadRequest"},
		{"scratch 1, 2.4 TiB", func(network, network) mod { return lustre(scratch1, 2400, 0) }, ""},
		{"scratch 1, 7.2 TiB", func(network, network) mod { return lustre(scratch1, 7200, 0) }, ""},
		{"scratch 1, 4.8 TiB", func(network, network) mod { return lustre(scratch1, 4800, 0) }, "BadRequest"},
		{"default deployment is scratch 1", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) {
				in.LustreConfiguration = nil
				in.StorageCapacity = aws.Int32(3600)
			}
		}, ""},

		{"persistent 2 without throughput", func(network, network) mod { return lustre(persistent2, 1200, 0) }, "BadRequest"},
		{"persistent 2 at 200 MB/s/TiB", func(network, network) mod { return lustre(persistent2, 1200, 200) }, "InvalidPerUnitStorageThroughput"},
		{"persistent 1 at 125 MB/s/TiB", func(network, network) mod { return lustre(persistent1, 1200, 125) }, "InvalidPerUnitStorageThroughput"},
		{"scratch 2 with throughput", func(network, network) mod { return lustre(scratch2, 1200, 125) }, "BadRequest"},
		{"HDD persistent 1, 12 MB/s/TiB", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) {
				lustre(persistent1, 6000, 12)(in)
				in.StorageType, in.LustreConfiguration.DriveCacheType = fsxtypes.StorageTypeHdd, fsxtypes.DriveCacheTypeRead
			}
		}, ""},
		{"HDD without a drive cache", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) {
				lustre(persistent1, 1800, 40)(in)
				in.StorageType = fsxtypes.StorageTypeHdd
			}
		}, "BadRequest"},
		{"HDD persistent 2", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) { in.StorageType = fsxtypes.StorageTypeHdd }
		}, "BadRequest"},
		{"persistent 2 on Lustre 2.10", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) { in.FileSystemTypeVersion = aws.String("2.10") }
		}, "BadRequest"},
		{"Lustre 2.11", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) { in.FileSystemTypeVersion = aws.String("2.11") }
		}, "BadRequest"},
		{"scratch with a KMS key", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) {
				lustre(scratch2, 1200, 0)(in)
				in.KmsKeyId = aws.String("arn:aws:kms:us-west-2:123456789012:key/x")
			}
		}, "BadRequest"},

		{"two subnets", func(n, _ network) mod { return func(in *fsx.CreateFileSystemInput) { in.SubnetIds = n.subnets } }, "InvalidNetworkSettings"},
		{"unknown subnet", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) { in.SubnetIds = []string{"subnet-0123456789abcdef0"} }
		}, "InvalidNetworkSettings"},
		{"security group of another VPC", func(_, other network) mod {
			return func(in *fsx.CreateFileSystemInput) { in.SecurityGroupIds = []string{other.sg} }
		}, "InvalidNetworkSettings"},
		{"security group closed to Lustre", func(n, _ network) mod {
			return func(in *fsx.CreateFileSystemInput) { in.SecurityGroupIds = []string{"closed"} }
		}, "InvalidNetworkSettings"},
		{"the VPC's default security group", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) { in.SecurityGroupIds = nil }
		}, ""},

		{"import path on persistent 2", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) {
				in.LustreConfiguration.ImportPath = aws.String("s3://shared-data")
			}
		}, "BadRequest"},
		{"import path on scratch 2", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) {
				lustre(scratch2, 1200, 0)(in)
				in.LustreConfiguration.ImportPath = aws.String("s3://shared-data/in")
			}
		}, ""},
		{"import path of a missing bucket", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) {
				lustre(scratch2, 1200, 0)(in)
				in.LustreConfiguration.ImportPath = aws.String("s3://no-such-bucket")
			}
		}, "InvalidImportPath"},
		{"export path in another bucket", func(network, network) mod {
			return func(in *fsx.CreateFileSystemInput) {
				lustre(scratch2, 1200, 0)(in)
				in.LustreConfiguration.ImportPath, in.LustreConfiguration.ExportPath = aws.String("s3://shared-data"), aws.String("s3://elsewhere/out")
			}
		}, "InvalidExportPath"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			n, other := f.lustreNetwork(), f.network("10.1.0.0/16", "us-west-2a")
			closed := ok(f.p.EC2.CreateSecurityGroup(f.ctx, &ec2.CreateSecurityGroupInput{
				GroupName: aws.String("closed"), Description: aws.String("no Lustre"), VpcId: aws.String(n.vpc)})).must(t).GroupId
			f.bucket("shared-data")
			in := lustreInput(n)
			if c.mod != nil {
				c.mod(n, other)(in)
			}
			for i, g := range in.SecurityGroupIds {
				if g == "closed" {
					in.SecurityGroupIds[i] = *closed
				}
			}
			out, err := f.p.FSx.CreateFileSystem(f.ctx, in)
			wantFSxError(t, err, c.want)
			if err == nil && out.FileSystem.Lifecycle != fsxtypes.FileSystemLifecycleCreating {
				t.Errorf("new file system is %s", out.FileSystem.Lifecycle)
			}
		})
	}
}

func TestFSxFileSystemLifecycle(t *testing.T) {
	f := newFixture(t)
	n := f.lustreNetwork()
	in := lustreInput(n, func(in *fsx.CreateFileSystemInput) {
		in.Tags = []fsxtypes.Tag{{Key: aws.String("Name"), Value: aws.String("scratch-space")}}
	})
	fs := ok(f.p.FSx.CreateFileSystem(f.ctx, in)).must(t).FileSystem
	id := *fs.FileSystemId
	checks := []struct {
		what, got, want string
	}{
		{"lifecycle", string(fs.Lifecycle), "CREATING"},
		{"ARN", *fs.ResourceARN, "arn:aws:fsx:us-west-2:123456789012:file-system/" + id},
		{"DNS name", *fs.DNSName, id + ".fsx.us-west-2.amazonaws.com"},
		{"owner", *fs.OwnerId, "123456789012"},
		{"VPC", *fs.VpcId, n.vpc},
		{"subnets", fmt.Sprint(fs.SubnetIds), fmt.Sprint(n.subnets[:1])},
		{"deployment type", string(fs.LustreConfiguration.DeploymentType), "PERSISTENT_2"},
		{"throughput", fmt.Sprint(*fs.LustreConfiguration.PerUnitStorageThroughput), "125"},
		{"capacity", fmt.Sprint(*fs.StorageCapacity), "1200"},
		{"storage type", string(fs.StorageType), "SSD"},
		{"Lustre version", *fs.FileSystemTypeVersion, "2.12"},
		{"tags", fmt.Sprint(*fs.Tags[0].Key, "=", *fs.Tags[0].Value), "Name=scratch-space"},
		{"created", fs.CreationTime.String(), f.clock.Now().String()},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if !regexp.MustCompile(`^fs-[0-9a-f]{17}$`).MatchString(id) {
		t.Errorf("id %q is not fs- and 17 hex digits", id)
	}
	if m := *fs.LustreConfiguration.MountName; !regexp.MustCompile(`^[a-z0-9]{8}$`).MatchString(m) {
		t.Errorf("mount name %q is not 8 lower-case letters and digits", m)
	}
	if len(fs.NetworkInterfaceIds) < 2 || fs.KmsKeyId == nil {
		t.Errorf("network interfaces %v, KMS key %v", fs.NetworkInterfaceIds, fs.KmsKeyId)
	}

	_, err := f.p.FSx.DeleteFileSystem(f.ctx, &fsx.DeleteFileSystemInput{FileSystemId: aws.String(id)})
	wantFSxError(t, err, "BadRequest") // still CREATING
	f.clock.Advance(scaled(fsxCreateMin) - time.Second)
	if got := f.describeFileSystem(id).Lifecycle; got != fsxtypes.FileSystemLifecycleCreating {
		t.Errorf("before six minutes/speed: %s", got)
	}
	f.clock.Advance(fsxAvailableAfter - scaled(fsxCreateMin) + time.Second)
	if got := f.describeFileSystem(id).Lifecycle; got != fsxtypes.FileSystemLifecycleAvailable {
		t.Fatalf("after ten minutes/speed: %s", got)
	}

	del := ok(f.p.FSx.DeleteFileSystem(f.ctx, &fsx.DeleteFileSystemInput{FileSystemId: aws.String(id)})).must(t)
	if del.Lifecycle != fsxtypes.FileSystemLifecycleDeleting || del.LustreResponse != nil {
		t.Errorf("DeleteFileSystem = %s, final backup %+v", del.Lifecycle, del.LustreResponse)
	}
	if got := f.describeFileSystem(id).Lifecycle; got != fsxtypes.FileSystemLifecycleDeleting {
		t.Errorf("after DeleteFileSystem: %s", got)
	}
	ok(f.p.FSx.DeleteFileSystem(f.ctx, &fsx.DeleteFileSystemInput{FileSystemId: aws.String(id)})).must(t) // again: still DELETING
	f.clock.Advance(scaled(fsxDeleteTime))
	_, err = f.p.FSx.DescribeFileSystems(f.ctx, &fsx.DescribeFileSystemsInput{FileSystemIds: []string{id}})
	var notFound *fsxtypes.FileSystemNotFound
	if !errors.As(err, &notFound) {
		t.Errorf("describe after deletion: %v", err)
	}
	if all := ok(f.p.FSx.DescribeFileSystems(f.ctx, &fsx.DescribeFileSystemsInput{})).must(t); len(all.FileSystems) != 0 {
		t.Errorf("file systems after deletion = %d", len(all.FileSystems))
	}
}

func TestFSxDeleteFileSystemFinalBackup(t *testing.T) {
	f := newFixture(t)
	n := f.lustreNetwork()
	persistent := f.availableFileSystem(lustreInput(n))
	scratch := f.availableFileSystem(lustreInput(n, lustre(scratch2, 1200, 0)))
	keep := &fsxtypes.DeleteFileSystemLustreConfiguration{SkipFinalBackup: aws.Bool(false)}

	_, err := f.p.FSx.DeleteFileSystem(f.ctx, &fsx.DeleteFileSystemInput{FileSystemId: scratch.FileSystemId, LustreConfiguration: keep})
	wantFSxError(t, err, "BadRequest")
	out := ok(f.p.FSx.DeleteFileSystem(f.ctx, &fsx.DeleteFileSystemInput{FileSystemId: persistent.FileSystemId, LustreConfiguration: keep})).must(t)
	if out.LustreResponse == nil || !regexp.MustCompile(`^backup-[0-9a-f]{17}$`).MatchString(aws.ToString(out.LustreResponse.FinalBackupId)) {
		t.Errorf("final backup = %+v", out.LustreResponse)
	}
}

func TestFSxCreateFileSystemIdempotency(t *testing.T) {
	f := newFixture(t)
	n := f.lustreNetwork()
	token := func(in *fsx.CreateFileSystemInput) { in.ClientRequestToken = aws.String("storage-1") }
	first := ok(f.p.FSx.CreateFileSystem(f.ctx, lustreInput(n, token))).must(t).FileSystem
	again := ok(f.p.FSx.CreateFileSystem(f.ctx, lustreInput(n, token))).must(t).FileSystem
	if *again.FileSystemId != *first.FileSystemId {
		t.Errorf("a retry made %s, want %s", *again.FileSystemId, *first.FileSystemId)
	}
	_, err := f.p.FSx.CreateFileSystem(f.ctx, lustreInput(n, token, lustre(persistent2, 2400, 125)))
	var incompatible *fsxtypes.IncompatibleParameterError
	if !errors.As(err, &incompatible) || aws.ToString(incompatible.Parameter) != "ClientRequestToken" {
		t.Errorf("the token with another request: %v", err)
	}
	if all := ok(f.p.FSx.DescribeFileSystems(f.ctx, &fsx.DescribeFileSystemsInput{})).must(t); len(all.FileSystems) != 1 {
		t.Errorf("file systems = %d, want 1", len(all.FileSystems))
	}
}

func TestFSxFileSystemsAreDeterministic(t *testing.T) {
	made := func() (string, string) {
		f := newFixture(t)
		fs := ok(f.p.FSx.CreateFileSystem(f.ctx, lustreInput(f.lustreNetwork()))).must(t).FileSystem
		return *fs.FileSystemId, *fs.LustreConfiguration.MountName
	}
	id1, mount1 := made()
	id2, mount2 := made()
	if id1 != id2 || mount1 != mount2 {
		t.Errorf("two worlds made %s %s and %s %s", id1, mount1, id2, mount2)
	}
}

func TestFSxDescribeFileSystemsPages(t *testing.T) {
	f := newFixture(t)
	n := f.lustreNetwork()
	var ids []string
	for range 3 {
		ids = append(ids, *ok(f.p.FSx.CreateFileSystem(f.ctx, lustreInput(n))).must(t).FileSystem.FileSystemId)
		f.clock.Advance(time.Second)
	}
	first := ok(f.p.FSx.DescribeFileSystems(f.ctx, &fsx.DescribeFileSystemsInput{MaxResults: aws.Int32(2)})).must(t)
	if len(first.FileSystems) != 2 || first.NextToken == nil {
		t.Fatalf("first page: %d file systems, next %v", len(first.FileSystems), first.NextToken)
	}
	second := ok(f.p.FSx.DescribeFileSystems(f.ctx, &fsx.DescribeFileSystemsInput{MaxResults: aws.Int32(2), NextToken: first.NextToken})).must(t)
	if len(second.FileSystems) != 1 || second.NextToken != nil {
		t.Fatalf("second page: %d file systems, next %v", len(second.FileSystems), second.NextToken)
	}
	var got []string
	for _, fs := range append(first.FileSystems, second.FileSystems...) {
		got = append(got, *fs.FileSystemId)
	}
	if fmt.Sprint(got) != fmt.Sprint(ids) {
		t.Errorf("pages = %v, want oldest first %v", got, ids)
	}

	for _, c := range []struct {
		name string
		in   *fsx.DescribeFileSystemsInput
		want string
	}{
		{"bad token", &fsx.DescribeFileSystemsInput{NextToken: aws.String("nope!")}, "BadRequest"},
		{"zero results", &fsx.DescribeFileSystemsInput{MaxResults: aws.Int32(0)}, "ValidationException"},
		{"unknown id", &fsx.DescribeFileSystemsInput{FileSystemIds: []string{ids[0], "fs-0123456789abcdef0"}}, "FileSystemNotFound"},
	} {
		_, err := f.p.FSx.DescribeFileSystems(f.ctx, c.in)
		if errorCode(t, err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}

func TestFSxFileSystemQuota(t *testing.T) {
	f := newFixture(t)
	n := f.lustreNetwork()
	ok(f.p.FSx.CreateFileSystem(f.ctx, lustreInput(n, lustre(persistent2, 96000, 125)))).must(t)
	_, err := f.p.FSx.CreateFileSystem(f.ctx, lustreInput(n, lustre(persistent2, 7200, 125)))
	var limit *fsxtypes.ServiceLimitExceeded
	if !errors.As(err, &limit) || limit.Limit != fsxtypes.ServiceLimitTotalStorage {
		t.Errorf("past the storage quota: %v", err)
	}
}
