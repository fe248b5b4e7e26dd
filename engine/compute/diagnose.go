package compute

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// Next steps of a diagnosis, in the order of escalation.
const (
	StepNone    = "NONE"
	StepInspect = "INSPECT"
	StepReboot  = "REBOOT"
	StepReplace = "REPLACE"
)

// NodeEvent is a cluster event about a node.
type NodeEvent struct {
	Time        time.Time
	Level       string
	Description string
}

// Diagnosis is the evidence about a node and the next step it calls for.
type Diagnosis struct {
	Node         *Node
	AutoRecovery bool
	FailedChecks []string
	Events       []NodeEvent // newest first
	Findings     []string
	NextStep     string
	Reason       string
}

// diagnosisWindow is how far back a diagnosis reads the cluster's events.
const diagnosisWindow = 24 * time.Hour

// diagnosisEvents is how many of the newest events a diagnosis reads.
const diagnosisEvents = 20

// Diagnose gathers what is known of node id (its status, health label, deep
// health checks and the cluster's recent events about it) and names the next
// step in the escalation inspect, reboot, replace. It changes nothing.
func (s *Service) Diagnose(ctx context.Context, id string) (*Diagnosis, error) {
	n, err := s.Node(id)
	if err != nil {
		return nil, err
	}
	c, err := s.clusters.Get(n.ClusterID)
	if err != nil {
		return nil, err
	}
	t, err := s.read(ctx, c)
	if err != nil {
		return nil, err
	}
	p, hp := t.p, t.hyperPod
	d := &Diagnosis{Node: n, AutoRecovery: hp.NodeRecovery == smtypes.ClusterNodeRecoveryAutomatic}
	// The newest diagnosisEvents events, however the service pages them.
	in := &sagemaker.ListClusterEventsInput{
		ClusterName: aws.String(c.HyperPod.Name), NodeId: aws.String(n.ID), EventTimeAfter: aws.Time(time.Now().Add(-diagnosisWindow)),
		SortOrder: smtypes.SortOrderDescending, MaxResults: aws.Int32(diagnosisEvents),
	}
	err = cloud.Pages("ListClusterEvents", func(token *string) (*string, error) {
		in.NextToken = token
		out, err := p.SageMaker.ListClusterEvents(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, e := range out.Events {
			if len(d.Events) == diagnosisEvents {
				return nil, cloud.StopPages
			}
			d.Events = append(d.Events, NodeEvent{Time: aws.ToTime(e.EventTime), Level: string(e.EventLevel), Description: aws.ToString(e.Description)})
		}
		if len(d.Events) == diagnosisEvents {
			return nil, cloud.StopPages
		}
		return out.NextToken, nil
	})
	if err != nil {
		return nil, errs.FromUpstream(err, "read the cluster's events about "+n.ID)
	}
	if n.DeepHealthCheck == DeepCheckFailed {
		group, _ := s.Group(n.GroupID)
		if group != nil && len(group.DeepHealthChecks) > 0 {
			d.FailedChecks = group.DeepHealthChecks
		} else {
			d.FailedChecks = []string{"deep health check"}
		}
	}
	decide(d)
	return d, nil
}

// decide names the next step from the evidence.
func decide(d *Diagnosis) {
	n := d.Node
	add := func(format string, args ...any) { d.Findings = append(d.Findings, fmt.Sprintf(format, args...)) }
	add("instance %s (%s, group %s, %s) is %s", n.ID, n.InstanceType, n.GroupName, n.Zone, n.Status)
	if n.StatusMessage != "" {
		add("SageMaker says: %s", n.StatusMessage)
	}
	add("Kubernetes health label: %s", n.Health)
	if n.DeepHealthCheck != DeepCheckNone {
		add("deep health check: %s", n.DeepHealthCheck)
	}
	if d.AutoRecovery {
		add("node auto-recovery is on: HyperPod reboots or replaces faulty nodes itself")
	} else {
		add("node auto-recovery is off: a faulty node stays out of service until someone reboots or replaces it")
	}
	rebooted := false
	for _, e := range d.Events {
		if strings.Contains(strings.ToLower(e.Description), "reboot") {
			rebooted = true
		}
		if e.Level != "Info" {
			add("%s %s: %s", e.Time.Format(time.RFC3339), e.Level, e.Description)
		}
	}
	switch {
	case n.Healthy():
		d.NextStep, d.Reason = StepNone, "the node is running and schedulable; nothing to do"
	case n.Status == "PENDING" || n.Status == nodeStatusDeepHealthChecks || n.Status == "SYSTEM_UPDATING":
		d.NextStep, d.Reason = StepInspect, "the node is starting, checking or updating; look again in a few minutes before acting"
	case n.Status == "SHUTTING_DOWN":
		d.NextStep, d.Reason = StepInspect, "the node is being deleted or replaced; its replacement appears in the node list"
	case n.DeepHealthCheck == DeepCheckFailed || n.Status == "FAILURE":
		d.NextStep, d.Reason = StepReplace, "the instance failed (a failed deep health check points to faulty hardware); replace it with replaceNodes, which destroys its volumes"
	case n.Health == HealthPendingReplacement:
		d.NextStep, d.Reason = StepReplace, "HyperPod marked the node for replacement"
		if d.AutoRecovery {
			d.NextStep, d.Reason = StepInspect, "HyperPod marked the node for replacement and auto-recovery will replace it; look again in a few minutes, and replace it yourself only if it stays marked"
		}
	case n.Health == HealthPendingReboot:
		d.NextStep, d.Reason = StepReboot, "HyperPod marked the node for a reboot"
		if d.AutoRecovery {
			d.NextStep, d.Reason = StepInspect, "HyperPod marked the node for a reboot and auto-recovery will reboot it; look again in a few minutes, and reboot it yourself only if it stays marked"
		}
	case n.Health == HealthUnschedulable && rebooted:
		d.NextStep, d.Reason = StepReplace, "the node is still unschedulable after a reboot; replace it with replaceNodes"
	case n.Health == HealthUnschedulable:
		d.NextStep, d.Reason = StepReboot, "the node is unschedulable and has not been rebooted recently; reboot it with rebootNodes first, and replace it if the fault persists"
	default:
		d.NextStep, d.Reason = StepInspect, "Kubernetes does not report the node's health yet; check that the node joined the cluster and look again"
	}
}
