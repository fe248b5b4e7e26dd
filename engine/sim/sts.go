package sim

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"

	"github.com/instantstart/instantstart/engine/cloud"
)

// ManagementRoleName is the role the control plane runs as in the simulated
// account; STS GetCallerIdentity reports it, and EKS makes it the cluster
// creator.
const ManagementRoleName = "InstantStartManagement"

// stsAPI is the account-wide view of the simulated STS.
type stsAPI struct{ w *World }

var _ cloud.STS = (*stsAPI)(nil)

// callerArn is the ARN of the principal the control plane runs as.
func (t *txn) callerArn() string {
	return fmt.Sprintf("arn:aws:iam::%s:role/%s", t.account(), ManagementRoleName)
}

// GetCallerIdentity reports the simulated account and the management role,
// or, for a call signed with a role session's credentials (AssumeRole's),
// that session.
func (a *stsAPI) GetCallerIdentity(ctx context.Context, in *sts.GetCallerIdentityInput, _ ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error) {
	key := cloud.AccessKeyID(ctx)
	return call(ctx, a.w, svcSTS, "", "GetCallerIdentity", func(t *txn) (*sts.GetCallerIdentityOutput, error) {
		if s := t.st.Sessions[key]; s != nil {
			if !t.now.Before(s.Expires) {
				return nil, apiError("ExpiredToken", "The security token included in the request is expired")
			}
			return &sts.GetCallerIdentityOutput{
				Account: aws.String(t.account()),
				Arn:     aws.String(s.arn(t.account())),
				UserId:  aws.String(s.RoleID + ":" + s.SessionName),
			}, nil
		}
		return &sts.GetCallerIdentityOutput{
			Account: aws.String(t.account()),
			Arn:     aws.String(t.callerArn()),
			UserId:  aws.String("AROA" + t.w.account + "SIM:instantstart"),
		}, nil
	})
}

// stsSessionRec is a role session AssumeRole made; its temporary
// credentials' access key id names it. The wire endpoint checks no
// signatures, so the secret is not kept.
type stsSessionRec struct {
	RoleName    string
	RoleID      string
	SessionName string
	Expires     time.Time
}

func (s *stsSessionRec) arn(account string) string {
	return fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", account, s.RoleName, s.SessionName)
}

var sessionNamePattern = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)

const keyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// AssumeRole makes temporary credentials for a role of the account: calls
// signed with them are the role's session (GetCallerIdentity says so, and
// an EKS token presigned with them authenticates as the role). The role's
// trust policy is not evaluated: every caller of the simulated account
// may assume its roles. Served on the wire endpoint, not a port of the
// engine, which never assumes roles.
func (a *stsAPI) AssumeRole(ctx context.Context, in *sts.AssumeRoleInput, _ ...func(*sts.Options)) (*sts.AssumeRoleOutput, error) {
	return call(ctx, a.w, svcSTS, "", "AssumeRole", func(t *txn) (*sts.AssumeRoleOutput, error) {
		in := orZero(in)
		if err := need("AssumeRoleInput", param{"RoleArn", in.RoleArn != nil}, param{"RoleSessionName", in.RoleSessionName != nil}); err != nil {
			return nil, err
		}
		if !sessionNamePattern.MatchString(*in.RoleSessionName) {
			return nil, apiError("ValidationError", "1 validation error detected: Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*, length 2-64", *in.RoleSessionName)
		}
		r := t.roleByArn(*in.RoleArn)
		if r == nil {
			return nil, apiError("AccessDenied", "User: %s is not authorized to perform: sts:AssumeRole on resource: %s", t.callerArn(), *in.RoleArn)
		}
		d := time.Duration(aws.ToInt32(in.DurationSeconds)) * time.Second
		if d == 0 {
			d = time.Hour
		}
		if limit := time.Duration(max(r.MaxSession, 3600)) * time.Second; d < 15*time.Minute || d > limit {
			return nil, apiError("ValidationError", "The requested DurationSeconds exceeds the MaxSessionDuration set for this role, or is under 900 seconds.")
		}
		if t.st.Sessions == nil {
			t.st.Sessions = map[string]*stsSessionRec{}
		}
		// Forget expired sessions: the map holds only live ones.
		for k, s := range t.st.Sessions {
			if !t.now.Before(s.Expires) {
				delete(t.st.Sessions, k)
			}
		}
		key := "ASIA" + t.drawString(keyAlphabet, 16)
		s := &stsSessionRec{RoleName: r.Name, RoleID: r.ID, SessionName: *in.RoleSessionName, Expires: t.now.Add(d)}
		t.st.Sessions[key] = s
		return &sts.AssumeRoleOutput{
			Credentials: &ststypes.Credentials{
				AccessKeyId: aws.String(key), SecretAccessKey: aws.String(t.drawString(keyAlphabet+strings.ToLower(keyAlphabet), 40)),
				SessionToken: aws.String(t.drawString(keyAlphabet, 64)), Expiration: aws.Time(s.Expires),
			},
			AssumedRoleUser: &ststypes.AssumedRoleUser{Arn: aws.String(s.arn(t.account())), AssumedRoleId: aws.String(s.RoleID + ":" + s.SessionName)},
		}, nil
	})
}
