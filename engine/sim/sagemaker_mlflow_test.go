package sim

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// mlflowReady is when, at the default speed, every tracking server has
// ended its creation however long it drew.
var mlflowReady = scaled(mlflowCreateMax) + 1

// mlflowInput is a valid request for a Small server named name, with its
// role and artifact bucket made.
func (f *fixture) mlflowInput(name string) *sagemaker.CreateMlflowTrackingServerInput {
	f.t.Helper()
	f.w.mu.Lock()
	_, made := f.w.st.Buckets["mlflow-artifacts"]
	f.w.mu.Unlock()
	if !made {
		f.bucket("mlflow-artifacts")
		f.role("mlflow-server")
	}
	return &sagemaker.CreateMlflowTrackingServerInput{
		TrackingServerName: aws.String(name), ArtifactStoreUri: aws.String("s3://mlflow-artifacts/" + name + "/"),
		RoleArn: aws.String("arn:aws:iam::123456789012:role/mlflow-server"), TrackingServerSize: smtypes.TrackingServerSizeS,
		Tags: []smtypes.Tag{{Key: aws.String("team"), Value: aws.String("ml")}},
	}
}

func (f *fixture) describeMlflow(name string) *sagemaker.DescribeMlflowTrackingServerOutput {
	f.t.Helper()
	return ok(f.p.SageMaker.DescribeMlflowTrackingServer(f.ctx, &sagemaker.DescribeMlflowTrackingServerInput{TrackingServerName: aws.String(name)})).must(f.t)
}

// TestMlflowTrackingServerLifecycle follows a server from Creating to
// Created, through a restart of the world, to Deleting and gone, and
// checks what each call records.
func TestMlflowTrackingServerLifecycle(t *testing.T) {
	f := newFixture(t)
	before := f.w.Calls()["sagemaker"]["CreateMlflowTrackingServer"]
	arn := ok(f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, f.mlflowInput("team-a"))).must(t).TrackingServerArn
	if want := "arn:aws:sagemaker:us-west-2:123456789012:mlflow-tracking-server/team-a"; aws.ToString(arn) != want {
		t.Fatalf("ARN %s, want %s", aws.ToString(arn), want)
	}
	if n := f.w.Calls()["sagemaker"]["CreateMlflowTrackingServer"] - before; n != 1 {
		t.Fatalf("CreateMlflowTrackingServer counted %d times", n)
	}
	d := f.describeMlflow("team-a")
	if d.TrackingServerStatus != smtypes.TrackingServerStatusCreating || d.IsActive != smtypes.IsTrackingServerActiveInactive {
		t.Fatalf("a new server is %s (%s)", d.TrackingServerStatus, d.IsActive)
	}
	if _, err := f.p.SageMaker.DeleteMlflowTrackingServer(f.ctx, &sagemaker.DeleteMlflowTrackingServerInput{TrackingServerName: aws.String("team-a")}); errorCode(t, err) != "ConflictException" {
		t.Fatalf("deleting a Creating server: %v", err)
	}

	f.clock.Advance(mlflowReady)
	f.w = f.world() // a restart reads the saved world
	d = f.describeMlflow("team-a")
	url := aws.ToString(d.TrackingServerUrl)
	if d.TrackingServerStatus != smtypes.TrackingServerStatusCreated || d.IsActive != smtypes.IsTrackingServerActiveActive ||
		!strings.HasPrefix(url, "https://t-") || !strings.HasSuffix(url, ".us-west-2.experiments.sagemaker.aws") ||
		d.TrackingServerSize != smtypes.TrackingServerSizeS || aws.ToString(d.MlflowVersion) != mlflowVersions[len(mlflowVersions)-1] ||
		aws.ToString(d.ArtifactStoreUri) != "s3://mlflow-artifacts/team-a/" || aws.ToString(d.TrackingServerArn) != aws.ToString(arn) ||
		!mlflowWindowPattern.MatchString(aws.ToString(d.WeeklyMaintenanceWindowStart)) {
		t.Fatalf("after its creation: %+v", d)
	}

	if _, err := f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, f.mlflowInput("team-a")); errorCode(t, err) != "ResourceInUse" {
		t.Fatalf("a second server of the name: %v", err)
	}

	ok(f.p.SageMaker.DeleteMlflowTrackingServer(f.ctx, &sagemaker.DeleteMlflowTrackingServerInput{TrackingServerName: aws.String("team-a")})).must(t)
	if s := f.describeMlflow("team-a").TrackingServerStatus; s != smtypes.TrackingServerStatusDeleting {
		t.Fatalf("after DeleteMlflowTrackingServer: %s", s)
	}
	// Deleting again changes nothing; the name stays taken until it is gone.
	ok(f.p.SageMaker.DeleteMlflowTrackingServer(f.ctx, &sagemaker.DeleteMlflowTrackingServerInput{TrackingServerName: aws.String("team-a")})).must(t)
	if _, err := f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, f.mlflowInput("team-a")); errorCode(t, err) != "ResourceInUse" {
		t.Fatalf("the name of a Deleting server: %v", err)
	}
	f.clock.Advance(scaled(mlflowDeleteTime) + 1)
	if _, err := f.p.SageMaker.DescribeMlflowTrackingServer(f.ctx, &sagemaker.DescribeMlflowTrackingServerInput{TrackingServerName: aws.String("team-a")}); errorCode(t, err) != "ResourceNotFound" {
		t.Fatalf("a deleted server: %v", err)
	}
	if _, err := f.p.SageMaker.DeleteMlflowTrackingServer(f.ctx, &sagemaker.DeleteMlflowTrackingServerInput{TrackingServerName: aws.String("team-a")}); errorCode(t, err) != "ResourceNotFound" {
		t.Fatalf("deleting a deleted server: %v", err)
	}
	ok(f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, f.mlflowInput("team-a"))).must(t) // the name is free again
}

func TestMlflowTrackingServerValidation(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name string
		mod  func(in *sagemaker.CreateMlflowTrackingServerInput)
		want string
	}{
		{"valid", func(*sagemaker.CreateMlflowTrackingServerInput) {}, ""},
		{"no name", func(in *sagemaker.CreateMlflowTrackingServerInput) { in.TrackingServerName = nil }, "params"},
		{"no artifact store", func(in *sagemaker.CreateMlflowTrackingServerInput) { in.ArtifactStoreUri = nil }, "params"},
		{"no role", func(in *sagemaker.CreateMlflowTrackingServerInput) { in.RoleArn = nil }, "params"},
		{"underscore in the name", func(in *sagemaker.CreateMlflowTrackingServerInput) { in.TrackingServerName = aws.String("team_a") }, "ValidationException"},
		{"name ending in a hyphen", func(in *sagemaker.CreateMlflowTrackingServerInput) { in.TrackingServerName = aws.String("team-") }, "ValidationException"},
		{"name of 257 characters", func(in *sagemaker.CreateMlflowTrackingServerInput) {
			in.TrackingServerName = aws.String(strings.Repeat("a", 257))
		}, "ValidationException"},
		{"size XL", func(in *sagemaker.CreateMlflowTrackingServerInput) { in.TrackingServerSize = "XLarge" }, "ValidationException"},
		{"artifact store on a web site", func(in *sagemaker.CreateMlflowTrackingServerInput) {
			in.ArtifactStoreUri = aws.String("https://example.com/mlflow")
		}, "ValidationException"},
		{"artifact store without a scheme", func(in *sagemaker.CreateMlflowTrackingServerInput) {
			in.ArtifactStoreUri = aws.String("mlflow-artifacts/x")
		}, "ValidationException"},
		{"artifact store in a bad bucket name", func(in *sagemaker.CreateMlflowTrackingServerInput) {
			in.ArtifactStoreUri = aws.String("s3://Bad_Bucket/x")
		}, "ValidationException"},
		{"role that is not an ARN", func(in *sagemaker.CreateMlflowTrackingServerInput) { in.RoleArn = aws.String("mlflow-server") }, "ValidationException"},
		{"role that does not exist", func(in *sagemaker.CreateMlflowTrackingServerInput) {
			in.RoleArn = aws.String("arn:aws:iam::123456789012:role/nobody")
		}, "ValidationException"},
		{"MLflow 1.30", func(in *sagemaker.CreateMlflowTrackingServerInput) { in.MlflowVersion = aws.String("1.30") }, "ValidationException"},
		{"MLflow latest", func(in *sagemaker.CreateMlflowTrackingServerInput) { in.MlflowVersion = aws.String("latest") }, "ValidationException"},
		{"MLflow 2.16.2", func(in *sagemaker.CreateMlflowTrackingServerInput) { in.MlflowVersion = aws.String("2.16.2") }, ""},
		{"maintenance at 25:00", func(in *sagemaker.CreateMlflowTrackingServerInput) {
			in.WeeklyMaintenanceWindowStart = aws.String("Tue:25:00")
		}, "ValidationException"},
		{"maintenance on Tuesday", func(in *sagemaker.CreateMlflowTrackingServerInput) {
			in.WeeklyMaintenanceWindowStart = aws.String("Tue:03:30")
		}, ""},
	}
	for i, c := range cases {
		in := f.mlflowInput("server-" + string(rune('a'+i)))
		c.mod(in)
		_, err := f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, in)
		t.Run(c.name, func(t *testing.T) { wantFSxError(t, err, c.want) })
	}
	if _, err := f.p.SageMaker.DescribeMlflowTrackingServer(f.ctx, &sagemaker.DescribeMlflowTrackingServerInput{TrackingServerName: aws.String("no-such")}); errorCode(t, err) != "ResourceNotFound" {
		t.Errorf("describing a server that does not exist: %v", err)
	}
	if _, err := f.p.SageMaker.DescribeMlflowTrackingServer(f.ctx, &sagemaker.DescribeMlflowTrackingServerInput{TrackingServerName: aws.String("bad_name")}); errorCode(t, err) != "ValidationException" {
		t.Errorf("describing a bad name: %v", err)
	}
}

// TestMlflowTrackingServerFailsWithoutItsBucket: SageMaker makes the
// server, which fails once it finds no artifact bucket.
func TestMlflowTrackingServerFailsWithoutItsBucket(t *testing.T) {
	f := newFixture(t)
	in := f.mlflowInput("orphan")
	in.ArtifactStoreUri = aws.String("s3://no-such-bucket/mlflow/")
	ok(f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, in)).must(t)
	f.clock.Advance(mlflowReady)
	if s := f.describeMlflow("orphan").TrackingServerStatus; s != smtypes.TrackingServerStatusCreateFailed {
		t.Fatalf("a server without its bucket is %s", s)
	}
	ok(f.p.SageMaker.DeleteMlflowTrackingServer(f.ctx, &sagemaker.DeleteMlflowTrackingServerInput{TrackingServerName: aws.String("orphan")})).must(t)
}

func TestMlflowTrackingServerFaults(t *testing.T) {
	f := newFixture(t)
	ok(f.w.InjectFault(Fault{Kind: FaultFail, Service: "sagemaker", Operation: "CreateMlflowTrackingServer", Count: 1})).must(t)
	ok(f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, f.mlflowInput("failing"))).must(t)
	ok(f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, f.mlflowInput("fine"))).must(t) // the fault fired once
	hold := ok(f.w.InjectFault(Fault{Kind: FaultHold, Service: "sagemaker", Operation: "CreateMlflowTrackingServer"})).must(t)
	ok(f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, f.mlflowInput("held"))).must(t)
	f.clock.Advance(mlflowReady)
	for name, want := range map[string]smtypes.TrackingServerStatus{
		"failing": smtypes.TrackingServerStatusCreateFailed, "fine": smtypes.TrackingServerStatusCreated, "held": smtypes.TrackingServerStatusCreating,
	} {
		if got := f.describeMlflow(name).TrackingServerStatus; got != want {
			t.Errorf("%s is %s, want %s", name, got, want)
		}
	}
	if err := f.w.ClearFault(hold.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.describeMlflow("held").TrackingServerStatus; got != smtypes.TrackingServerStatusCreated {
		t.Fatalf("once the hold is cleared, past its time, the server is %s", got)
	}
}

func TestListMlflowTrackingServersPages(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"b-server", "a-server", "c-server"} {
		ok(f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, f.mlflowInput(name))).must(t)
		f.clock.Advance(1)
	}
	var names []string
	in := &sagemaker.ListMlflowTrackingServersInput{MaxResults: aws.Int32(2)}
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatal("no last page")
		}
		out := ok(f.p.SageMaker.ListMlflowTrackingServers(f.ctx, in)).must(t)
		for _, s := range out.TrackingServerSummaries {
			names = append(names, aws.ToString(s.TrackingServerName))
		}
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	if strings.Join(names, ",") != "c-server,a-server,b-server" {
		t.Fatalf("newest first, two a page: %v", names)
	}
	out := ok(f.p.SageMaker.ListMlflowTrackingServers(f.ctx, &sagemaker.ListMlflowTrackingServersInput{
		SortBy: smtypes.SortTrackingServerByName, SortOrder: smtypes.SortOrderAscending})).must(t)
	if len(out.TrackingServerSummaries) != 3 || aws.ToString(out.TrackingServerSummaries[0].TrackingServerName) != "a-server" {
		t.Fatalf("by name: %+v", out.TrackingServerSummaries)
	}
	f.clock.Advance(mlflowReady)
	ok(f.p.SageMaker.DeleteMlflowTrackingServer(f.ctx, &sagemaker.DeleteMlflowTrackingServerInput{TrackingServerName: aws.String("a-server")})).must(t)
	out = ok(f.p.SageMaker.ListMlflowTrackingServers(f.ctx, &sagemaker.ListMlflowTrackingServersInput{TrackingServerStatus: smtypes.TrackingServerStatusCreated})).must(t)
	if len(out.TrackingServerSummaries) != 2 {
		t.Fatalf("Created only: %+v", out.TrackingServerSummaries)
	}
	for _, bad := range []*sagemaker.ListMlflowTrackingServersInput{{MaxResults: aws.Int32(101)}, {NextToken: aws.String("garbage!")}, {SortBy: "Size"}} {
		if _, err := f.p.SageMaker.ListMlflowTrackingServers(f.ctx, bad); errorCode(t, err) != "ValidationException" {
			t.Errorf("ListMlflowTrackingServers(%+v): %v", bad, err)
		}
	}
}

// TestMlflowTrackingReadsRunsOfCreatedServers reads back what training
// pods logged, and is refused by servers that do not exist, are not
// Created yet, or were deleted (with their runs).
func TestMlflowTrackingReadsRunsOfCreatedServers(t *testing.T) {
	f := newFixture(t)
	arn := aws.ToString(ok(f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, f.mlflowInput("team-a"))).must(t).TrackingServerArn)
	// A pod logs as the training programs do (kube_training.go).
	f.w.mu.Lock()
	now := f.clock.Now()
	runs := f.w.st.regionState("us-west-2").mlflowRunsOf(arn)
	old := runs.run("train-1", "job-1", now, true)
	old.log("loss", 1, 3, now)
	old.end("FAILED", now)
	run := runs.run("train-1", "job-1", now, true)
	for step := int64(10); step >= 1; step-- { // out of order, as retried ranks may log
		run.log("loss", step, 2.5-float64(step)/10, now)
	}
	run.log("learning_rate", 1, 1e-4, now)
	f.w.mu.Unlock()

	if _, err := f.p.MLflow.FindRun(f.ctx, arn, "train-1", "job-1"); errorCode(t, err) != "TEMPORARILY_UNAVAILABLE" {
		t.Fatalf("reading a Creating server: %v", err)
	}
	f.clock.Advance(mlflowReady)
	got := ok(f.p.MLflow.FindRun(f.ctx, arn, "train-1", "job-1")).must(t)
	if got == nil || got.ID != run.ID || got.Status != "RUNNING" || strings.Join(got.MetricKeys, ",") != "learning_rate,loss" || got.ExperimentID == "" {
		t.Fatalf("FindRun = %+v, want the newest run %s", got, run.ID)
	}
	for _, miss := range [][2]string{{"train-1", "job-2"}, {"other", "job-1"}} {
		if r := ok(f.p.MLflow.FindRun(f.ctx, arn, miss[0], miss[1])).must(t); r != nil {
			t.Errorf("FindRun(%v) = %+v, want none", miss, r)
		}
	}
	pts := ok(f.p.MLflow.MetricHistory(f.ctx, arn, run.ID, "loss", 4)).must(t)
	if len(pts) != 4 || pts[0].Step != 7 || pts[3].Step != 10 || pts[3].Key != "loss" || pts[3].Value != 1.5 {
		t.Fatalf("the newest 4 points in step order: %+v", pts)
	}
	if all := ok(f.p.MLflow.MetricHistory(f.ctx, arn, run.ID, "loss", 0)).must(t); len(all) != 10 {
		t.Fatalf("every point: %d", len(all))
	}
	if none := ok(f.p.MLflow.MetricHistory(f.ctx, arn, run.ID, "tokens_per_sec", 10)).must(t); len(none) != 0 {
		t.Fatalf("a metric never logged: %+v", none)
	}
	if _, err := f.p.MLflow.MetricHistory(f.ctx, arn, "0123", "loss", 10); errorCode(t, err) != "RESOURCE_DOES_NOT_EXIST" {
		t.Fatalf("a run that does not exist: %v", err)
	}
	if n := f.w.Calls()["sagemaker-mlflow"]; n["GetRunByName"] != 4 || n["GetMetricHistory"] != 4 {
		t.Fatalf("MLflow calls %v", n)
	}
	other := "arn:aws:sagemaker:us-west-2:123456789012:mlflow-tracking-server/nobody"
	if _, err := f.p.MLflow.FindRun(f.ctx, other, "train-1", "job-1"); errorCode(t, err) != "ResourceNotFound" {
		t.Fatalf("a server that does not exist: %v", err)
	}

	ok(f.p.SageMaker.DeleteMlflowTrackingServer(f.ctx, &sagemaker.DeleteMlflowTrackingServerInput{TrackingServerName: aws.String("team-a")})).must(t)
	if _, err := f.p.MLflow.FindRun(f.ctx, arn, "train-1", "job-1"); errorCode(t, err) != "TEMPORARILY_UNAVAILABLE" {
		t.Fatalf("reading a Deleting server: %v", err)
	}
	f.clock.Advance(scaled(mlflowDeleteTime) + 1)
	ok(f.p.SageMaker.CreateMlflowTrackingServer(f.ctx, f.mlflowInput("team-a"))).must(t)
	f.clock.Advance(mlflowReady)
	if r := ok(f.p.MLflow.FindRun(f.ctx, arn, "train-1", "job-1")).must(t); r != nil {
		t.Fatalf("a server made again under the same name starts empty, found %+v", r)
	}
}
