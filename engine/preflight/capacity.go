package preflight

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/capacity"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// Quota is the account's HyperPod quota on an instance type in a region.
type Quota struct {
	InstanceType, Region, Name string
	Limit                      *float64 // nil when Service Quotas reports none
	InUse                      int
	Available                  *int
}

// InstanceQuota reads the quota on instanceType and what the region's
// HyperPod clusters use of it: the numbers creating and scaling check.
func (s *Service) InstanceQuota(ctx context.Context, region, instanceType string) (*Quota, error) {
	p, err := s.provider(region)
	if err != nil {
		return nil, err
	}
	if len(instanceType) < 4 || instanceType[:3] != "ml." {
		return nil, errs.Field("instanceType", "instance type %q is not a HyperPod type: use the ml. form, for example ml.p5.48xlarge", instanceType)
	}
	quotas, err := capacity.Quotas(ctx, p)
	if err != nil {
		return nil, err
	}
	used, err := capacity.Usage(ctx, p)
	if err != nil {
		return nil, err
	}
	q := &Quota{InstanceType: instanceType, Region: p.Region, Name: capacity.QuotaName(instanceType), InUse: used[instanceType]}
	if limit, ok := quotas[instanceType]; ok {
		q.Limit = &limit
		avail := max(int(limit)-q.InUse, 0)
		q.Available = &avail
	}
	return q, nil
}

// Plan is a training plan with the capacity it reserves.
type Plan struct {
	Arn, Name, Status  string
	InstanceType, Zone string
	Total, Available   int
	StartTime, EndTime *time.Time
}

// TrainingPlans lists the account's training plans in region.
func (s *Service) TrainingPlans(ctx context.Context, region string) ([]Plan, error) {
	p, err := s.provider(region)
	if err != nil {
		return nil, err
	}
	var out []Plan
	var token *string
	for range cloud.MaxPages {
		page, err := p.SageMaker.ListTrainingPlans(ctx, &sagemaker.ListTrainingPlansInput{NextToken: token})
		if err != nil {
			return nil, errs.FromUpstream(err, "list training plans")
		}
		for _, t := range page.TrainingPlanSummaries {
			pl := Plan{Arn: aws.ToString(t.TrainingPlanArn), Name: aws.ToString(t.TrainingPlanName), Status: string(t.Status),
				Total: int(aws.ToInt32(t.TotalInstanceCount)), Available: int(aws.ToInt32(t.AvailableInstanceCount)), StartTime: t.StartTime, EndTime: t.EndTime}
			if len(t.ReservedCapacitySummaries) > 0 {
				pl.InstanceType = string(t.ReservedCapacitySummaries[0].InstanceType)
				pl.Zone = aws.ToString(t.ReservedCapacitySummaries[0].AvailabilityZone)
			}
			out = append(out, pl)
		}
		if token = page.NextToken; token == nil || *token == "" {
			return out, nil
		}
	}
	return nil, cloud.TooManyPages("ListTrainingPlans")
}
