package compute

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/capacity"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

// AddInput asks for a new instance group.
type AddInput struct {
	ClusterID string `json:"clusterId"`
	hyperpod.GroupSpec
}

// plan is a training plan as a group needs it.
type plan struct {
	InstanceType string
	Zone         string
	Available    int
}

// trainingPlan reads the plan arn and checks the group against it: the plan
// fixes the instance type and zone, and bounds the count.
func trainingPlan(ctx context.Context, p *cloud.Provider, arn string) (*plan, error) {
	name := arn
	if i := strings.LastIndex(arn, "/"); i >= 0 {
		name = arn[i+1:]
	}
	out, err := p.SageMaker.DescribeTrainingPlan(ctx, &sagemaker.DescribeTrainingPlanInput{TrainingPlanName: aws.String(name)})
	if errs.IsNotFound(err) {
		return nil, errs.New(errs.Precondition, "training plan %s does not exist in %s: list the region's plans with the trainingPlans query", arn, p.Region).WithField("input.trainingPlanArn")
	}
	if err != nil {
		return nil, errs.FromUpstream(err, "read training plan "+arn)
	}
	if aws.ToString(out.TrainingPlanArn) != arn {
		return nil, errs.New(errs.Precondition, "training plan %s does not exist in %s (a plan of that name has ARN %s)", arn, p.Region, aws.ToString(out.TrainingPlanArn)).WithField("input.trainingPlanArn")
	}
	if string(out.Status) != "Active" && string(out.Status) != "Scheduled" {
		return nil, errs.New(errs.Precondition, "training plan %s is %s: only an Active or Scheduled plan can take instance groups", arn, out.Status).WithField("input.trainingPlanArn")
	}
	pl := &plan{Available: int(aws.ToInt32(out.AvailableInstanceCount))}
	for _, r := range out.ReservedCapacitySummaries {
		if pl.InstanceType == "" {
			pl.InstanceType = string(r.InstanceType)
			pl.Zone = aws.ToString(r.AvailabilityZone)
		}
	}
	return pl, nil
}

// checkPlacement settles the group's zone and checks it, the instance types
// offered there, the training plan, and the quota. extra is how many more
// instances the request adds.
func (s *Service) checkPlacement(ctx context.Context, p *cloud.Provider, c *hyperpod.Cluster, g *hyperpod.GroupSpec, extra int) error {
	if g.CapacityType == hyperpod.TrainingPlan {
		pl, err := trainingPlan(ctx, p, g.TrainingPlanArn)
		if err != nil {
			return err
		}
		if g.Zone != "" && pl.Zone != "" && g.Zone != pl.Zone {
			return errs.New(errs.Precondition, "training plan %s reserves capacity in %s, not %s: leave the zone out or use %s", g.TrainingPlanArn, pl.Zone, g.Zone, pl.Zone).WithField("input.zone")
		}
		if pl.InstanceType != "" && g.InstanceTypes[0] != pl.InstanceType {
			return errs.New(errs.Precondition, "training plan %s reserves %s, not %s: use the plan's instance type", g.TrainingPlanArn, pl.InstanceType, g.InstanceTypes[0]).WithField("input.instanceType")
		}
		if extra > pl.Available {
			return errs.New(errs.Precondition, "training plan %s has %d instances left, and this asks for %d: lower the count or use another plan", g.TrainingPlanArn, pl.Available, extra).WithField("input.count")
		}
		g.Zone = pl.Zone
	}
	if g.Zone == "" && len(c.Zones) > 0 {
		g.Zone = c.Zones[0]
	}
	if !slices.Contains(c.Zones, g.Zone) {
		return errs.New(errs.Precondition, "zone %q is not one of cluster %s's zones (%s): choose one of those", g.Zone, c.Name, strings.Join(c.Zones, ", ")).WithField("input.zone")
	}
	var demands []capacity.Demand
	for i, t := range g.InstanceTypes {
		d := capacity.Demand{Field: "input", Group: g.Name, InstanceType: t, Zone: g.Zone}
		if i == 0 {
			d.Count = extra // a flexible group runs its first type when it can
		}
		demands = append(demands, d)
	}
	if err := capacity.CheckOfferings(ctx, p, demands); err != nil {
		return err
	}
	if g.CapacityType == hyperpod.TrainingPlan || extra <= 0 {
		return nil // the plan's capacity is reserved, not drawn from the quota
	}
	inUse, err := capacity.Usage(ctx, p)
	if err != nil {
		return err
	}
	return capacity.CheckQuotas(ctx, p, demands[:1], inUse)
}

// immutable refuses a sent value of the field name that differs from the
// group's actual one.
func immutable(group, name string, sent *string, actual string) error {
	if sent == nil || *sent == actual {
		return nil
	}
	return errs.New(errs.ImmutableField, "the %s of instance group %s is %s and cannot change for the group's lifetime; to use %s, add a new group and delete this one",
		name, group, actualOr(actual), *sent).WithField("input." + name)
}

func actualOr(v string) string {
	if v == "" {
		return "unset"
	}
	return v
}
