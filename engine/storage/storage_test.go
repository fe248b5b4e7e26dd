package storage_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/storage"
)

// fixture is the engine, as the server builds it, on the simulator with
// one ACTIVE cluster.
type fixture struct {
	app     *app.App
	world   *sim.World
	runner  *ops.Runner
	svc     *storage.Service
	cluster *hyperpod.Cluster
	p       *cloud.Provider
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	a := apptest.New(t, apptest.Options{})
	c := apptest.Cluster(t, a, cluster.CreateInput{
		Name: "train-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: []hyperpod.GroupSpec{{Name: "gpu", InstanceTypes: []string{"ml.g5.xlarge"}, Count: 1, Zone: "us-west-2a"}},
	})
	p, err := a.World.Provider(apptest.Region)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{app: a, world: a.World, runner: a.Runner, svc: a.Storage, cluster: c, p: p}
}

func (f *fixture) addBucket(t *testing.T, bucket string, create bool) *ops.Operation {
	t.Helper()
	op, err := f.svc.Add(context.Background(), "tester", storage.AddInput{ClusterID: f.cluster.ID, Kind: storage.KindS3, S3: &storage.S3Input{Bucket: bucket, Create: create}}, "")
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// calls returns the simulator's calls of service whose names start with
// one of prefixes, as "Op=count".
func calls(w *sim.World, service string, prefixes ...string) []string {
	var out []string
	for op, n := range w.Calls()[service] {
		for _, p := range prefixes {
			if strings.HasPrefix(op, p) {
				out = append(out, fmt.Sprintf("%s=%d", op, n))
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestAddingTheSharedBucketMakesItsChain makes the bucket, turns the S3 CSI
// driver on for it alone, binds the claim pods mount; the same request again
// changes nothing, and removing it leaves the bucket and its objects.
func TestAddingTheSharedBucketMakesItsChain(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.world.ResetCalls()
	op := simtest.Succeeded(t, f.runner, f.addBucket(t, "train-1-data", true))

	st, err := f.svc.SharedStorage(f.cluster.ID)
	if err != nil || st == nil || st.Status != storage.Available || st.LastOperationID != op.ID || !st.S3.Created {
		t.Fatalf("storage after addStorage: %+v, %v", st, err)
	}
	// The other areas see it as the bucket pods mount.
	if b, err := f.svc.SharedBucket(f.cluster.ID); err != nil || b == nil || b.Name != "train-1-data" || b.Namespace != storage.WorkloadNamespace || b.ClaimName != st.ClaimName || b.MountPath != storage.MountPath {
		t.Fatalf("the shared bucket after addStorage: %+v, %v", b, err)
	}
	if got := calls(f.world, "s3", "CreateBucket", "PutPublicAccessBlock", "PutBucketTagging"); !slices.Equal(got, []string{"CreateBucket=1", "PutBucketTagging=1", "PutPublicAccessBlock=1"}) {
		t.Fatalf("S3 calls %v", got)
	}
	if got := calls(f.world, "eks", "CreateAddon"); !slices.Equal(got, []string{"CreateAddon=1"}) {
		t.Fatalf("EKS calls %v, want the S3 CSI driver's add-on once", got)
	}
	// The driver's policy names this bucket only.
	pol, err := f.p.IAM.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String("arn:aws:iam::" + f.cluster.AccountID() + ":policy/instantstart/instantstart-train-1-s3-csi"), VersionId: aws.String("v1")})
	if err != nil {
		t.Fatal(err)
	}
	doc := aws.ToString(pol.PolicyVersion.Document)
	if !strings.Contains(doc, "train-1-data") || strings.Count(doc, "arn%3Aaws%3As3%3A%3A%3A")+strings.Count(doc, "arn:aws:s3:::") != 2 {
		t.Fatalf("the driver's policy %s", doc)
	}
	kc, err := f.p.Kubernetes.Clients(ctx, f.cluster.EKS.Name)
	if err != nil {
		t.Fatal(err)
	}
	pv, err := kc.Core.CoreV1().PersistentVolumes().Get(ctx, st.VolumeName, metav1.GetOptions{})
	if err != nil || pv.Spec.CSI == nil || pv.Spec.CSI.Driver != "s3.csi.aws.com" || pv.Spec.CSI.VolumeAttributes["bucketName"] != "train-1-data" {
		t.Fatalf("volume %+v, %v", pv, err)
	}
	pvc, err := kc.Core.CoreV1().PersistentVolumeClaims(storage.WorkloadNamespace).Get(ctx, st.ClaimName, metav1.GetOptions{})
	if err != nil || pvc.Status.Phase != corev1.ClaimBound {
		t.Fatalf("claim %+v, %v", pvc, err)
	}

	f.world.ResetCalls()
	again := simtest.Succeeded(t, f.runner, f.addBucket(t, "train-1-data", true))
	if !again.Noop {
		t.Fatalf("the same bucket again ran %+v", again.Phases)
	}
	if _, err := f.svc.Add(ctx, "tester", storage.AddInput{ClusterID: f.cluster.ID, Kind: storage.KindS3, S3: &storage.S3Input{Bucket: "other-bucket-1", Create: true}}, ""); errs.As(err) == nil || errs.As(err).Code != errs.Conflict {
		t.Fatalf("a second bucket: %v", err)
	}

	if _, err := f.p.S3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("train-1-data"), Key: aws.String("datasets/a.jsonl"), Body: strings.NewReader("{}\n")}); err != nil {
		t.Fatal(err)
	}
	page, err := f.svc.Objects(ctx, f.cluster.ID, "", 10, "")
	if err != nil || len(page.Entries) != 1 || page.Entries[0].Key != "datasets/" || !page.Entries[0].Folder {
		t.Fatalf("browse of the top: %+v, %v", page, err)
	}

	simtest.Succeeded(t, f.runner, mustRemove(t, f, st.ID, false))
	if _, err := kc.Core.CoreV1().PersistentVolumeClaims(storage.WorkloadNamespace).Get(ctx, st.ClaimName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the claim after removeStorage: %v", err)
	}
	if _, err := f.p.S3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("train-1-data"), Key: aws.String("datasets/a.jsonl")}); err != nil {
		t.Fatalf("removeStorage without deleteBucket lost an object: %v", err)
	}
	if gone, _ := f.svc.Get(st.ID); gone.Status != storage.Deleted {
		t.Fatalf("status after removal %s", gone.Status)
	}
}

func mustRemove(t *testing.T, f *fixture, id string, deleteBucket bool) *ops.Operation {
	t.Helper()
	op, err := f.svc.Remove(context.Background(), "tester", id, deleteBucket, "")
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// TestRemovingWithDeleteBucketEmptiesAndDeletesIt deletes every object
// (more than one DeleteObjects call takes) and the bucket.
func TestRemovingWithDeleteBucketEmptiesAndDeletesIt(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := apptest.SharedBucket(t, f.app, f.cluster.ID, "train-1-scratch")
	for i := range 1100 {
		if _, err := f.p.S3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("train-1-scratch"), Key: aws.String(fmt.Sprintf("outputs/job/%04d", i)), Body: strings.NewReader("x")}); err != nil {
			t.Fatal(err)
		}
	}
	simtest.Succeeded(t, f.runner, mustRemove(t, f, st.ID, true))
	if _, err := f.p.S3.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("train-1-scratch")}); err == nil {
		t.Fatal("the bucket is still there")
	}
	if shared, err := f.svc.SharedStorage(f.cluster.ID); err != nil || shared != nil {
		t.Fatalf("the cluster still has a shared bucket: %+v, %v", shared, err)
	}
}

// TestBadBucketsAreRefusedBeforeAnythingIsMade refuses, with the field and
// what to change, each bucket that cannot be the cluster's.
func TestBadBucketsAreRefusedBeforeAnythingIsMade(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	east, err := f.world.Provider("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := east.S3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("in-the-east")}); err != nil {
		t.Fatal(err)
	}
	f.world.PutForeignBucket("someone-elses", "us-west-2")
	f.world.ResetCalls()
	for _, c := range []struct {
		bucket string
		create bool
		code   errs.Code
		want   string
	}{
		{"Bad_Name", true, errs.Validation, "lower-case"},
		{"ab", true, errs.Validation, "3 to 63"},
		{"192.168.1.10", true, errs.Validation, "IP address"},
		{"my..bucket", true, errs.Validation, "two dots"},
		{"does-not-exist-1", false, errs.NotFound, "create it"},
		{"in-the-east", false, errs.Precondition, "us-east-1"},
		{"someone-elses", false, errs.Precondition, "another account"},
		{"someone-elses", true, errs.Precondition, "another account"},
	} {
		_, err := f.svc.Add(ctx, "tester", storage.AddInput{ClusterID: f.cluster.ID, Kind: storage.KindS3, S3: &storage.S3Input{Bucket: c.bucket, Create: c.create}}, "")
		e := errs.As(err)
		if e == nil || e.Code != c.code || e.Field != "input.s3.bucket" || !strings.Contains(e.Message, c.want) {
			t.Errorf("bucket %s (create %v): %v, want %s on input.s3.bucket saying %q", c.bucket, c.create, err, c.code, c.want)
		}
	}
	for _, svc := range []string{"eks", "iam"} {
		if n := len(calls(f.world, svc, "Create", "Put", "Attach")); n != 0 {
			t.Errorf("refused requests made %d %s changes", n, svc)
		}
	}
	if got := calls(f.world, "s3", "CreateBucket", "Put"); len(got) != 0 {
		t.Errorf("refused requests changed S3: %v", got)
	}
}
