package features

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

// MLFLOW is the cluster's SageMaker managed MLflow tracking server, made
// (with an IAM role, trusted by SageMaker, that may read and write only
// its artifact prefix of the shared bucket) or an existing one, and the
// identity training pods report to it with: a service account in the
// shared bucket's namespace whose pod identity role may call that one
// server. Turning it off removes what it made, never a server it imported.

// mlflowVersion is the MLflow version of the servers MLFLOW makes, pinned
// so that every cluster's jobs talk to the same MLflow.
const mlflowVersion = "3.0"

// trackingServerSizes are SageMaker's sizes of a tracking server.
var trackingServerSizes = []string{string(smtypes.TrackingServerSizeS), string(smtypes.TrackingServerSizeM), string(smtypes.TrackingServerSizeL)}

var (
	trackingServerName = regexp.MustCompile(`^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,255}$`)
	trackingServerArn  = regexp.MustCompile(`^arn:aws[a-z-]*:sagemaker:([a-z0-9-]+):(\d{12}):mlflow-tracking-server/([a-zA-Z0-9](-*[a-zA-Z0-9]){0,255})$`)
)

// mlflowLinks is the chain of MLFLOW, nothing while no server is set.
func mlflowLinks(e *env) []link {
	s := e.settings
	if s.TrackingServerName == "" && s.TrackingServerArn == "" {
		return nil
	}
	pods := iamName(e.c, "mlflow")
	out := []link{addonLink(e, "eks-pod-identity-agent", true)}
	if s.TrackingServerName != "" {
		server := iamName(e.c, "mlflow-server")
		out = append(out,
			policyLink(e, "server-policy", "IAM policy for the artifacts at "+s.ArtifactStoreURI, server, artifactPolicy(s.ArtifactStoreURI)),
			roleLink(e, "server-role", "IAM role of the tracking server", server, serviceTrust("sagemaker.amazonaws.com"),
				[]string{fmt.Sprintf("arn:aws:iam::%s:policy%s%s", e.c.AccountID(), iamPath, server)}),
			trackingServerLink(e))
	} else {
		out = append(out, importedServerLink(e))
	}
	return append(out,
		policyLink(e, "policy", "IAM policy to call tracking server "+mlflowServerArn(e), pods, trackingPolicy(mlflowServerArn(e))),
		roleLink(e, "role", "IAM role of the training pods", pods, podsTrust(), []string{fmt.Sprintf("arn:aws:iam::%s:policy%s%s", e.c.AccountID(), iamPath, pods)}),
		serviceAccountLink(e, s.Namespace, s.ServiceAccount, nil),
		podIdentityLink(e, s.Namespace, s.ServiceAccount, pods),
	)
}

// mlflowServerArn is the ARN of the server MLFLOW uses.
func mlflowServerArn(e *env) string {
	if e.settings.TrackingServerName == "" {
		return e.settings.TrackingServerArn
	}
	return fmt.Sprintf("arn:aws:sagemaker:%s:%s:mlflow-tracking-server/%s", e.c.Region, e.c.AccountID(), e.settings.TrackingServerName)
}

// mlflowSettings reports MLFLOW's settings for the table: the server's
// ARN whether it was made or imported.
func mlflowSettings(_ context.Context, e *env) (*Settings, error) {
	s := e.settings
	s.TrackingServerArn = mlflowServerArn(e)
	return &s, nil
}

// artifactPolicy lets the tracking server list, read and write only its
// artifact prefix.
func artifactPolicy(uri string) policyDocument {
	bucket, prefix, _ := strings.Cut(strings.TrimPrefix(uri, "s3://"), "/")
	list := statement{Effect: "Allow", Action: []string{"s3:ListBucket"}, Resource: []string{"arn:aws:s3:::" + bucket}}
	if prefix != "" {
		list.Condition = map[string]map[string]string{"StringLike": {"s3:prefix": prefix + "*"}}
	}
	return policyDocument{Version: "2012-10-17", Statement: []statement{list,
		{Effect: "Allow", Action: []string{"s3:GetObject", "s3:PutObject"}, Resource: []string{"arn:aws:s3:::" + bucket + "/" + prefix + "*"}},
	}}
}

// trackingPolicy lets the training pods call one tracking server.
func trackingPolicy(arn string) policyDocument {
	return policyDocument{Version: "2012-10-17", Statement: []statement{{Effect: "Allow", Action: []string{"sagemaker-mlflow:*"}, Resource: []string{arn}}}}
}

// describeTrackingServer returns the server called name, nil when there is
// none.
func describeTrackingServer(ctx context.Context, e *env, name string) (*sagemaker.DescribeMlflowTrackingServerOutput, error) {
	out, err := e.p.SageMaker.DescribeMlflowTrackingServer(ctx, &sagemaker.DescribeMlflowTrackingServerInput{TrackingServerName: aws.String(name)})
	if errs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, errs.FromUpstream(err, "describe MLflow tracking server "+name)
	}
	return out, nil
}

// trackingServerState is a server's link state: settled unless it is
// changing, broken when SageMaker says a change failed.
func trackingServerState(out *sagemaker.DescribeMlflowTrackingServerOutput) linkState {
	st := string(out.TrackingServerStatus)
	ls := linkState{present: true, matches: true, ref: aws.ToString(out.TrackingServerArn), detail: "tracking server " + st}
	switch {
	case strings.HasSuffix(st, "Failed"):
		ls.settled, ls.failed = true, fmt.Sprintf("tracking server %s is %s", aws.ToString(out.TrackingServerName), st)
	case strings.HasSuffix(st, "ing"), st == string(smtypes.TrackingServerStatusMaintenanceInProgress):
	default:
		ls.settled = true
	}
	return ls
}

// trackingServerLink is the tracking server MLFLOW makes. It is the
// cluster's when its role is the cluster's tracking-server role: one that
// exists with another role was not made here and is never deleted.
func trackingServerLink(e *env) link {
	s := e.settings
	name, role := s.TrackingServerName, roleArn(e, iamName(e.c, "mlflow-server"))
	return link{key: "tracking-server", title: "MLflow tracking server " + name, kind: "MLFLOW_TRACKING_SERVER", timeout: time.Hour,
		state: func(ctx context.Context) (linkState, error) {
			out, err := describeTrackingServer(ctx, e, name)
			if err != nil || out == nil {
				return linkState{}, err
			}
			ls := trackingServerState(out)
			ls.matches = string(out.TrackingServerSize) == s.TrackingServerSize && aws.ToString(out.ArtifactStoreUri) == s.ArtifactStoreURI && aws.ToString(out.RoleArn) == role
			return ls, nil
		},
		create: func(ctx context.Context) error {
			_, err := e.p.SageMaker.CreateMlflowTrackingServer(ctx, &sagemaker.CreateMlflowTrackingServerInput{
				TrackingServerName: aws.String(name), ArtifactStoreUri: aws.String(s.ArtifactStoreURI), RoleArn: aws.String(role),
				TrackingServerSize: smtypes.TrackingServerSize(s.TrackingServerSize), MlflowVersion: aws.String(mlflowVersion),
				AutomaticModelRegistration: aws.Bool(false),
				Tags: []smtypes.Tag{{Key: aws.String("instantstart:cluster"), Value: aws.String(e.c.ID)},
					{Key: aws.String("app.kubernetes.io/managed-by"), Value: aws.String("instantstart")}},
			})
			if err != nil && !errs.IsAPICode(err, "ResourceInUse") {
				return errs.FromUpstream(err, "create MLflow tracking server "+name)
			}
			return nil
		},
		delete: func(ctx context.Context) error {
			out, err := describeTrackingServer(ctx, e, name)
			if err != nil || out == nil {
				return err
			}
			if aws.ToString(out.RoleArn) != role {
				return errs.New(errs.Precondition, "tracking server %s runs as %s, not as cluster %s's tracking-server role, so InstantStart did not make it: it is left in place", name, aws.ToString(out.RoleArn), e.c.Name)
			}
			_, err = e.p.SageMaker.DeleteMlflowTrackingServer(ctx, &sagemaker.DeleteMlflowTrackingServerInput{TrackingServerName: aws.String(name)})
			if err != nil && !errs.IsNotFound(err) {
				return errs.FromUpstream(err, "delete MLflow tracking server "+name)
			}
			return nil
		},
	}
}

// importedServerLink is an existing server MLFLOW uses: shared, so turning
// the feature off leaves it, and never made.
func importedServerLink(e *env) link {
	arn := e.settings.TrackingServerArn
	name := arn[strings.LastIndex(arn, "/")+1:]
	return link{key: "tracking-server", title: "MLflow tracking server " + name + " (existing)", kind: "MLFLOW_TRACKING_SERVER", shared: true, timeout: time.Hour,
		state: func(ctx context.Context) (linkState, error) {
			out, err := describeTrackingServer(ctx, e, name)
			if err != nil || out == nil || aws.ToString(out.TrackingServerArn) != arn {
				return linkState{}, err
			}
			return trackingServerState(out), nil
		},
		create: func(context.Context) error {
			return errs.New(errs.Precondition, "tracking server %s does not exist any more; turn MLFLOW off, then on with a server that exists (or none, to have one made)", arn).WithField("input.mlflow.trackingServerArn")
		},
		delete: func(context.Context) error { return nil }, // never: it is not the feature's
	}
}

// checkMLflow refuses what cannot work and fills what an enable request
// leaves out: a made server's name (<cluster>-mlflow), size (Small) and
// artifact location (s3://<shared bucket>/mlflow/), and the namespace and
// service account of the jobs.
func checkMLflow(ctx context.Context, e *env) error {
	s, f := &e.settings, "input.mlflow."
	made := s.TrackingServerName != "" || s.TrackingServerSize != "" || s.ArtifactStoreURI != ""
	var bad errs.List
	if s.TrackingServerArn != "" && made {
		bad = append(bad, errs.Field(f+"trackingServerArn", "give either an existing tracking server's ARN or a new server's name, size and artifact location, not both"))
	}
	if s.TrackingServerName != "" && !trackingServerName.MatchString(s.TrackingServerName) {
		bad = append(bad, errs.Field(f+"trackingServerName", "%q is not a tracking server name: up to 256 letters, digits and hyphens, starting and ending with a letter or a digit", errs.Clip(s.TrackingServerName)))
	}
	if s.TrackingServerSize != "" && !slices.Contains(trackingServerSizes, s.TrackingServerSize) {
		bad = append(bad, errs.Field(f+"trackingServerSize", "%q is not a tracking server size: use %s", errs.Clip(s.TrackingServerSize), strings.Join(trackingServerSizes, ", ")))
	}
	var bucket, prefix string
	if s.ArtifactStoreURI != "" {
		var problem string
		if bucket, prefix, problem = splitArtifactURI(s.ArtifactStoreURI); problem != "" {
			bad = append(bad, errs.Field(f+"artifactStoreUri", "%q is not an S3 location s3://<bucket>/<prefix>/: %s", errs.Clip(s.ArtifactStoreURI), problem))
		}
	}
	if m := trackingServerArn.FindStringSubmatch(s.TrackingServerArn); s.TrackingServerArn != "" && m == nil {
		bad = append(bad, errs.Field(f+"trackingServerArn", "%q is not a tracking server ARN (arn:aws:sagemaker:<region>:<account>:mlflow-tracking-server/<name>)", errs.Clip(s.TrackingServerArn)))
	} else if m != nil && m[1] != e.c.Region {
		bad = append(bad, errs.Field(f+"trackingServerArn", "tracking server %s is in %s; jobs of cluster %s report to a server of its own region %s", m[3], m[1], e.c.Name, e.c.Region))
	}
	if len(bad) > 0 {
		return bad
	}

	shared, err := sharedBucketOf(e)
	if err != nil {
		return err
	}
	s.Namespace, s.ServiceAccount = shared.Namespace, cloud.MLflowServiceAccount
	if s.TrackingServerArn != "" {
		if err := checkImportedServer(ctx, e); err != nil {
			return err
		}
	} else {
		s.TrackingServerName = cmpOr(s.TrackingServerName, e.c.Name+"-mlflow")
		s.TrackingServerSize = cmpOr(s.TrackingServerSize, string(smtypes.TrackingServerSizeS))
		if s.ArtifactStoreURI == "" {
			bucket, prefix = shared.Name, "mlflow/"
		}
		if bucket != shared.Name {
			return errs.Field(f+"artifactStoreUri", "keep the artifacts in the cluster's shared bucket: give s3://%s/<prefix>/ (default s3://%s/mlflow/), not a location in %s", shared.Name, shared.Name, bucket)
		}
		s.ArtifactStoreURI = "s3://" + bucket + "/" + prefix
		if !trackingServerName.MatchString(s.TrackingServerName) {
			return errs.Field(f+"trackingServerName", "the default name %q is not a tracking server name; give one", errs.Clip(s.TrackingServerName))
		}
		if err := checkMadeServer(ctx, e); err != nil {
			return err
		}
	}
	// The pods' chain for another server is changed by turning MLFLOW off
	// and on again, not in place: the jobs that report to it must not be
	// moved under their feet.
	pods := policyLink(e, "policy", "IAM policy", iamName(e.c, "mlflow"), trackingPolicy(mlflowServerArn(e)))
	st, err := pods.state(ctx)
	if err != nil {
		return err
	}
	if st.present && !st.matches {
		return errs.New(errs.Precondition, "MLFLOW is set up for another tracking server (IAM policy %s); turn it off first, then on with this one", st.ref).WithField("input.mlflow")
	}
	return nil
}

// sharedBucketOf returns the cluster's shared bucket, or a PRECONDITION.
func sharedBucketOf(e *env) (*hyperpod.Bucket, error) {
	var shared *hyperpod.Bucket
	if e.buckets != nil {
		var err error
		if shared, err = e.buckets.SharedBucket(e.c.ID); err != nil {
			return nil, err
		}
	}
	if shared == nil {
		return nil, errs.New(errs.Precondition, "cluster %s has no shared bucket ready, which MLFLOW keeps its artifacts in and whose namespace its jobs run in; add it first (addStorage with kind S3), then turn MLFLOW on", e.c.Name).WithField("input.mlflow")
	}
	return shared, nil
}

// checkImportedServer refuses an existing server that does not exist or
// does not serve MLflow yet.
func checkImportedServer(ctx context.Context, e *env) error {
	arn, f := e.settings.TrackingServerArn, "input.mlflow.trackingServerArn"
	name := arn[strings.LastIndex(arn, "/")+1:]
	out, err := describeTrackingServer(ctx, e, name)
	if err != nil {
		return err
	}
	if out == nil || aws.ToString(out.TrackingServerArn) != arn {
		return errs.New(errs.Precondition, "tracking server %s does not exist in %s; give the ARN of one that does (aws sagemaker list-mlflow-tracking-servers), or leave it out to have one made", arn, e.c.Region).WithField(f)
	}
	if st := string(out.TrackingServerStatus); !cloud.MLflowServerServing(st) {
		return errs.New(errs.Precondition, "tracking server %s is %s; wait until it is Created, then turn MLFLOW on", name, st).WithField(f)
	}
	return nil
}

// checkMadeServer refuses a server name taken by a server this cluster's
// MLFLOW did not make, and a made server asked for with other settings.
func checkMadeServer(ctx context.Context, e *env) error {
	s, f := e.settings, "input.mlflow.trackingServerName"
	out, err := describeTrackingServer(ctx, e, s.TrackingServerName)
	if err != nil || out == nil {
		return err
	}
	if out.TrackingServerStatus == smtypes.TrackingServerStatusDeleting {
		return errs.New(errs.Precondition, "tracking server %s is being deleted; wait until it is gone (a few minutes), or choose another trackingServerName", s.TrackingServerName).WithField(f)
	}
	if role := roleArn(e, iamName(e.c, "mlflow-server")); aws.ToString(out.RoleArn) != role {
		return errs.New(errs.Precondition, "a tracking server named %s exists and cluster %s's MLFLOW did not make it; choose another trackingServerName, or use that server with trackingServerArn %s",
			s.TrackingServerName, e.c.Name, aws.ToString(out.TrackingServerArn)).WithField(f)
	}
	if string(out.TrackingServerSize) != s.TrackingServerSize || aws.ToString(out.ArtifactStoreUri) != s.ArtifactStoreURI {
		return errs.New(errs.Precondition, "tracking server %s is %s with artifacts at %s; turn MLFLOW off first to make it again with size %s and artifacts at %s",
			s.TrackingServerName, out.TrackingServerSize, aws.ToString(out.ArtifactStoreUri), s.TrackingServerSize, s.ArtifactStoreURI).WithField(f)
	}
	return nil
}

// splitArtifactURI reads s3://bucket/prefix, the prefix ending in "/" (or
// empty for the whole bucket), or says what is wrong with it.
func splitArtifactURI(uri string) (bucket, prefix, problem string) {
	rest, ok := strings.CutPrefix(uri, "s3://")
	if !ok {
		return "", "", "it must start with s3://"
	}
	bucket, prefix, _ = strings.Cut(rest, "/")
	if p := cloud.BucketNameProblem(bucket); p != "" {
		return "", "", fmt.Sprintf("bucket %q: %s", errs.Clip(bucket), p)
	}
	prefix = strings.TrimSuffix(prefix, "/")
	switch {
	case len(prefix) > 900:
		return "", "", "the prefix is longer than 900 characters"
	case strings.HasPrefix(prefix, "/") || strings.Contains(prefix, "//"):
		return "", "", "the prefix has an empty folder (//)"
	case strings.ContainsFunc(prefix, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '*' || r == '?' }):
		return "", "", "the prefix has control characters or wildcards"
	case prefix == "":
		return bucket, "", ""
	}
	return bucket, prefix + "/", ""
}
