package sim

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// trainingPlanDays is how long each simulated training plan reserves its
// capacity, from the region's first use of plans.
const trainingPlanDays = 90

// trainingPlan is a training plan of the region's catalog: reserved
// capacity of one instance type in one zone, for HyperPod clusters.
type trainingPlan struct {
	Name, Arn    string
	InstanceType string // SageMaker name
	Zone         Zone
	Total        int32
	Start, End   time.Time
}

// trainingPlans returns the region's plans: 8 ml.p5.48xlarge, and 8
// ml.trn1.32xlarge (or, where the region has no trn1, 8 ml.p4d.24xlarge),
// each in the first zone that offers its type. Their term starts the first
// time a call looks at them.
func (t *txn) trainingPlans() []trainingPlan {
	if t.rs.TrainingPlansFrom == nil {
		from := t.now.Truncate(time.Hour).Add(-time.Hour)
		t.rs.TrainingPlansFrom = &from
	}
	start := *t.rs.TrainingPlansFrom
	region, _ := t.w.catalog.region(t.region)
	var plans []trainingPlan
	add := func(name, typ string) bool {
		for _, z := range region.Zones {
			if t.w.catalog.offered(t.region, z.Name, typ) {
				plans = append(plans, trainingPlan{
					Name: name, Arn: fmt.Sprintf("arn:aws:sagemaker:%s:%s:training-plan/%s", t.region, t.account(), name),
					InstanceType: typ, Zone: z, Total: 8, Start: start, End: start.AddDate(0, 0, trainingPlanDays),
				})
				return true
			}
		}
		return false
	}
	add("hyperpod-p5-reserved", "ml.p5.48xlarge")
	if !add("hyperpod-trn1-reserved", "ml.trn1.32xlarge") {
		add("hyperpod-p4d-reserved", "ml.p4d.24xlarge")
	}
	return plans
}

func (t *txn) trainingPlanByArn(arn string) (trainingPlan, bool) {
	for _, p := range t.trainingPlans() {
		if p.Arn == arn {
			return p, true
		}
	}
	return trainingPlan{}, false
}

func (t *txn) planStatus(p trainingPlan) smtypes.TrainingPlanStatus {
	switch {
	case t.now.Before(p.Start):
		return smtypes.TrainingPlanStatusScheduled
	case t.now.Before(p.End):
		return smtypes.TrainingPlanStatusActive
	}
	return smtypes.TrainingPlanStatusExpired
}

// planInUse counts the instances the region's groups reserve on plan arn
// (their target counts), leaving out the groups in except.
func (t *txn) planInUse(arn string, except []*hpGroupRec) int32 {
	var n int32
	for _, c := range t.rs.HyperPod {
		if !c.alive() {
			continue
		}
		for _, g := range c.Groups {
			if !slices.Contains(except, g) && !g.Deleting && g.TrainingPlanArn == arn {
				n += g.Count
			}
		}
	}
	return n
}

// hpPlanPlacement checks a group on a training plan against the plan and
// places it in the plan's zone.
func (t *txn) hpPlanPlacement(g *hpGroupRec, subnets []string) error {
	p, ok := t.trainingPlanByArn(g.TrainingPlanArn)
	switch {
	case !ok:
		return sageMakerValidation("Training plan %s of instance group %s does not exist in %s. ListTrainingPlans lists the plans you can use.", g.TrainingPlanArn, g.Name, t.region)
	case t.planStatus(p) != smtypes.TrainingPlanStatusActive:
		return sageMakerValidation("Training plan %s is %s; instance group %s needs an Active plan.", p.Name, t.planStatus(p), g.Name)
	case g.InstanceType != "" && g.InstanceType != p.InstanceType:
		return sageMakerValidation("Training plan %s reserves %s, but instance group %s asks for %s. Set InstanceType to %s.", p.Name, p.InstanceType, g.Name, g.InstanceType, p.InstanceType)
	}
	g.InstanceType = p.InstanceType
	for _, id := range subnets {
		if s := t.rs.Subnets[id]; s.Zone == p.Zone.Name {
			g.SubnetID, g.Zone = s.ID, s.Zone
			return nil
		}
	}
	return sageMakerValidation("Training plan %s reserves capacity in %s, but the subnets of instance group %s are in %v. Give the group a subnet in %s (OverrideVpcConfig).",
		p.Name, p.Zone.Name, g.Name, t.subnetZones(subnets), p.Zone.Name)
}

// hpPlanCount checks that a group's target count fits in its plan, next to
// the plan's other groups: those of the region's clusters but replaced
// (the current records of the groups a request updates), and siblings (the
// groups of the same request checked before it).
func (t *txn) hpPlanCount(g *hpGroupRec, replaced, siblings []*hpGroupRec) error {
	if g.TrainingPlanArn == "" {
		return nil
	}
	p, _ := t.trainingPlanByArn(g.TrainingPlanArn)
	available := p.Total - t.planInUse(p.Arn, replaced)
	for _, s := range siblings {
		if s.TrainingPlanArn == p.Arn {
			available -= s.Count
		}
	}
	if g.Count > available {
		return sageMakerValidation("Training plan %s has %d of its %d instances available, but instance group %s asks for %d. Lower InstanceCount to at most %d, or use another plan.",
			p.Name, max(available, 0), p.Total, g.Name, g.Count, max(available, 0))
	}
	return nil
}

func (t *txn) planSummary(p trainingPlan) smtypes.TrainingPlanSummary {
	inUse := t.planInUse(p.Arn, nil)
	hours := int64(p.End.Sub(p.Start) / time.Hour)
	status := t.planStatus(p)
	return smtypes.TrainingPlanSummary{
		TrainingPlanArn: aws.String(p.Arn), TrainingPlanName: aws.String(p.Name), Status: status,
		StartTime: aws.Time(p.Start), EndTime: aws.Time(p.End), DurationHours: aws.Int64(hours), DurationMinutes: aws.Int64(0),
		TotalInstanceCount: aws.Int32(p.Total), InUseInstanceCount: aws.Int32(inUse), AvailableInstanceCount: aws.Int32(p.Total - inUse),
		TargetResources: []smtypes.SageMakerResourceName{smtypes.SageMakerResourceNameHyperpodCluster},
		ReservedCapacitySummaries: []smtypes.ReservedCapacitySummary{{
			ReservedCapacityArn:  aws.String(fmt.Sprintf("arn:aws:sagemaker:%s:%s:reserved-capacity/%s-rc", t.region, t.account(), p.Name)),
			InstanceType:         smtypes.ReservedCapacityInstanceType(p.InstanceType),
			TotalInstanceCount:   aws.Int32(p.Total),
			Status:               smtypes.ReservedCapacityStatus(status),
			AvailabilityZone:     aws.String(p.Zone.Name),
			AvailabilityZoneId:   aws.String(p.Zone.ID),
			DurationHours:        aws.Int64(hours),
			DurationMinutes:      aws.Int64(0),
			StartTime:            aws.Time(p.Start),
			EndTime:              aws.Time(p.End),
			ReservedCapacityType: smtypes.ReservedCapacityTypeInstance,
		}},
	}
}

// ListTrainingPlans lists the region's training plans, filtered by status
// and start time, sorted as asked (by name by default).
func (a *sageMakerAPI) ListTrainingPlans(ctx context.Context, in *sagemaker.ListTrainingPlansInput, _ ...func(*sagemaker.Options)) (*sagemaker.ListTrainingPlansOutput, error) {
	return hpCall(ctx, a, "ListTrainingPlans", func(t *txn) (*sagemaker.ListTrainingPlansOutput, error) {
		in := orZero(in)
		var params []param
		for i, f := range in.Filters {
			params = append(params, param{fmt.Sprintf("Filters[%d].Name", i), f.Name != ""}, param{fmt.Sprintf("Filters[%d].Value", i), f.Value != nil})
		}
		if err := need("ListTrainingPlansInput", params...); err != nil {
			return nil, err
		}
		if in.MaxResults != nil && (*in.MaxResults < 1 || *in.MaxResults > 100) {
			return nil, sageMakerValidation("Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and 100", *in.MaxResults)
		}
		var all []smtypes.TrainingPlanSummary
		for _, p := range t.trainingPlans() {
			s := t.planSummary(p)
			if planMatches(s, in) {
				all = append(all, s)
			}
		}
		sortPlans(all, in.SortBy, in.SortOrder)
		items, next, err := page(all, in.NextToken, t.pageSize(svcSageMaker, "ListTrainingPlans", in.MaxResults), 100)
		if err != nil {
			return nil, sageMakerValidation("The NextToken %q is invalid.", aws.ToString(in.NextToken))
		}
		return &sagemaker.ListTrainingPlansOutput{TrainingPlanSummaries: items, NextToken: next}, nil
	})
}

func planMatches(s smtypes.TrainingPlanSummary, in *sagemaker.ListTrainingPlansInput) bool {
	if (in.StartTimeAfter != nil && !s.StartTime.After(*in.StartTimeAfter)) || (in.StartTimeBefore != nil && !s.StartTime.Before(*in.StartTimeBefore)) {
		return false
	}
	for _, f := range in.Filters {
		if f.Name == smtypes.TrainingPlanFilterNameStatus && !strings.EqualFold(string(s.Status), *f.Value) {
			return false
		}
	}
	return true
}

func sortPlans(plans []smtypes.TrainingPlanSummary, by smtypes.TrainingPlanSortBy, order smtypes.TrainingPlanSortOrder) {
	key := func(s smtypes.TrainingPlanSummary) string {
		switch by {
		case smtypes.TrainingPlanSortByStartTime:
			return s.StartTime.UTC().Format(time.RFC3339Nano) + *s.TrainingPlanName
		case smtypes.TrainingPlanSortByStatus:
			return string(s.Status) + "/" + *s.TrainingPlanName
		}
		return *s.TrainingPlanName
	}
	sort.SliceStable(plans, func(i, j int) bool {
		if order == smtypes.TrainingPlanSortOrderDescending {
			return key(plans[j]) < key(plans[i])
		}
		return key(plans[i]) < key(plans[j])
	})
}

// DescribeTrainingPlan describes a training plan by name.
func (a *sageMakerAPI) DescribeTrainingPlan(ctx context.Context, in *sagemaker.DescribeTrainingPlanInput, _ ...func(*sagemaker.Options)) (*sagemaker.DescribeTrainingPlanOutput, error) {
	return hpCall(ctx, a, "DescribeTrainingPlan", func(t *txn) (*sagemaker.DescribeTrainingPlanOutput, error) {
		in := orZero(in)
		if err := need("DescribeTrainingPlanInput", param{"TrainingPlanName", in.TrainingPlanName != nil}); err != nil {
			return nil, err
		}
		for _, p := range t.trainingPlans() {
			if p.Name != *in.TrainingPlanName {
				continue
			}
			s := t.planSummary(p)
			return &sagemaker.DescribeTrainingPlanOutput{
				TrainingPlanArn: s.TrainingPlanArn, TrainingPlanName: s.TrainingPlanName, Status: s.Status,
				StartTime: s.StartTime, EndTime: s.EndTime, DurationHours: s.DurationHours, DurationMinutes: s.DurationMinutes,
				TotalInstanceCount: s.TotalInstanceCount, InUseInstanceCount: s.InUseInstanceCount, AvailableInstanceCount: s.AvailableInstanceCount,
				TargetResources: s.TargetResources, ReservedCapacitySummaries: s.ReservedCapacitySummaries,
			}, nil
		}
		return nil, &smtypes.ResourceNotFound{Message: aws.String(fmt.Sprintf("Resource Not Found: Training plan %s not found in %s.", *in.TrainingPlanName, t.region))}
	})
}
