package sim

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"

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

// GetCallerIdentity reports the simulated account and the management role.
func (a *stsAPI) GetCallerIdentity(ctx context.Context, in *sts.GetCallerIdentityInput, _ ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error) {
	return call(ctx, a.w, svcSTS, "", "GetCallerIdentity", func(t *txn) (*sts.GetCallerIdentityOutput, error) {
		return &sts.GetCallerIdentityOutput{
			Account: aws.String(t.account()),
			Arn:     aws.String(t.callerArn()),
			UserId:  aws.String("AROA" + t.w.account + "SIM:instantstart"),
		}, nil
	})
}
