package hyperpod

import "time"

// Capacity types, as the schema names them.
const (
	OnDemand     = "ON_DEMAND"
	Spot         = "SPOT"
	TrainingPlan = "TRAINING_PLAN"
)

// Network interface modes.
const (
	InterfaceStandard = "STANDARD"
	InterfaceEFAOnly  = "EFA_ONLY"
)

// GroupStatus is an instance group's state.
type GroupStatus string

// The group states.
const (
	GroupPending        GroupStatus = "PENDING"
	GroupCreating       GroupStatus = "CREATING"
	GroupInService      GroupStatus = "IN_SERVICE"
	GroupUpdating       GroupStatus = "UPDATING"
	GroupDegraded       GroupStatus = "DEGRADED"
	GroupFailed         GroupStatus = "FAILED"
	GroupSystemUpdating GroupStatus = "SYSTEM_UPDATING"
	GroupDeleting       GroupStatus = "DELETING"
	GroupDeleted        GroupStatus = "DELETED"
)

// Label is a Kubernetes label.
type Label struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Taint is a Kubernetes taint; Effect is NO_SCHEDULE, PREFER_NO_SCHEDULE or
// NO_EXECUTE.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// GroupSpec is what a group should be: the settings the user chooses. It
// is the one model of an instance group: a group asked for with
// createCluster (engine/cluster) and one added later are both a GroupSpec,
// normalized by groupspec.Normalize and sent to HyperPod as
// groupspec.Specification.
type GroupSpec struct {
	Name             string   `json:"name"`
	InstanceTypes    []string `json:"instanceTypes"` // priority order; one unless flexible
	Count            int      `json:"count"`
	MinCount         int      `json:"minCount,omitempty"`
	Zone             string   `json:"zone"`
	CapacityType     string   `json:"capacityType"`
	TrainingPlanArn  string   `json:"trainingPlanArn,omitempty"`
	InterfaceMode    string   `json:"networkInterfaceMode"`
	ThreadsPerCore   int      `json:"threadsPerCore"`
	VolumeSizeGB     int      `json:"volumeSizeGb"`
	DeepHealthChecks []string `json:"deepHealthChecks,omitempty"`
	Labels           []Label  `json:"labels,omitempty"`
	Taints           []Taint  `json:"taints,omitempty"`
}

// Flexible reports whether the group takes a list of instance types.
func (g *GroupSpec) Flexible() bool { return len(g.InstanceTypes) > 1 }

// InstanceGroup is the record of an instance group.
type InstanceGroup struct {
	ID        string `json:"id"`
	ClusterID string `json:"clusterId"`
	GroupSpec
	SubnetID        string      `json:"subnetId,omitempty"`
	Status          GroupStatus `json:"status"`
	StatusMessage   string      `json:"statusMessage,omitempty"`
	CurrentCount    int         `json:"currentCount"`
	Software        Software    `json:"software"`
	Managed         bool        `json:"managed"`
	LastOperationID string      `json:"lastOperationId,omitempty"`
	CreatedAt       time.Time   `json:"createdAt"`
	UpdatedAt       time.Time   `json:"updatedAt"`
	DeletedAt       *time.Time  `json:"deletedAt,omitempty"`
}

// Software is the HyperPod image a group or node runs, as SageMaker
// reports it. ImageVersionStatus and UpdateStatus are in the schema's form
// (UPDATE_AVAILABLE, ROLLBACK_COMPLETE); an empty ImageVersionStatus is
// UNKNOWN and an empty UpdateStatus means no update has run.
type Software struct {
	ImageVersion       string `json:"imageVersion,omitempty"`
	TargetImageVersion string `json:"targetImageVersion,omitempty"`
	ImageVersionStatus string `json:"imageVersionStatus,omitempty"`
	UpdateStatus       string `json:"updateStatus,omitempty"`
}
