package sim

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// hpMaxEvents is how many events a cluster keeps; older ones are dropped.
const hpMaxEvents = 1000

// hpEventRec is one cluster event: a transition of the cluster, of an
// instance group or of a node, a fault, a recovery.
type hpEventRec struct {
	ID          string
	At          time.Time
	Level       smtypes.ClusterEventLevel
	Resource    smtypes.ClusterEventResourceType
	Group       string `json:",omitempty"`
	InstanceID  string `json:",omitempty"`
	LogicalID   string `json:",omitempty"`
	Description string
}

// event records an event of c at at.
func (t *txn) event(c *hpClusterRec, e hpEventRec) {
	e.ID = t.uuid()
	c.Events = append(c.Events, e)
	if extra := len(c.Events) - hpMaxEvents; extra > 0 {
		c.Events = append(c.Events[:0:0], c.Events[extra:]...)
	}
}

func (t *txn) clusterEvent(c *hpClusterRec, at time.Time, level smtypes.ClusterEventLevel, format string, args ...any) {
	t.event(c, hpEventRec{At: at, Level: level, Resource: smtypes.ClusterEventResourceTypeCluster, Description: fmt.Sprintf(format, args...)})
}

func (t *txn) groupEvent(c *hpClusterRec, g *hpGroupRec, at time.Time, level smtypes.ClusterEventLevel, format string, args ...any) {
	t.event(c, hpEventRec{At: at, Level: level, Resource: smtypes.ClusterEventResourceTypeInstanceGroup, Group: g.Name, Description: fmt.Sprintf(format, args...)})
}

func (t *txn) nodeEvent(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time, level smtypes.ClusterEventLevel, format string, args ...any) {
	t.event(c, hpEventRec{
		At: at, Level: level, Resource: smtypes.ClusterEventResourceTypeInstance, Group: g.Name, InstanceID: n.InstanceID, LogicalID: n.LogicalID,
		Description: fmt.Sprintf(format, args...),
	})
}

// ListClusterEvents lists a cluster's events, newest first unless asked
// otherwise. As in HyperPod, only clusters with Continuous provisioning
// have events.
func (a *sageMakerAPI) ListClusterEvents(ctx context.Context, in *sagemaker.ListClusterEventsInput, _ ...func(*sagemaker.Options)) (*sagemaker.ListClusterEventsOutput, error) {
	return hpCall(ctx, a, "ListClusterEvents", func(t *txn) (*sagemaker.ListClusterEventsOutput, error) {
		in := orZero(in)
		if err := need("ListClusterEventsInput", param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		if in.MaxResults != nil && (*in.MaxResults < 1 || *in.MaxResults > 100) {
			return nil, sageMakerValidation("Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and 100", *in.MaxResults)
		}
		if in.ResourceType != "" && !validEnum(in.ResourceType) {
			return nil, sageMakerValidation("Value '%s' at 'resourceType' failed to satisfy constraint: Member must satisfy enum value set: %v", in.ResourceType, in.ResourceType.Values())
		}
		if in.SortBy != "" && in.SortBy != smtypes.EventSortByEventTime {
			return nil, sageMakerValidation("Value '%s' at 'sortBy' failed to satisfy constraint: Member must satisfy enum value set: [EventTime]", in.SortBy)
		}
		c, err := t.hpCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		if !c.continuous() {
			return nil, sageMakerValidation("Cluster %s does not use NodeProvisioningMode Continuous; cluster events are available only with Continuous provisioning.", c.Name)
		}
		var all []smtypes.ClusterEventSummary
		for _, e := range c.Events {
			if !eventMatches(e, in) {
				continue
			}
			all = append(all, smtypes.ClusterEventSummary{
				ClusterArn: aws.String(c.Arn), ClusterName: aws.String(c.Name), EventId: aws.String(e.ID), EventTime: aws.Time(e.At),
				ResourceType: e.Resource, EventLevel: e.Level, Description: aws.String(e.Description),
				InstanceGroupName: optString(e.Group), InstanceId: optString(e.InstanceID),
			})
		}
		sort.SliceStable(all, func(i, j int) bool {
			if in.SortOrder == smtypes.SortOrderAscending {
				return all[i].EventTime.Before(*all[j].EventTime)
			}
			return all[j].EventTime.Before(*all[i].EventTime)
		})
		items, next, err := page(all, in.NextToken, t.pageSize(svcSageMaker, "ListClusterEvents", in.MaxResults), 100)
		if err != nil {
			return nil, sageMakerValidation("The NextToken %q is invalid.", aws.ToString(in.NextToken))
		}
		return &sagemaker.ListClusterEventsOutput{Events: items, NextToken: next}, nil
	})
}

// eventMatches applies ListClusterEvents' filters. The simulator has no
// cluster operations, so an OperationId matches nothing.
func eventMatches(e hpEventRec, in *sagemaker.ListClusterEventsInput) bool {
	switch {
	case in.EventTimeAfter != nil && !e.At.After(*in.EventTimeAfter),
		in.EventTimeBefore != nil && !e.At.Before(*in.EventTimeBefore),
		in.InstanceGroupName != nil && e.Group != *in.InstanceGroupName,
		in.NodeId != nil && e.InstanceID != *in.NodeId,
		in.ResourceType != "" && e.Resource != in.ResourceType,
		in.OperationId != nil:
		return false
	}
	return true
}

// DescribeClusterEvent describes one event of a cluster.
func (a *sageMakerAPI) DescribeClusterEvent(ctx context.Context, in *sagemaker.DescribeClusterEventInput, _ ...func(*sagemaker.Options)) (*sagemaker.DescribeClusterEventOutput, error) {
	return hpCall(ctx, a, "DescribeClusterEvent", func(t *txn) (*sagemaker.DescribeClusterEventOutput, error) {
		in := orZero(in)
		if err := need("DescribeClusterEventInput", param{"ClusterName", in.ClusterName != nil}, param{"EventId", in.EventId != nil}); err != nil {
			return nil, err
		}
		c, err := t.hpCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		for _, e := range c.Events {
			if e.ID != *in.EventId {
				continue
			}
			d := &smtypes.ClusterEventDetail{
				ClusterArn: aws.String(c.Arn), ClusterName: aws.String(c.Name), EventId: aws.String(e.ID), EventTime: aws.Time(e.At),
				ResourceType: e.Resource, EventLevel: e.Level, Description: aws.String(e.Description),
				InstanceGroupName: optString(e.Group), InstanceId: optString(e.InstanceID),
			}
			if e.LogicalID != "" {
				d.EventDetails = &smtypes.EventDetails{EventMetadata: &smtypes.EventMetadataMemberInstance{Value: smtypes.InstanceMetadata{NodeLogicalId: aws.String(e.LogicalID)}}}
			}
			return &sagemaker.DescribeClusterEventOutput{EventDetails: d}, nil
		}
		return nil, &smtypes.ResourceNotFound{Message: aws.String(fmt.Sprintf("Resource Not Found: Event %s of cluster %s not found.", *in.EventId, c.Name))}
	})
}

// optString is nil for "", as optional output fields are.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

// validEnum tells whether v is one of its SDK enum's values.
func validEnum[E interface {
	~string
	Values() []E
}](v E) bool {
	for _, x := range v.Values() {
		if x == v {
			return true
		}
	}
	return false
}
