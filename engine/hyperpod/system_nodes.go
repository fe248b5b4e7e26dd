package hyperpod

// The system node group: an EKS managed node group of small general-purpose
// instances where cluster-critical pods (CoreDNS, the operators, KEDA, the
// load balancer controller, SGLang routers) run, so that they keep a home
// when every HyperPod group is scaled to zero. Its nodes carry
// SystemNodeLabel=SystemNodeValue.
const (
	SystemNodeLabel = "instantstart.io/role"
	SystemNodeValue = "system"
)

// SystemNodes is a cluster's system node group as last read.
type SystemNodes struct {
	// Name is the EKS node group's name.
	Name         string `json:"name"`
	Arn          string `json:"arn,omitempty"`
	Status       string `json:"status"` // the EKS NodegroupStatus
	InstanceType string `json:"instanceType"`
	Desired      int    `json:"desired"`
	// Ready counts the group's Kubernetes nodes that are Ready.
	Ready int `json:"ready"`
	// Issues are EKS's health issues of the group, as "code: message".
	Issues []string `json:"issues,omitempty"`
}

// SystemAffinity is the node affinity, in the shape Helm values and EKS
// add-on configuration values take, that has a pod prefer the system node
// group's nodes. It is a preference, not a requirement: on a cluster
// without a system node group (made with systemNodes.count 0, or
// imported) the same pods still run on the nodes there are.
func SystemAffinity() map[string]any {
	return map[string]any{"nodeAffinity": map[string]any{
		"preferredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
			"weight": 100,
			"preference": map[string]any{"matchExpressions": []any{map[string]any{
				"key": SystemNodeLabel, "operator": "In", "values": []any{SystemNodeValue},
			}}},
		}},
	}}
}
