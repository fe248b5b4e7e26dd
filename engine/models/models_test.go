package models_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/models"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/engine/testwait"
)

const speed = 2000

// fixture is the engine, as the server builds it, on the simulator with
// an ACTIVE cluster whose shared bucket is AVAILABLE.
type fixture struct {
	world   *sim.World
	clock   *simtest.PausableClock
	store   *store.Store
	runner  *ops.Runner
	svc     *models.Service
	cluster string
	eks     string
	bucket  string
	p       *cloud.Provider
	logs    *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clock := &simtest.PausableClock{}
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a := apptest.New(t, apptest.Options{Speed: speed, Sim: sim.Options{Clock: clock.Now}, Logger: log})
	// Registered after the engine's, so run before it is closed: a held
	// clock would hold the phases the runner lets reach a stored point.
	t.Cleanup(clock.Resume)
	c := apptest.Cluster(t, a, cluster.CreateInput{
		Name: "train-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: []hyperpod.GroupSpec{{Name: "cpu", InstanceTypes: []string{"ml.m5.2xlarge"}, Count: 1, Zone: "us-west-2a"}},
	})
	shared := apptest.SharedBucket(t, a, c.ID, "train-1-data")
	p, err := a.World.Provider(apptest.Region)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{world: a.World, clock: clock, store: a.Store, runner: a.Runner, svc: a.Models, cluster: c.ID, eks: c.EKS.Name, bucket: shared.S3.Bucket, p: p, logs: logs}
}

func (f *fixture) download(t *testing.T, in models.DownloadInput) (*ops.Operation, error) {
	t.Helper()
	in.ClusterID, in.Source = f.cluster, models.HuggingFace
	return f.svc.Download(context.Background(), "tester", in, "")
}

// objects returns the bucket's objects under prefix with their sizes.
func (f *fixture) objects(t *testing.T, prefix string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for k, o := range f.listed(t, prefix) {
		out[k] = aws.ToInt64(o.Size)
	}
	return out
}

// listed returns the bucket's objects under prefix by key past it.
func (f *fixture) listed(t *testing.T, prefix string) map[string]s3types.Object {
	t.Helper()
	out := map[string]s3types.Object{}
	var token *string
	for {
		page, err := f.p.S3.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(f.bucket), Prefix: aws.String(prefix), ContinuationToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			out[strings.TrimPrefix(aws.ToString(o.Key), prefix)] = o
		}
		if !aws.ToBool(page.IsTruncated) {
			return out
		}
		token = page.NextContinuationToken
	}
}

// hubFiles is what the hub lists for a model.
func (f *fixture) hubFiles(t *testing.T, id string) map[string]int64 {
	t.Helper()
	m, err := f.p.Hub.Model(context.Background(), id, "main", "hf_"+strings.Repeat("a", 34))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, file := range m.Files {
		out[file.Path] = file.Size
	}
	return out
}

// ended waits for operation id to end, however it ends.
func ended(t *testing.T, r *ops.Runner, id string) *ops.Operation {
	t.Helper()
	var op *ops.Operation
	testwait.Eventually(t, "operation "+id+" ends", func() bool {
		var err error
		if op, err = r.Get(id); err != nil {
			t.Fatal(err)
		}
		return op.Status.Terminal()
	})
	return op
}

// TestDownloadFollowedToReady copies a public model with a Job: every
// file of the hub's list lands under models/<name>/ with its size, the
// record is READY with its counts, and the same request again is a no-op.
func TestDownloadFollowedToReady(t *testing.T) {
	f := newFixture(t)
	op, err := f.download(t, models.DownloadInput{ModelID: "Qwen/Qwen2.5-0.5B-Instruct"})
	if err != nil {
		t.Fatal(err)
	}
	end := simtest.Succeeded(t, f.runner, op)
	want := f.hubFiles(t, "Qwen/Qwen2.5-0.5B-Instruct")
	if got := f.objects(t, "models/qwen2.5-0.5b-instruct/"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the bucket holds %v, want %v", got, want)
	}
	m, err := f.svc.Get(context.Background(), end.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	var bytes int64
	for _, n := range want {
		bytes += n
	}
	if m.Status != models.Ready || m.FilesDone != len(want) || m.FilesTotal != len(want) || m.BytesDone != bytes || m.Path() != "/s3/models/qwen2.5-0.5b-instruct" ||
		m.Revision != "main" || len(m.Commit) != 40 || m.JobName == "" || m.ReadyAt == nil {
		t.Fatalf("model %+v", m)
	}
	if msg := end.Phase("download").Message; !strings.Contains(msg, fmt.Sprintf("%d of %d files", len(want), len(want))) {
		t.Errorf("the download phase says %q", msg)
	}
	kc, err := f.p.Kubernetes.Clients(context.Background(), f.eks)
	if err != nil {
		t.Fatal(err)
	}
	job, err := kc.Core.BatchV1().Jobs("default").Get(context.Background(), m.JobName, metav1.GetOptions{})
	if err != nil || job.Status.Succeeded != 1 || job.Spec.TTLSecondsAfterFinished == nil {
		t.Fatalf("the Job %+v, %v", job, err)
	}

	again, err := f.download(t, models.DownloadInput{ModelID: "Qwen/Qwen2.5-0.5B-Instruct"})
	if err != nil || !again.Noop {
		t.Fatalf("the same model again: %+v, %v", again, err)
	}
	page, err := f.svc.List(context.Background(), f.cluster, 10, "")
	if err != nil || len(page.Models) != 1 || page.Models[0].ID != m.ID {
		t.Fatalf("models %+v, %v", page, err)
	}
}

// TestBadDownloadsAreRefusedBeforeAnythingIsMade refuses each request the
// hub or the bucket would refuse, with the field to change, and makes no
// Job and no Secret.
func TestBadDownloadsAreRefusedBeforeAnythingIsMade(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	simtest.Succeeded(t, f.runner, must(f.download(t, models.DownloadInput{ModelID: "Qwen/Qwen2.5-0.5B-Instruct", Name: "small"})))
	if _, err := f.p.S3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(f.bucket), Key: aws.String("models/by-hand/config.json"), Body: strings.NewReader("{}")}); err != nil {
		t.Fatal(err)
	}
	f.world.ResetCalls()
	good := "hf_" + strings.Repeat("x", 34)
	for _, c := range []struct {
		in    models.DownloadInput
		code  errs.Code
		field string
		want  string
	}{
		{models.DownloadInput{ModelID: "qwen3"}, errs.Validation, "input.modelId", "org/name"},
		{models.DownloadInput{ModelID: "Qwen/Qwen3-8B/extra"}, errs.Validation, "input.modelId", "org/name"},
		{models.DownloadInput{ModelID: "nobody/nothing"}, errs.NotFound, "input.modelId", "no model nobody/nothing"},
		{models.DownloadInput{ModelID: "Qwen/Qwen3-8B", Revision: "v99"}, errs.NotFound, "input.revision", "no revision \"v99\""},
		{models.DownloadInput{ModelID: "meta-llama/Llama-3.1-8B-Instruct"}, errs.Precondition, "input.token", "gated"},
		{models.DownloadInput{ModelID: "meta-llama/Llama-3.1-8B-Instruct", Token: "hf_short"}, errs.Validation, "input.token", "refused the token"},
		{models.DownloadInput{ModelID: "Qwen/Qwen3-8B", Name: "small"}, errs.Conflict, "input.name", "holds Qwen/Qwen2.5-0.5B-Instruct"},
		{models.DownloadInput{ModelID: "Qwen/Qwen3-8B", Name: "by-hand"}, errs.Conflict, "input.name", "no download put there"},
		{models.DownloadInput{ModelID: "Qwen/Qwen3-8B", Name: "Bad Name"}, errs.Validation, "input.name", "lower-case"},
		{models.DownloadInput{ModelID: "Qwen/Qwen3-8B", Token: good + " x"}, errs.Validation, "input.token", "not a Hugging Face access token"},
	} {
		_, err := f.download(t, c.in)
		e := errOf(err)
		if e == nil || e.Code != c.code || e.Field != c.field || !strings.Contains(e.Message, c.want) {
			t.Errorf("%+v: %v, want %s on %s saying %q", c.in, err, c.code, c.field, c.want)
		}
	}
	for op, n := range f.world.Calls()["kubernetes"] {
		if strings.HasPrefix(op, "create") {
			t.Errorf("refused requests made Kubernetes objects: %s %d", op, n)
		}
	}
	page, err := f.svc.List(ctx, f.cluster, 10, "")
	if err != nil || len(page.Models) != 2 || page.Models[0].Name != "by-hand" || page.Models[0].Status != models.Present || page.Models[0].Source != models.Unknown ||
		page.Models[0].BytesDone != 2 || page.Models[1].Name != "small" {
		t.Fatalf("the models listed %+v, %v", page, err)
	}
	one, err := f.svc.List(ctx, f.cluster, 1, "")
	if err != nil || len(one.Models) != 1 || !one.HasNext {
		t.Fatalf("a page of one: %+v, %v", one, err)
	}
	rest, err := f.svc.List(ctx, f.cluster, 1, one.Models[0].Name)
	if err != nil || len(rest.Models) != 1 || rest.Models[0].Name != "small" || rest.HasNext {
		t.Fatalf("the page after %s: %+v, %v", one.Models[0].Name, rest, err)
	}
}

// TestAFailedDownloadResumes breaks the network in more pods than the Job
// retries: the download fails, the model is FAILED (never READY) with the
// files done kept, and a retry of the operation resumes without fetching
// those again.
func TestAFailedDownloadResumes(t *testing.T) {
	f := newFixture(t)
	if _, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultError, Service: "huggingface", Operation: "Download", Count: 4}); err != nil {
		t.Fatal(err)
	}
	op, err := f.download(t, models.DownloadInput{ModelID: "Qwen/Qwen3-8B"})
	if err != nil {
		t.Fatal(err)
	}
	end := ended(t, f.runner, op.ID)
	if end.Status != ops.Failed || !strings.Contains(end.Error.Message, "retry the operation to resume") {
		t.Fatalf("the download ended %s: %+v", end.Status, end.Error)
	}
	m, err := f.svc.Get(context.Background(), op.Target.ID)
	if err != nil || m.Status != models.Failed || m.FilesDone == 0 || m.FilesDone == m.FilesTotal {
		t.Fatalf("after the failure: %+v, %v", m, err)
	}
	page, _ := f.svc.List(context.Background(), f.cluster, 10, "")
	if len(page.Models) != 1 || page.Models[0].Status != models.Failed {
		t.Fatalf("a failed download is listed as %+v", page.Models)
	}
	kept := f.listed(t, "models/qwen3-8b/")
	// Later writes show as later modification times.
	f.clock.Pause()
	f.clock.Step(10 * time.Minute)
	f.clock.Resume()
	if _, err := f.runner.Retry(op.ID); err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
	if got := f.objects(t, "models/qwen3-8b/"); fmt.Sprint(got) != fmt.Sprint(f.hubFiles(t, "Qwen/Qwen3-8B")) {
		t.Fatalf("after the retry the bucket holds %v", got)
	}
	after := f.listed(t, "models/qwen3-8b/")
	for key, o := range kept {
		if !aws.ToTime(after[key].LastModified).Equal(aws.ToTime(o.LastModified)) {
			t.Errorf("the retry fetched %s again, which was there whole", key)
		}
	}
	if len(kept) == len(after) {
		t.Fatal("nothing was left to fetch after the failure")
	}
	if m, _ := f.svc.Get(context.Background(), op.Target.ID); m.Status != models.Ready {
		t.Errorf("after the retry the model is %s", m.Status)
	}
}

// TestTheTokenGoesToASecretOnly downloads a gated model with a token: the
// Job reads it from a Secret, deleted once the model is there, and the
// token is in no record, operation, event or log line.
func TestTheTokenGoesToASecretOnly(t *testing.T) {
	f := newFixture(t)
	token := "hf_" + strings.Repeat("S3cr3t", 6)
	op, err := f.download(t, models.DownloadInput{ModelID: "meta-llama/Llama-3.1-8B-Instruct", Name: "llama", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	end := simtest.Succeeded(t, f.runner, op)
	kc, err := f.p.Kubernetes.Clients(context.Background(), f.eks)
	if err != nil {
		t.Fatal(err)
	}
	secrets, err := kc.Core.CoreV1().Secrets("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets.Items {
		if strings.HasPrefix(s.Name, "hf-token-") {
			t.Errorf("Secret %s outlived the download", s.Name)
		}
	}
	if p := end.Phase("token"); p == nil || p.Attempt == 0 {
		t.Errorf("the token phase did not delete the Secret: %+v", p)
	}
	err = f.store.View(func(tx *store.Tx) error {
		for _, kind := range []string{models.RecordKind, "operation"} {
			if err := tx.List(kind, "", func(id string, raw []byte) (bool, error) {
				if bytes.Contains(raw, []byte(token)) || bytes.Contains(raw, []byte("S3cr3t")) {
					t.Errorf("%s %s holds the token", kind, id)
				}
				return true, nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.History(0, f.store.LastSequence(), store.Filter{}, func(ev *store.Event) (bool, error) {
		if strings.Contains(fmt.Sprintf("%s", ev.Payload), "S3cr3t") {
			t.Errorf("event %d holds the token", ev.Seq)
		}
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(f.logs.String(), "S3cr3t") {
		t.Error("a log line holds the token")
	}
}

// TestCancelDeletesTheJob cancels a download in flight (the simulator's
// clock held so that it is): the Job and the Secret go, the model is
// CANCELLED, and downloading it again resumes to READY.
func TestCancelDeletesTheJob(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.clock.Pause()
	op, err := f.download(t, models.DownloadInput{ModelID: "mistralai/Mistral-7B-Instruct-v0.3", Name: "mistral", Token: "hf_" + strings.Repeat("q", 32)})
	if err != nil {
		t.Fatal(err)
	}
	// With the clock held the Job's pod never starts: wait for the
	// download phase to be following it.
	testwait.Eventually(t, "the download phase follows the Job", func() bool {
		cur, err := f.runner.Get(op.ID)
		if err != nil {
			t.Fatal(err)
		}
		p := cur.Phase("download")
		return p != nil && p.Status == ops.PhaseWaiting
	})
	if _, err := f.runner.Cancel(op.ID); err != nil {
		t.Fatal(err)
	}
	end := ended(t, f.runner, op.ID)
	f.clock.Resume()
	if end.Status != ops.Cancelled {
		t.Fatalf("the operation ended %s", end.Status)
	}
	m, err := f.svc.Get(ctx, op.Target.ID)
	if err != nil || m.Status != models.Cancelled {
		t.Fatalf("the model after cancel: %+v, %v", m, err)
	}
	kc, err := f.p.Kubernetes.Clients(ctx, f.eks)
	if err != nil {
		t.Fatal(err)
	}
	// The Job is deleted once the operation is stored CANCELLED.
	testwait.Eventually(t, "the Job is deleted after cancel", func() bool {
		_, err := kc.Core.BatchV1().Jobs("default").Get(ctx, m.JobName, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	again, err := f.download(t, models.DownloadInput{ModelID: "mistralai/Mistral-7B-Instruct-v0.3", Name: "mistral", Token: "hf_" + strings.Repeat("q", 32)})
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, again)
	if m, _ := f.svc.Get(ctx, op.Target.ID); m.Status != models.Ready || again.Target.ID != op.Target.ID {
		t.Errorf("downloading it again: %s (target %s)", m.Status, again.Target.ID)
	}
}

func must(op *ops.Operation, err error) *ops.Operation {
	if err != nil {
		panic(err)
	}
	return op
}

func errOf(err error) *errs.Error {
	if err == nil {
		return nil
	}
	return errs.As(err)
}
