package sim

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/cloud"
)

// SageMaker managed MLflow: tracking servers (Creating for about twenty
// minutes, then Created, or CreateFailed when a fail fault hits one or its
// artifact bucket does not exist; Deleting for a while, then gone), and the
// MLflow REST API's reads of the runs training pods log to them
// (mlflow_runs.go), as the cloud.MLflowTracking port.
//
// Left out: UpdateMlflowTrackingServer, stopping and starting a server,
// presigned URLs, the model registry, maintenance, and the account's quota
// of tracking servers.

// svcMLflow names the MLflow REST API of the tracking servers in the call
// counters and faults. Its operations are GetRunByName (cloud.MLflowTracking's
// FindRun: an experiment by name, then its newest run of a name) and
// GetMetricHistory.
const svcMLflow = "sagemaker-mlflow"

// Real latencies, divided by the world's speed: a tracking server takes
// from mlflowCreateMin to mlflowCreateMax to create, drawn for each.
const (
	mlflowCreateMin  = 18 * time.Minute
	mlflowCreateMax  = 25 * time.Minute
	mlflowDeleteTime = 10 * time.Minute
)

// mlflowListMax is the most tracking servers one ListMlflowTrackingServers
// page holds.
const mlflowListMax = 100

// mlflowVersions are the MLflow versions SageMaker runs; the last is the
// default of a server created without one.
var mlflowVersions = []string{"2.13.2", "2.16.2", "3.0"}

// SageMaker's constraints on the fields of a tracking server.
var (
	mlflowNamePattern     = regexp.MustCompile(`^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,255}$`)
	mlflowArtifactPattern = regexp.MustCompile(`^(https|s3)://([^/]+)/?(.*)$`)
	mlflowVersionPattern  = regexp.MustCompile(`^\d+(\.\d+)+$`)
	mlflowRolePattern     = regexp.MustCompile(`^arn:aws[a-z\-]*:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+$`)
	mlflowWindowPattern   = regexp.MustCompile(`^(Mon|Tue|Wed|Thu|Fri|Sat|Sun):([01]\d|2[0-3]):([0-5]\d)$`)
)

// mlflowServerRec is a tracking server.
type mlflowServerRec struct {
	Name string
	Arn  string
	// ID is the server's host label: its URL is https://<ID>.<region>.experiments.sagemaker.aws.
	ID               string
	ArtifactStoreURI string
	Size             string
	RoleArn          string
	Version          string
	AutoRegistration bool `json:",omitempty"`
	Window           string
	Tags             map[string]string `json:",omitempty"`
	Life             lifecycle
}

func (s *mlflowServerRec) status(now time.Time) smtypes.TrackingServerStatus {
	switch s.Life.phase(now) {
	case phaseCreating:
		return smtypes.TrackingServerStatusCreating
	case phaseFailed:
		return smtypes.TrackingServerStatusCreateFailed
	case phaseDeleting, phaseGone:
		return smtypes.TrackingServerStatusDeleting
	}
	return smtypes.TrackingServerStatusCreated
}

func (t *txn) mlflowURL(s *mlflowServerRec) string {
	return fmt.Sprintf("https://%s.%s.experiments.sagemaker.aws", s.ID, t.region)
}

// mlflowServer finds a tracking server by name.
func (t *txn) mlflowServer(name *string) (*mlflowServerRec, error) {
	n := aws.ToString(name)
	if !mlflowNamePattern.MatchString(n) {
		return nil, sageMakerValidation("1 validation error detected: Value '%s' at 'trackingServerName' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", n, mlflowNamePattern)
	}
	if s := t.rs.MLflowServers[n]; s != nil {
		return s, nil
	}
	return nil, &smtypes.ResourceNotFound{Message: aws.String(fmt.Sprintf("Tracking server with name %s not found.", n))}
}

// CreateMlflowTrackingServer starts creating a tracking server: Creating
// for 18 to 25 minutes (drawn from the world's seed, divided by the speed),
// then Created, or CreateFailed when a fail fault (service sagemaker,
// operation CreateMlflowTrackingServer or none) hits it or its artifact
// store's bucket is not the account's. A hold fault keeps it Creating.
func (a *sageMakerAPI) CreateMlflowTrackingServer(ctx context.Context, in *sagemaker.CreateMlflowTrackingServerInput, _ ...func(*sagemaker.Options)) (*sagemaker.CreateMlflowTrackingServerOutput, error) {
	return call(ctx, a.w, svcSageMaker, a.region, "CreateMlflowTrackingServer", func(t *txn) (*sagemaker.CreateMlflowTrackingServerOutput, error) {
		in := orZero(in)
		if err := need("CreateMlflowTrackingServerInput", param{"ArtifactStoreUri", in.ArtifactStoreUri != nil},
			param{"RoleArn", in.RoleArn != nil}, param{"TrackingServerName", in.TrackingServerName != nil}); err != nil {
			return nil, err
		}
		s, err := t.mlflowServerSpec(in)
		if err != nil {
			return nil, err
		}
		if old := t.rs.MLflowServers[s.Name]; old != nil {
			return nil, &smtypes.ResourceInUse{Message: aws.String(fmt.Sprintf("Tracking server with name %s already exists (%s). Choose a different name.", s.Name, old.status(t.now)))}
		}
		s.ID = "t-" + t.randString(lowerAlnum, 12)
		s.Arn = fmt.Sprintf("arn:aws:sagemaker:%s:%s:mlflow-tracking-server/%s", t.region, t.account(), s.Name)
		if s.Window == "" {
			v := t.nextRand()
			s.Window = fmt.Sprintf("%s:%02d:%02d", []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}[v%7], (v/7)%24, 30*((v/168)%2))
		}
		s.Life = newLifecycle(t.now, t.after(t.draw(mlflowCreateMin, mlflowCreateMax)))
		bucket, _, _ := s3RepoPath(s.ArtifactStoreURI)
		if b := t.st.Buckets[bucket]; b == nil || b.Owner != t.account() {
			s.Life.FailMessage = fmt.Sprintf("Unable to access the artifact store %s: the bucket %s does not exist or is not owned by account %s.", s.ArtifactStoreURI, bucket, t.account())
		}
		if msg, failed := t.failFault(svcSageMaker, "CreateMlflowTrackingServer", "Simulated tracking server creation failure"); failed && s.Life.FailMessage == "" {
			s.Life.FailMessage = msg
		}
		s.Life.HeldBy = t.holdFault(svcSageMaker, "CreateMlflowTrackingServer")
		t.rs.MLflowServers[s.Name] = s
		return &sagemaker.CreateMlflowTrackingServerOutput{TrackingServerArn: aws.String(s.Arn)}, nil
	})
}

// mlflowServerSpec checks a CreateMlflowTrackingServer request and returns
// the server it describes, with no id, ARN or lifecycle yet.
func (t *txn) mlflowServerSpec(in *sagemaker.CreateMlflowTrackingServerInput) (*mlflowServerRec, error) {
	name, uri, role := *in.TrackingServerName, *in.ArtifactStoreUri, *in.RoleArn
	switch {
	case !mlflowNamePattern.MatchString(name):
		return nil, sageMakerValidation("1 validation error detected: Value '%s' at 'trackingServerName' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", name, mlflowNamePattern)
	case len(uri) > 2048 || !mlflowArtifactPattern.MatchString(uri):
		return nil, sageMakerValidation("1 validation error detected: Value '%s' at 'artifactStoreUri' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", uri, mlflowArtifactPattern)
	case !strings.HasPrefix(uri, "s3://"):
		return nil, sageMakerValidation("ArtifactStoreUri %s is not an S3 URI: give s3://<bucket>/<prefix> of a general purpose bucket.", uri)
	case len(role) < 20 || len(role) > 2048 || !mlflowRolePattern.MatchString(role):
		return nil, sageMakerValidation("1 validation error detected: Value '%s' at 'roleArn' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", role, mlflowRolePattern)
	case t.roleUsable(role) == nil:
		return nil, sageMakerValidation("The role %s does not exist or cannot be assumed by SageMaker; create it with a trust policy for sagemaker.amazonaws.com.", role)
	}
	if bucket, _, _ := s3RepoPath(uri); cloud.BucketNameProblem(bucket) != "" {
		return nil, sageMakerValidation("ArtifactStoreUri %s does not name an S3 bucket: %s.", uri, cloud.BucketNameProblem(bucket))
	}
	size := cmp.Or(in.TrackingServerSize, smtypes.TrackingServerSizeS)
	if !slices.Contains(size.Values(), size) {
		return nil, sageMakerValidation("1 validation error detected: Value '%s' at 'trackingServerSize' failed to satisfy constraint: Member must satisfy enum value set: [Small, Medium, Large]", size)
	}
	version := aws.ToString(in.MlflowVersion)
	switch {
	case version == "":
		version = mlflowVersions[len(mlflowVersions)-1]
	case len(version) > 16 || !mlflowVersionPattern.MatchString(version):
		return nil, sageMakerValidation("1 validation error detected: Value '%s' at 'mlflowVersion' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", version, mlflowVersionPattern)
	case !slices.Contains(mlflowVersions, version):
		return nil, sageMakerValidation("MLflow version %s is not available: use one of %s.", version, strings.Join(mlflowVersions, ", "))
	}
	window := aws.ToString(in.WeeklyMaintenanceWindowStart)
	if window != "" && !mlflowWindowPattern.MatchString(window) {
		return nil, sageMakerValidation("1 validation error detected: Value '%s' at 'weeklyMaintenanceWindowStart' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", window, mlflowWindowPattern)
	}
	for _, tag := range in.Tags {
		if aws.ToString(tag.Key) == "" || tag.Value == nil {
			return nil, need("CreateMlflowTrackingServerInput", param{"Tags.Key", tag.Key != nil}, param{"Tags.Value", tag.Value != nil})
		}
	}
	return &mlflowServerRec{Name: name, ArtifactStoreURI: uri, Size: string(size), RoleArn: role, Version: version,
		AutoRegistration: aws.ToBool(in.AutomaticModelRegistration), Window: window, Tags: smTagMap(in.Tags)}, nil
}

// DescribeMlflowTrackingServer describes a tracking server, named by name.
func (a *sageMakerAPI) DescribeMlflowTrackingServer(ctx context.Context, in *sagemaker.DescribeMlflowTrackingServerInput, _ ...func(*sagemaker.Options)) (*sagemaker.DescribeMlflowTrackingServerOutput, error) {
	return call(ctx, a.w, svcSageMaker, a.region, "DescribeMlflowTrackingServer", func(t *txn) (*sagemaker.DescribeMlflowTrackingServerOutput, error) {
		in := orZero(in)
		if err := need("DescribeMlflowTrackingServerInput", param{"TrackingServerName", in.TrackingServerName != nil}); err != nil {
			return nil, err
		}
		s, err := t.mlflowServer(in.TrackingServerName)
		if err != nil {
			return nil, err
		}
		status := s.status(t.now)
		active := smtypes.IsTrackingServerActiveInactive
		if status == smtypes.TrackingServerStatusCreated {
			active = smtypes.IsTrackingServerActiveActive
		}
		modified := s.Life.CreatedAt
		if status != smtypes.TrackingServerStatusCreating {
			modified = s.Life.ReadyAt
		}
		if s.Life.DeletingAt != nil {
			modified = *s.Life.DeletingAt
		}
		return &sagemaker.DescribeMlflowTrackingServerOutput{
			TrackingServerArn: aws.String(s.Arn), TrackingServerName: aws.String(s.Name), TrackingServerStatus: status, IsActive: active,
			TrackingServerSize: smtypes.TrackingServerSize(s.Size), TrackingServerUrl: aws.String(t.mlflowURL(s)),
			ArtifactStoreUri: aws.String(s.ArtifactStoreURI), RoleArn: aws.String(s.RoleArn), MlflowVersion: aws.String(s.Version),
			AutomaticModelRegistration: aws.Bool(s.AutoRegistration), WeeklyMaintenanceWindowStart: aws.String(s.Window),
			S3BucketOwnerAccountId: aws.String(t.account()), S3BucketOwnerVerification: aws.Bool(true),
			CreationTime: aws.Time(s.Life.CreatedAt), LastModifiedTime: aws.Time(modified),
		}, nil
	})
}

// ListMlflowTrackingServers lists tracking server summaries, newest first
// unless asked otherwise, filtered by creation time, MLflow version and
// status, a page at a time.
func (a *sageMakerAPI) ListMlflowTrackingServers(ctx context.Context, in *sagemaker.ListMlflowTrackingServersInput, _ ...func(*sagemaker.Options)) (*sagemaker.ListMlflowTrackingServersOutput, error) {
	return call(ctx, a.w, svcSageMaker, a.region, "ListMlflowTrackingServers", func(t *txn) (*sagemaker.ListMlflowTrackingServersOutput, error) {
		in := orZero(in)
		if in.MaxResults != nil && (*in.MaxResults < 1 || *in.MaxResults > mlflowListMax) {
			return nil, sageMakerValidation("1 validation error detected: Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and %d", *in.MaxResults, mlflowListMax)
		}
		by := cmp.Or(in.SortBy, smtypes.SortTrackingServerByCreationTime)
		if !slices.Contains(by.Values(), by) {
			return nil, sageMakerValidation("1 validation error detected: Value '%s' at 'sortBy' failed to satisfy constraint: Member must satisfy enum value set: [Name, CreationTime, Status]", by)
		}
		if o := in.SortOrder; o != "" && o != smtypes.SortOrderAscending && o != smtypes.SortOrderDescending {
			return nil, sageMakerValidation("1 validation error detected: Value '%s' at 'sortOrder' failed to satisfy constraint: Member must satisfy enum value set: [Ascending, Descending]", o)
		}
		var list []*mlflowServerRec
		for _, name := range sortedKeys(t.rs.MLflowServers) {
			s := t.rs.MLflowServers[name]
			created := s.Life.CreatedAt
			if (in.CreatedAfter != nil && !created.After(*in.CreatedAfter)) || (in.CreatedBefore != nil && !created.Before(*in.CreatedBefore)) ||
				(in.MlflowVersion != nil && *in.MlflowVersion != s.Version) || (in.TrackingServerStatus != "" && in.TrackingServerStatus != s.status(t.now)) {
				continue
			}
			list = append(list, s)
		}
		slices.SortStableFunc(list, func(a, b *mlflowServerRec) int {
			c := 0
			switch by {
			case smtypes.SortTrackingServerByName:
				c = strings.Compare(a.Name, b.Name)
			case smtypes.SortTrackingServerByStatus:
				c = strings.Compare(string(a.status(t.now)), string(b.status(t.now)))
			}
			c = cmp.Or(c, a.Life.CreatedAt.Compare(b.Life.CreatedAt), strings.Compare(a.Name, b.Name))
			if in.SortOrder != smtypes.SortOrderAscending {
				c = -c
			}
			return c
		})
		items, next, err := page(list, in.NextToken, t.pageSize(svcSageMaker, "ListMlflowTrackingServers", in.MaxResults), mlflowListMax)
		if err != nil {
			return nil, sageMakerValidation("The NextToken %q is invalid: pass the NextToken of the previous page.", aws.ToString(in.NextToken))
		}
		out := &sagemaker.ListMlflowTrackingServersOutput{NextToken: next, TrackingServerSummaries: []smtypes.TrackingServerSummary{}}
		for _, s := range items {
			status := s.status(t.now)
			active := smtypes.IsTrackingServerActiveInactive
			if status == smtypes.TrackingServerStatusCreated {
				active = smtypes.IsTrackingServerActiveActive
			}
			out.TrackingServerSummaries = append(out.TrackingServerSummaries, smtypes.TrackingServerSummary{
				TrackingServerArn: aws.String(s.Arn), TrackingServerName: aws.String(s.Name), TrackingServerStatus: status, IsActive: active,
				MlflowVersion: aws.String(s.Version), CreationTime: aws.Time(s.Life.CreatedAt), LastModifiedTime: aws.Time(s.Life.CreatedAt),
			})
		}
		return out, nil
	})
}

// DeleteMlflowTrackingServer starts deleting a tracking server that is not
// Creating: Deleting for about ten minutes (divided by the speed), then
// gone, with the runs logged to it. Deleting one already Deleting changes
// nothing.
func (a *sageMakerAPI) DeleteMlflowTrackingServer(ctx context.Context, in *sagemaker.DeleteMlflowTrackingServerInput, _ ...func(*sagemaker.Options)) (*sagemaker.DeleteMlflowTrackingServerOutput, error) {
	return call(ctx, a.w, svcSageMaker, a.region, "DeleteMlflowTrackingServer", func(t *txn) (*sagemaker.DeleteMlflowTrackingServerOutput, error) {
		in := orZero(in)
		if err := need("DeleteMlflowTrackingServerInput", param{"TrackingServerName", in.TrackingServerName != nil}); err != nil {
			return nil, err
		}
		s, err := t.mlflowServer(in.TrackingServerName)
		if err != nil {
			return nil, err
		}
		switch s.status(t.now) {
		case smtypes.TrackingServerStatusCreating:
			return nil, &smtypes.ConflictException{Message: aws.String(fmt.Sprintf(
				"Tracking server %s is Creating; it can be deleted once it is Created or CreateFailed.", s.Name))}
		case smtypes.TrackingServerStatusDeleting:
			return &sagemaker.DeleteMlflowTrackingServerOutput{TrackingServerArn: aws.String(s.Arn)}, nil
		}
		s.Life.startDeleting(t.now, t.after(mlflowDeleteTime))
		delete(t.rs.MLflowRuns, s.Arn)
		return &sagemaker.DeleteMlflowTrackingServerOutput{TrackingServerArn: aws.String(s.Arn)}, nil
	})
}

// pruneMLflow drops the tracking servers that are gone, and their runs.
func (rs *regionState) pruneMLflow(now time.Time) {
	for name, s := range rs.MLflowServers {
		if s.Life.phase(now) == phaseGone {
			delete(rs.MLflowServers, name)
			delete(rs.MLflowRuns, s.Arn)
		}
	}
}

// mlflowAPI is the MLflow REST API of one region's tracking servers, as
// the cloud.MLflowTracking port reads it.
type mlflowAPI struct {
	w      *World
	region string
}

var _ cloud.MLflowTracking = (*mlflowAPI)(nil)

// mlflowTarget returns the Created tracking server arn names, after
// bringing the region's training pods up to the moment of the call (they
// log their metrics as they settle). A server that does not exist, or does
// not serve the MLflow API (not Created), is refused.
func (t *txn) mlflowTarget(arn string) (*mlflowServerRec, error) {
	t.advanceHyperPod()
	t.settleKube()
	var s *mlflowServerRec
	for _, c := range t.rs.MLflowServers {
		if c.Arn == arn {
			s = c
		}
	}
	if s == nil {
		return nil, &smtypes.ResourceNotFound{Message: aws.String(fmt.Sprintf("Tracking server %s not found in %s.", arn, t.region))}
	}
	if st := s.status(t.now); st != smtypes.TrackingServerStatusCreated {
		return nil, &smithy.GenericAPIError{Code: "TEMPORARILY_UNAVAILABLE", Fault: smithy.FaultServer,
			Message: fmt.Sprintf("Tracking server %s is %s; it serves the MLflow API once it is Created.", s.Name, st)}
	}
	return s, nil
}

// FindRun returns the newest run named runName of experiment on the
// tracking server, nil when the experiment or the run does not exist.
func (a *mlflowAPI) FindRun(ctx context.Context, trackingServerArn, experiment, runName string) (*cloud.MLflowRun, error) {
	return call(ctx, a.w, svcMLflow, a.region, "GetRunByName", func(t *txn) (*cloud.MLflowRun, error) {
		if experiment == "" || runName == "" {
			return nil, &smithy.GenericAPIError{Code: "INVALID_PARAMETER_VALUE", Message: "Give the experiment's name and the run's name.", Fault: smithy.FaultClient}
		}
		s, err := t.mlflowTarget(trackingServerArn)
		if err != nil {
			return nil, err
		}
		runs := t.rs.MLflowRuns[s.Arn]
		if runs == nil || runs.Experiments[experiment] == nil {
			return nil, nil
		}
		e := runs.Experiments[experiment]
		for i := len(e.Runs) - 1; i >= 0; i-- {
			r := e.Runs[i]
			if r.Name != runName {
				continue
			}
			out := &cloud.MLflowRun{ID: r.ID, Name: r.Name, ExperimentID: e.ID, Status: r.Status, Start: r.Start, End: r.End, MetricKeys: sortedKeys(r.Metrics)}
			return out, nil
		}
		return nil, nil
	})
}

// MetricHistory returns the values of metric key of run runID in step
// order, the newest limit of them when there are more (all for a limit of
// zero).
func (a *mlflowAPI) MetricHistory(ctx context.Context, trackingServerArn, runID, key string, limit int) ([]cloud.MLflowMetric, error) {
	out, err := call(ctx, a.w, svcMLflow, a.region, "GetMetricHistory", func(t *txn) (*[]cloud.MLflowMetric, error) {
		s, err := t.mlflowTarget(trackingServerArn)
		if err != nil {
			return nil, err
		}
		var run *mlflowRunRec
		if runs := t.rs.MLflowRuns[s.Arn]; runs != nil {
			for _, e := range runs.Experiments {
				for _, r := range e.Runs {
					if r.ID == runID {
						run = r
					}
				}
			}
		}
		if run == nil {
			return nil, &smithy.GenericAPIError{Code: "RESOURCE_DOES_NOT_EXIST", Message: fmt.Sprintf("Run '%s' not found.", runID), Fault: smithy.FaultClient}
		}
		pts := slices.Clone(run.Metrics[key])
		slices.SortStableFunc(pts, func(a, b mlflowPoint) int { return cmp.Compare(a.Step, b.Step) })
		if limit > 0 && len(pts) > limit {
			pts = pts[len(pts)-limit:]
		}
		list := make([]cloud.MLflowMetric, 0, len(pts))
		for _, p := range pts {
			list = append(list, cloud.MLflowMetric{Key: key, Value: p.Value, Step: p.Step, Timestamp: p.At})
		}
		return &list, nil
	})
	if err != nil {
		return nil, err
	}
	return *out, nil
}
