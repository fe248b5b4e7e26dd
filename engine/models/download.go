package models

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// DownloadInput asks for a model to be put in the shared bucket.
type DownloadInput struct {
	ClusterID string
	Source    Source
	// ModelID is the hub's model, org/name.
	ModelID string
	// Revision is a branch, a tag or a commit; empty means main.
	Revision string
	// Name is the folder under models/; empty means the model id's name,
	// lower-cased.
	Name string
	// Token reads a gated or private model. It goes to a Kubernetes Secret
	// and nowhere else.
	Token string
}

// downloadInput is what a DownloadModel operation stores: never the token.
type downloadInput struct {
	ModelRecordID string          `json:"modelRecordId"`
	ClusterID     string          `json:"clusterId"`
	Name          string          `json:"name"`
	ModelID       string          `json:"modelId"`
	Revision      string          `json:"revision"`
	Commit        string          `json:"commit"`
	Files         []cloud.HubFile `json:"files"`
	// Secret names the Secret that holds the token, "" for none.
	Secret string `json:"secret,omitempty"`
}

// fingerprint is a request as the client sent it, for the idempotency
// check: the token only as whether one was sent.
type fingerprint struct {
	ClusterID, Source, ModelID, Revision, Name string
	Token                                      bool
}

// Bounds of a request.
const (
	maxModelIDLength  = 96 // the hub's bound on a repository id
	maxRevisionLength = 255
	maxTokenLength    = 512
	// MaxFiles bounds a model's files: the Job's file list is an
	// environment variable, which Kubernetes bounds with the pod.
	MaxFiles = 2000
)

var (
	modelIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)
	namePattern    = regexp.MustCompile(`^[a-z0-9]([a-z0-9._-]{0,46}[a-z0-9])?$`)
)

// checkDownload refuses a malformed request, naming the field.
func checkDownload(in *DownloadInput) error {
	if in.Source != HuggingFace {
		return errs.Field("input.source", "source %q is not one this version downloads from; use HUGGING_FACE", in.Source)
	}
	if len(in.ModelID) > maxModelIDLength || !modelIDPattern.MatchString(in.ModelID) || strings.Contains(in.ModelID, "..") {
		return errs.Field("input.modelId", "model id %q is not org/name (for example Qwen/Qwen3-8B): letters, digits, '.', '_' and '-' on each side of one '/'", errs.Clip(in.ModelID))
	}
	if in.Revision == "" {
		in.Revision = "main"
	}
	if len(in.Revision) > maxRevisionLength || strings.IndexFunc(in.Revision, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return errs.Field("input.revision", "revision %q is not a branch, tag or commit id: at most %d printable characters, no spaces", errs.Clip(in.Revision), maxRevisionLength)
	}
	if in.Name == "" {
		_, name, _ := strings.Cut(in.ModelID, "/")
		in.Name = strings.Trim(strings.ToLower(name), "._-")
		if len(in.Name) > 48 {
			in.Name = strings.Trim(in.Name[:48], "._-")
		}
	}
	if !namePattern.MatchString(in.Name) {
		return errs.Field("input.name", "name %q must be 1 to 48 lower-case letters, digits, '.', '_' and '-', starting and ending with a letter or digit: it is the folder models/<name>/", errs.Clip(in.Name))
	}
	if len(in.Token) > maxTokenLength || strings.IndexFunc(in.Token, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
		return errs.Field("input.token", "the token is not a Hugging Face access token (printable ASCII, no spaces, at most %d characters); make one at huggingface.co/settings/tokens", maxTokenLength)
	}
	return nil
}

// Download puts a model in the cluster's shared bucket, under
// models/<name>/, with a Job on the cluster. The model and revision are
// checked with the hub first; the same model again is a no-op, and a name
// that holds another model is a CONFLICT. A failed or cancelled download
// of the same model is taken up again: the files already there with
// their size are not fetched again.
func (s *Service) Download(ctx context.Context, caller string, in DownloadInput, idempotencyKey string) (*ops.Operation, error) {
	if err := checkDownload(&in); err != nil {
		return nil, err
	}
	sent := fingerprint{ClusterID: in.ClusterID, Source: string(in.Source), ModelID: in.ModelID, Revision: in.Revision, Name: in.Name, Token: in.Token != ""}
	req := ops.Request{Kind: KindDownload, Target: ops.Ref{Kind: targetKind}, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: sent}
	if op, err := s.runner.Replay(req); op != nil || err != nil {
		return op, err
	}
	c, p, bucket, err := s.reachBucket(in.ClusterID, true)
	if err != nil {
		return nil, err
	}
	if err := c.RequireActive("input.clusterId", "models can be downloaded"); err != nil {
		return nil, err
	}
	model, err := hubModel(ctx, p, &in)
	if err != nil {
		return nil, err
	}
	prior, err := s.named(c.ID, in.Name)
	if err != nil {
		return nil, err
	}
	if prior != nil && (prior.ModelID != model.ID || prior.Commit != model.Commit) {
		return nil, errs.New(errs.Conflict, "models/%s/ holds %s at %s already (model %s); choose another name, or download that model", in.Name, prior.ModelID, short(prior.Commit), prior.ID).WithField("input.name")
	}
	if prior == nil {
		if used, err := folderHasObjects(ctx, p, bucket.Name, Prefix+in.Name+"/"); err != nil {
			return nil, err
		} else if used {
			return nil, errs.New(errs.Conflict, "models/%s/ in bucket %s holds files no download put there; choose another name, or move them", in.Name, bucket.Name).WithField("input.name")
		}
	}
	id := s.ids.NewID()
	if prior != nil {
		id = prior.ID
		switch prior.Status {
		case Ready:
			req.Target, req.Noop = ops.Ref{Kind: targetKind, ID: id, Name: in.Name}, true
			req.Input = downloadInput{ModelRecordID: id, ClusterID: c.ID, Name: in.Name, ModelID: model.ID, Revision: in.Revision, Commit: model.Commit}
			return s.runner.Submit(req)
		case Downloading:
			if op, err := s.runner.Get(prior.LastOperationID); err == nil && !op.Status.Terminal() {
				return op, nil
			}
		}
	}
	secret := ""
	if in.Token != "" {
		secret = s.secretName(id)
		if err := putTokenSecret(ctx, p, c, bucket.Namespace, secret, id, in.Token); err != nil {
			return nil, err
		}
	}
	stored := downloadInput{ModelRecordID: id, ClusterID: c.ID, Name: in.Name, ModelID: model.ID, Revision: in.Revision, Commit: model.Commit, Files: model.Files, Secret: secret}
	req.Target, req.Input = ops.Ref{Kind: targetKind, ID: id, Name: in.Name}, stored
	req.Prepare = func(tx *store.Tx, op *ops.Operation) error {
		m := &Model{ID: id, ClusterID: c.ID, Name: in.Name, Source: HuggingFace, ModelID: model.ID, Revision: in.Revision, Commit: model.Commit,
			Status: Downloading, FilesTotal: len(model.Files), BytesTotal: totalBytes(model.Files), Bucket: bucket.Name, Namespace: bucket.Namespace,
			LastOperationID: op.ID, CreatedAt: tx.Now(), UpdatedAt: tx.Now()}
		if prior != nil {
			m.CreatedAt, m.FilesDone, m.BytesDone = prior.CreatedAt, prior.FilesDone, prior.BytesDone
		}
		if err := tx.Put(RecordKind, id, m); err != nil {
			return err
		}
		return tx.PutIndex(nameIndex, c.ID+"/"+in.Name, id)
	}
	op, err := s.runner.Submit(req)
	switch {
	case err != nil && secret != "":
		// Nothing will read it.
		_ = deleteTokenSecret(context.WithoutCancel(ctx), p, c, bucket.Namespace, secret)
	case err == nil && prior != nil:
		// The download this one takes over from will not be retried
		// now: its token's Secret goes.
		if old, gerr := s.runner.Get(prior.LastOperationID); gerr == nil && old.Status.Terminal() {
			var was downloadInput
			if json.Unmarshal(old.Input, &was) == nil && was.Secret != "" && was.Secret != secret {
				_ = deleteTokenSecret(context.WithoutCancel(ctx), p, c, bucket.Namespace, was.Secret)
			}
		}
	}
	return op, err
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

func totalBytes(files []cloud.HubFile) int64 {
	var n int64
	for _, f := range files {
		n += f.Size
	}
	return n
}

// hubModel reads the model's files from the hub, turning its refusals
// into errors that name the field to change.
func hubModel(ctx context.Context, p *cloud.Provider, in *DownloadInput) (*cloud.HubModel, error) {
	if p.Hub == nil {
		return nil, errs.New(errs.Precondition, "this control plane reaches no model hub")
	}
	m, err := p.Hub.Model(ctx, in.ModelID, in.Revision, in.Token)
	var he *cloud.HubError
	switch {
	case errors.As(err, &he) && he.Status == 401 && in.Token == "":
		return nil, errs.New(errs.Precondition, "%s is gated or private: send a Hugging Face token (input.token) of an account that was granted access (%s)", in.ModelID, he.Message).WithField("input.token")
	case errors.As(err, &he) && he.Status == 401:
		return nil, errs.New(errs.Validation, "Hugging Face refused the token (%s); send a valid token from huggingface.co/settings/tokens", he.Message).WithField("input.token")
	case errors.As(err, &he) && he.Status == 403:
		return nil, errs.New(errs.Precondition, "the token's account is not granted %s (%s); request access on the model's page, then try again", in.ModelID, he.Message).WithField("input.token")
	case errors.As(err, &he) && he.Status == 404 && strings.Contains(he.Message, "Revision"):
		return nil, errs.New(errs.NotFound, "%s has no revision %q (%s); use a branch, a tag or a commit id of the model, such as main", in.ModelID, in.Revision, he.Message).WithField("input.revision")
	case errors.As(err, &he) && he.Status == 404:
		return nil, errs.New(errs.NotFound, "Hugging Face has no model %s (%s); check the org/name on huggingface.co (a private model needs a token)", in.ModelID, he.Message).WithField("input.modelId")
	case errors.As(err, &he):
		return nil, errs.New(errs.Upstream, "Hugging Face answered %d: %s", he.Status, he.Message)
	case err != nil:
		return nil, errs.FromUpstream(err, "read model "+in.ModelID+" from Hugging Face")
	}
	switch {
	case len(m.Files) == 0:
		return nil, errs.New(errs.Precondition, "%s at %s has no files to download", in.ModelID, in.Revision).WithField("input.revision")
	case len(m.Files) > MaxFiles:
		return nil, errs.New(errs.Precondition, "%s has %d files; a download takes at most %d", in.ModelID, len(m.Files), MaxFiles).WithField("input.modelId")
	}
	for _, f := range m.Files {
		if f.Path == "" || strings.HasPrefix(f.Path, "/") || strings.Contains(f.Path, "..") || strings.ContainsAny(f.Path, "\t\n\r") || f.Size < 0 {
			return nil, errs.New(errs.Precondition, "%s holds a file the download cannot place (%q)", in.ModelID, errs.Clip(f.Path)).WithField("input.modelId")
		}
	}
	return m, nil
}

// secretName is the Secret of a download of model record id's: each
// download its own, so that cleaning up after one never takes the next
// one's.
func (s *Service) secretName(id string) string {
	fresh := s.ids.NewID()
	return "hf-token-" + strings.ToLower(id) + "-" + strings.ToLower(fresh[len(fresh)-6:])
}

// tokenKey is the key of the token in its Secret.
const tokenKey = "token"

// putTokenSecret stores the token in the cluster, for the Job to read.
func putTokenSecret(ctx context.Context, p *cloud.Provider, c *hyperpod.Cluster, ns, name, modelID, token string) error {
	kc, err := p.KubeOf(ctx, c.EKS.Name)
	if err != nil {
		return err
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{managedBy: "instantstart", modelLabel: modelID}},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{tokenKey: []byte(token)}}
	secrets := kc.Core.CoreV1().Secrets(ns)
	_, err = secrets.Create(ctx, secret, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = secrets.Update(ctx, secret, metav1.UpdateOptions{})
	}
	if err != nil {
		// The API's message names the object, not its data.
		return errs.Wrap(errs.Upstream, err, "store the token in Secret %s/%s: %v", ns, name, err)
	}
	return nil
}

func deleteTokenSecret(ctx context.Context, p *cloud.Provider, c *hyperpod.Cluster, ns, name string) error {
	kc, err := p.KubeOf(ctx, c.EKS.Name)
	if err != nil {
		return err
	}
	if err := kc.Core.CoreV1().Secrets(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return errs.Wrap(errs.Upstream, err, "delete Secret %s/%s: %v", ns, name, err)
	}
	return nil
}

// Labels of what a download makes.
const (
	managedBy  = "app.kubernetes.io/managed-by"
	modelLabel = "instantstart.io/model"
)
