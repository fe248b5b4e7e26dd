package storage_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/storage"
	"github.com/instantstart/instantstart/engine/store"
)

func (f *fixture) addFSx(t *testing.T, in storage.FSxInput) error {
	t.Helper()
	op, err := f.svc.Add(context.Background(), "tester", storage.AddInput{ClusterID: f.cluster.ID, Kind: storage.KindFSxLustre, FSx: &in}, "")
	if err != nil {
		return err
	}
	simtest.Succeeded(t, f.runner, op)
	return nil
}

// TestAddingAFileSystemLinkedToTheBucket makes the security group, the
// file system in the compute subnet, its link to the shared bucket, the
// FSx CSI driver and a bound claim; the same request again is a no-op;
// removing it deletes the file system and the group and leaves the
// bucket's objects.
func TestAddingAFileSystemLinkedToTheBucket(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	shared := apptest.SharedBucket(t, f.app, f.cluster.ID, "train-1-data")
	if _, err := f.p.S3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("train-1-data"), Key: aws.String("datasets/a.jsonl"), Body: strings.NewReader("{}\n")}); err != nil {
		t.Fatal(err)
	}
	f.world.ResetCalls()
	in := storage.FSxInput{Name: "scratch", DeploymentType: storage.Persistent2, CapacityGiB: 2400, ThroughputPerTiB: 250, LinkSharedBucket: true}
	if err := f.addFSx(t, in); err != nil {
		t.Fatal(err)
	}
	for svc, want := range map[string][]string{
		"fsx": {"CreateDataRepositoryAssociation=1", "CreateFileSystem=1"},
		"eks": {"CreateAddon=1"},
		"ec2": {"AuthorizeSecurityGroupIngress=1", "CreateSecurityGroup=1"},
	} {
		if got := calls(f.world, svc, "Create", "Authorize"); !slices.Equal(got, want) {
			t.Errorf("%s calls %v, want %v", svc, got, want)
		}
	}
	st := findFSx(t, f, "scratch")
	fs := st.FSx
	if st.Status != storage.Available || fs.FileSystemID == "" || fs.DNSName == "" || fs.MountName == "" || fs.Lifecycle != "AVAILABLE" ||
		fs.DataRepositoryPath != "s3://train-1-data/" || fs.AssociationID == "" || fs.SecurityGroupID == "" || st.ClaimName != "fsx-scratch" || st.MountPath != "/fsx/scratch" {
		t.Fatalf("storage %+v, file system %+v", st, fs)
	}
	described, err := f.p.FSx.DescribeFileSystems(ctx, &fsx.DescribeFileSystemsInput{FileSystemIds: []string{fs.FileSystemID}})
	if err != nil {
		t.Fatal(err)
	}
	got := described.FileSystems[0]
	if aws.ToInt32(got.StorageCapacity) != 2400 || !slices.Equal(got.SubnetIds, []string{fs.SubnetID}) || aws.ToInt32(got.LustreConfiguration.PerUnitStorageThroughput) != 250 {
		t.Errorf("the file system FSx has: %+v", got)
	}
	sgs, err := f.p.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{fs.SecurityGroupID}})
	if err != nil {
		t.Fatal(err)
	}
	var ports []string
	for _, perm := range sgs.SecurityGroups[0].IpPermissions {
		for _, pair := range perm.UserIdGroupPairs {
			if aws.ToString(pair.GroupId) != fs.SecurityGroupID {
				ports = append(ports, aws.ToString(perm.IpProtocol)+"/"+itoa(aws.ToInt32(perm.FromPort))+"-"+itoa(aws.ToInt32(perm.ToPort)))
			}
		}
	}
	slices.Sort(ports)
	if !slices.Equal(ports, []string{"tcp/1018-1023", "tcp/988-988"}) {
		t.Errorf("the nodes reach the file system on %v, want Lustre's ports only", ports)
	}
	kc, err := f.p.Kubernetes.Clients(ctx, f.cluster.EKS.Name)
	if err != nil {
		t.Fatal(err)
	}
	pv, err := kc.Core.CoreV1().PersistentVolumes().Get(ctx, st.VolumeName, metav1.GetOptions{})
	if err != nil || pv.Spec.CSI == nil || pv.Spec.CSI.Driver != "fsx.csi.aws.com" || pv.Spec.CSI.VolumeHandle != fs.FileSystemID ||
		pv.Spec.CSI.VolumeAttributes["dnsname"] != fs.DNSName || pv.Spec.CSI.VolumeAttributes["mountname"] != fs.MountName {
		t.Fatalf("volume %+v, %v", pv, err)
	}
	pvc, err := kc.Core.CoreV1().PersistentVolumeClaims(storage.WorkloadNamespace).Get(ctx, "fsx-scratch", metav1.GetOptions{})
	if err != nil || pvc.Status.Phase != corev1.ClaimBound {
		t.Fatalf("claim %+v, %v", pvc, err)
	}

	f.world.ResetCalls()
	op, err := f.svc.Add(ctx, "tester", storage.AddInput{ClusterID: f.cluster.ID, Kind: storage.KindFSxLustre, FSx: &in}, "")
	if err != nil || !op.Noop {
		t.Fatalf("the same file system again: %+v, %v", op, err)
	}
	bigger := in
	bigger.CapacityGiB = 4800
	if _, err := f.svc.Add(ctx, "tester", storage.AddInput{ClusterID: f.cluster.ID, Kind: storage.KindFSxLustre, FSx: &bigger}, ""); errOf(err) == nil || errOf(err).Code != errs.Conflict {
		t.Fatalf("another file system of the same name: %v", err)
	}
	if _, err := f.svc.Remove(ctx, "tester", shared.ID, false, ""); errOf(err) == nil || errOf(err).Code != errs.Precondition || !strings.Contains(err.Error(), "scratch") {
		t.Fatalf("removing the bucket a file system links: %v", err)
	}
	if _, err := f.svc.Remove(ctx, "tester", st.ID, true, ""); errOf(err) == nil || errOf(err).Field != "deleteBucket" {
		t.Fatalf("removing a file system with deleteBucket: %v", err)
	}

	f.world.ResetCalls()
	simtest.Succeeded(t, f.runner, mustRemove(t, f, st.ID, false))
	for svc, want := range map[string][]string{
		"fsx": {"DeleteDataRepositoryAssociation=1", "DeleteFileSystem=1"},
		"ec2": {"DeleteSecurityGroup=1"},
		"s3":  nil,
	} {
		if got := calls(f.world, svc, "Delete"); !slices.Equal(got, want) {
			t.Errorf("%s calls on removal %v, want %v", svc, got, want)
		}
	}
	if _, err := f.p.FSx.DescribeFileSystems(ctx, &fsx.DescribeFileSystemsInput{FileSystemIds: []string{fs.FileSystemID}}); err == nil {
		t.Error("the file system is still there")
	}
	if _, err := kc.Core.CoreV1().PersistentVolumeClaims(storage.WorkloadNamespace).Get(ctx, "fsx-scratch", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the claim after removal: %v", err)
	}
	if _, err := f.p.S3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("train-1-data"), Key: aws.String("datasets/a.jsonl")}); err != nil {
		t.Errorf("removing the file system lost an object of the linked bucket: %v", err)
	}
	left, err := f.p.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{{Name: aws.String("group-id"), Values: []string{fs.SecurityGroupID}}}})
	if err == nil && len(left.SecurityGroups) > 0 {
		t.Error("the file system's security group is still there")
	}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

func findFSx(t *testing.T, f *fixture, name string) *storage.Storage {
	t.Helper()
	page, err := f.svc.Page(f.cluster.ID, store.PageRequest{First: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range page.Items {
		if st.FSx != nil && st.FSx.Name == name {
			return st
		}
	}
	t.Fatalf("no file system %s among %d storages", name, len(page.Items))
	return nil
}

// TestBadFileSystemsAreRefusedBeforeAnythingIsMade refuses, with the
// field and the values allowed, each file system FSx would refuse.
func TestBadFileSystemsAreRefusedBeforeAnythingIsMade(t *testing.T) {
	f := newFixture(t)
	f.world.ResetCalls()
	for _, c := range []struct {
		in    storage.FSxInput
		field string
		want  string
	}{
		{storage.FSxInput{Name: "a", DeploymentType: storage.Persistent2, CapacityGiB: 2000}, "input.fsxLustre.storageCapacityGiB", "1200 GiB or a multiple of 2400"},
		{storage.FSxInput{Name: "a", DeploymentType: storage.Scratch2, CapacityGiB: 600}, "input.fsxLustre.storageCapacityGiB", "at least 1200"},
		{storage.FSxInput{Name: "a", DeploymentType: storage.Persistent2, CapacityGiB: 1200, ThroughputPerTiB: 200}, "input.fsxLustre.throughputPerTiB", "125, 250, 500 or 1000"},
		{storage.FSxInput{Name: "a", DeploymentType: storage.Persistent1, CapacityGiB: 1200, ThroughputPerTiB: 125}, "input.fsxLustre.throughputPerTiB", "50, 100 or 200"},
		{storage.FSxInput{Name: "a", DeploymentType: storage.Scratch2, CapacityGiB: 1200, ThroughputPerTiB: 125}, "input.fsxLustre.throughputPerTiB", "no throughput setting"},
		{storage.FSxInput{Name: "a", DeploymentType: storage.Persistent1, CapacityGiB: 1200, ThroughputPerTiB: 50, LinkSharedBucket: true}, "input.fsxLustre.linkSharedBucket", "PERSISTENT_2"},
		{storage.FSxInput{Name: "a", DeploymentType: storage.Persistent2, CapacityGiB: 1200, LinkSharedBucket: true}, "input.fsxLustre.linkSharedBucket", "add it first"},
		{storage.FSxInput{Name: "a", DeploymentType: storage.Persistent2, CapacityGiB: 1200, Zone: "us-west-2d"}, "input.fsxLustre.zone", "us-west-2a"},
		{storage.FSxInput{Name: "Bad_Name", DeploymentType: storage.Persistent2, CapacityGiB: 1200}, "input.fsxLustre.name", "lower-case"},
		{storage.FSxInput{Name: "a", DeploymentType: "SCRATCH_9", CapacityGiB: 1200}, "input.fsxLustre.deploymentType", "SCRATCH_2"},
	} {
		_, err := f.svc.Add(context.Background(), "tester", storage.AddInput{ClusterID: f.cluster.ID, Kind: storage.KindFSxLustre, FSx: &c.in}, "")
		e := errOf(err)
		if e == nil || e.Field != c.field || !strings.Contains(e.Message, c.want) {
			t.Errorf("%+v: %v, want an error on %s saying %q", c.in, err, c.field, c.want)
		}
	}
	for _, svc := range []string{"fsx", "ec2", "eks"} {
		if got := calls(f.world, svc, "Create", "Authorize"); len(got) != 0 {
			t.Errorf("refused requests called %s: %v", svc, got)
		}
	}
}

// errOf is err as the engine's error, nil for none.
func errOf(err error) *errs.Error {
	if err == nil {
		return nil
	}
	return errs.As(err)
}
