package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// Limits of BatchAddClusterNodes.
const (
	hpAddTokenLife = 8 * time.Hour // a client token's life, divided by the speed
	hpMaxAddGroups = 5             // instance groups per call
	hpMaxAddNodes  = 50            // nodes per call, across its groups
)

// hpAddRequestRec is a BatchAddClusterNodes call made with a client token:
// a retry with the same token and request within hpAddTokenLife gets the
// same nodes back, with their latest status.
type hpAddRequestRec struct {
	Token   string
	At      time.Time
	Request string           // the NodesToAdd asked for, as JSON, to tell a retry from a reuse
	Added   []hpAddedRec     `json:",omitempty"`
	Failed  []hpAddFailedRec `json:",omitempty"`
}

// hpAddedRec is a node a BatchAddClusterNodes call added.
type hpAddedRec struct {
	Group, LogicalID, Zone, InstanceType string
}

// hpAddFailedRec is a part of a BatchAddClusterNodes call that failed.
type hpAddFailedRec struct {
	Group   string
	Code    string
	Message string
	Count   int32
	Zones   []string `json:",omitempty"`
	Types   []string `json:",omitempty"`
}

// BatchAddClusterNodes raises the target counts of instance groups of a
// cluster with Continuous provisioning and launches the new nodes; those
// that find no capacity wait for it. A group that can not take nodes fails
// on its own; quotas and training plans refuse the whole call.
func (a *sageMakerAPI) BatchAddClusterNodes(ctx context.Context, in *sagemaker.BatchAddClusterNodesInput, _ ...func(*sagemaker.Options)) (*sagemaker.BatchAddClusterNodesOutput, error) {
	return hpCall(ctx, a, "BatchAddClusterNodes", func(t *txn) (*sagemaker.BatchAddClusterNodesOutput, error) {
		in := orZero(in)
		if err := needBatchAdd(in); err != nil {
			return nil, err
		}
		if err := hpAddLimits(in.NodesToAdd); err != nil {
			return nil, err
		}
		c, err := t.hpClusterToChange(in.ClusterName, "BatchAddClusterNodes")
		if err != nil {
			return nil, err
		}
		if !c.continuous() {
			return nil, sageMakerValidation("BatchAddClusterNodes works only on clusters with NodeProvisioningMode Continuous; cluster %s uses the default mode. Raise InstanceCount with UpdateCluster instead.", c.Name)
		}
		request, _ := json.Marshal(in.NodesToAdd)
		token := aws.ToString(in.ClientToken)
		c.AddRequests = slices.DeleteFunc(c.AddRequests, func(r hpAddRequestRec) bool { return !t.now.Before(r.At.Add(t.w.scale(hpAddTokenLife))) })
		if token != "" {
			if i := slices.IndexFunc(c.AddRequests, func(r hpAddRequestRec) bool { return r.Token == token }); i >= 0 {
				if c.AddRequests[i].Request != string(request) {
					return nil, sageMakerValidation("ClientToken %s was used in the last 8 hours with other NodesToAdd. Use a new token for a new request.", token)
				}
				return t.hpAddOut(c, c.AddRequests[i]), nil
			}
		}
		rec, err := t.hpAddNodes(c, in.NodesToAdd)
		if err != nil {
			return nil, err
		}
		if token != "" {
			rec.Token, rec.At, rec.Request = token, t.now, string(request)
			c.AddRequests = append(c.AddRequests, rec)
		}
		return t.hpAddOut(c, rec), nil
	})
}

// needBatchAdd reports the missing required fields the SDK checks.
func needBatchAdd(in *sagemaker.BatchAddClusterNodesInput) error {
	params := []param{{"ClusterName", in.ClusterName != nil}, {"NodesToAdd", in.NodesToAdd != nil}}
	for i, s := range in.NodesToAdd {
		params = append(params, param{fmt.Sprintf("NodesToAdd[%d].IncrementTargetCountBy", i), s.IncrementTargetCountBy != nil},
			param{fmt.Sprintf("NodesToAdd[%d].InstanceGroupName", i), s.InstanceGroupName != nil})
	}
	return need("BatchAddClusterNodesInput", params...)
}

// hpAddLimits checks the documented limits: 1 to 5 groups, each named
// once, at least one node each, 50 nodes in all.
func hpAddLimits(specs []smtypes.AddClusterNodeSpecification) error {
	if len(specs) == 0 || len(specs) > hpMaxAddGroups {
		return sageMakerValidation("NodesToAdd names %d instance groups; name 1 to %d per call.", len(specs), hpMaxAddGroups)
	}
	total := 0
	seen := map[string]bool{}
	for _, s := range specs {
		name, n := *s.InstanceGroupName, *s.IncrementTargetCountBy
		if seen[name] {
			return sageMakerValidation("NodesToAdd names instance group %s twice; add its nodes in one entry.", name)
		}
		seen[name] = true
		if n < 1 {
			return sageMakerValidation("IncrementTargetCountBy of instance group %s is %d; it must be at least 1.", name, n)
		}
		total += int(n)
	}
	if total > hpMaxAddNodes {
		return sageMakerValidation("NodesToAdd asks for %d nodes; a call adds at most %d across its instance groups. Split the request.", total, hpMaxAddNodes)
	}
	return nil
}

// hpAddNodes adds the nodes of a new BatchAddClusterNodes request.
func (t *txn) hpAddNodes(c *hpClusterRec, specs []smtypes.AddClusterNodeSpecification) (hpAddRequestRec, error) {
	var rec hpAddRequestRec
	type accepted struct {
		g     *hpGroupRec
		count int32
	}
	var ok []accepted
	var replaced, siblings []*hpGroupRec
	delta := map[string]int{}
	for _, s := range specs {
		g, count := c.group(*s.InstanceGroupName), *s.IncrementTargetCountBy
		if code, msg := hpAddCompatible(c, g, s); code != "" {
			f := hpAddFailedRec{Group: *s.InstanceGroupName, Code: string(code), Message: msg, Count: count, Zones: s.AvailabilityZones}
			for _, typ := range s.InstanceTypes {
				f.Types = append(f.Types, string(typ))
			}
			rec.Failed = append(rec.Failed, f)
			continue
		}
		grown := *g
		grown.Count += count
		if err := t.hpPlanCount(&grown, append(replaced, g), siblings); err != nil {
			return rec, err
		}
		replaced, siblings = append(replaced, g), append(siblings, &grown)
		if g.TrainingPlanArn == "" {
			delta[g.InstanceType] += int(count)
		}
		ok = append(ok, accepted{g, count})
	}
	if err := t.hpQuota(delta); err != nil {
		return rec, err
	}
	for _, a := range ok {
		g := a.g
		g.Count += a.count
		launched := t.room(g, int(a.count), true)
		t.groupEvent(c, g, t.now, smtypes.ClusterEventLevelInfo, "BatchAddClusterNodes raised the target count of instance group %s by %d to %d.", g.Name, a.count, g.Count)
		for _, n := range t.addNodes(c, g, int(a.count), launched, t.after(hpNodeBootTime)) {
			rec.Added = append(rec.Added, hpAddedRec{Group: g.Name, LogicalID: n.LogicalID, Zone: n.Zone, InstanceType: n.InstanceType})
		}
		t.markBusy(c, g, smtypes.InstanceGroupStatusUpdating, t.readyTime(g, t.now))
	}
	return rec, nil
}

// hpAddCompatible tells why group g (nil if unknown) can not take the nodes
// of spec s, as an error code and message, or "" when it can.
func hpAddCompatible(c *hpClusterRec, g *hpGroupRec, s smtypes.AddClusterNodeSpecification) (smtypes.BatchAddClusterNodesErrorCode, string) {
	switch {
	case g == nil:
		return smtypes.BatchAddClusterNodesErrorCodeInstanceGroupNotFound,
			fmt.Sprintf("Instance group %s does not exist in cluster %s. Add it with UpdateCluster first.", *s.InstanceGroupName, c.Name)
	case g.Deleting:
		return smtypes.BatchAddClusterNodesErrorCodeInvalidInstanceGroupStatus, fmt.Sprintf("Instance group %s is being deleted.", g.Name)
	case len(s.AvailabilityZones) > 0 && !slices.Contains(s.AvailabilityZones, g.Zone):
		return smtypes.BatchAddClusterNodesErrorCodeIncompatibleAvailabilityZones,
			fmt.Sprintf("Instance group %s runs in %s, which AvailabilityZones %v leaves out.", g.Name, g.Zone, s.AvailabilityZones)
	case len(s.InstanceTypes) > 0 && !slices.Contains(s.InstanceTypes, smtypes.ClusterInstanceType(g.InstanceType)):
		return smtypes.BatchAddClusterNodesErrorCodeIncompatibleInstanceTypes,
			fmt.Sprintf("Instance group %s runs %s, which InstanceTypes %v leaves out.", g.Name, g.InstanceType, s.InstanceTypes)
	}
	return "", ""
}

// hpAddOut reports a BatchAddClusterNodes request with its nodes' latest
// status (NotFound once a node is gone).
func (t *txn) hpAddOut(c *hpClusterRec, rec hpAddRequestRec) *sagemaker.BatchAddClusterNodesOutput {
	out := &sagemaker.BatchAddClusterNodesOutput{Successful: []smtypes.NodeAdditionResult{}, Failed: []smtypes.BatchAddClusterNodesError{}}
	for _, a := range rec.Added {
		status := smtypes.ClusterInstanceStatusNotFound
		if r, ok := c.nodeByLogicalID(a.LogicalID); ok {
			status = t.hpInstanceStatus(c, r.n)
		}
		out.Successful = append(out.Successful, smtypes.NodeAdditionResult{
			InstanceGroupName: aws.String(a.Group), NodeLogicalId: aws.String(a.LogicalID), Status: status,
			AvailabilityZones: []string{a.Zone}, InstanceTypes: []smtypes.ClusterInstanceType{smtypes.ClusterInstanceType(a.InstanceType)},
		})
	}
	for _, f := range rec.Failed {
		e := smtypes.BatchAddClusterNodesError{
			ErrorCode: smtypes.BatchAddClusterNodesErrorCode(f.Code), FailedCount: aws.Int32(f.Count), InstanceGroupName: aws.String(f.Group),
			Message: aws.String(f.Message), AvailabilityZones: f.Zones,
		}
		for _, typ := range f.Types {
			e.InstanceTypes = append(e.InstanceTypes, smtypes.ClusterInstanceType(typ))
		}
		out.Failed = append(out.Failed, e)
	}
	return out
}
