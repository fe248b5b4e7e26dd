package capacity

import (
	"regexp"
	"slices"
	"strings"

	"github.com/instantstart/instantstart/engine/errs"
)

// groupNamePattern is HyperPod's pattern for instance group names.
var groupNamePattern = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$`)

// DeepHealthChecks are the deep health checks HyperPod runs on EKS
// instance groups when instances start.
var DeepHealthChecks = []string{"InstanceStress", "InstanceConnectivity"}

// DefaultVolumeSizeGB is the EBS volume per instance when none is asked for.
const DefaultVolumeSizeGB = 500

// DefaultThreadsPerCore is 2 on the p4, p5 and p6 families and on
// training-plan capacity, else 1.
func DefaultThreadsPerCore(instanceType string, trainingPlan bool) int {
	if trainingPlan {
		return 2
	}
	t := EC2Type(instanceType)
	for _, fam := range []string{"p4", "p5", "p6"} {
		if strings.HasPrefix(t, fam) {
			return 2
		}
	}
	return 1
}

// Accelerated tells whether an instance type has GPUs (the p and g
// families) or Trainium chips (trn): the types HyperPod runs deep health
// checks on.
func Accelerated(instanceType string) bool {
	t := EC2Type(instanceType)
	return strings.HasPrefix(t, "p") || strings.HasPrefix(t, "g") || strings.HasPrefix(t, "trn")
}

// GroupShape is the part of an instance group request that can be checked
// without asking AWS.
type GroupShape struct {
	Name             string
	InstanceTypes    []string
	Count, MinCount  int
	ThreadsPerCore   int
	VolumeSizeGB     int
	DeepHealthChecks []string
}

// CheckGroupShape checks a group's fields; field turns a field name into
// the input path errors name (e.g. "count" -> "input.instanceGroups[0].count").
func CheckGroupShape(g GroupShape, field func(string) string) errs.List {
	var bad errs.List
	if !groupNamePattern.MatchString(g.Name) {
		bad = append(bad, errs.Field(field("name"), "instance group name %q is not valid: use 1-63 letters, digits and hyphens, starting and ending with a letter or digit", g.Name))
	}
	for _, t := range g.InstanceTypes {
		if !strings.HasPrefix(t, "ml.") {
			bad = append(bad, errs.Field(field("instanceType"), "instance type %q is not a HyperPod type: use the ml. form, for example ml.p5.48xlarge", t))
		}
	}
	bad = append(bad, CheckCounts(g.Count, g.MinCount, field)...)
	if g.ThreadsPerCore != 1 && g.ThreadsPerCore != 2 {
		bad = append(bad, errs.Field(field("threadsPerCore"), "threads per core must be 1 or 2, not %d", g.ThreadsPerCore))
	}
	if g.VolumeSizeGB < 50 || g.VolumeSizeGB > 16384 {
		bad = append(bad, errs.Field(field("volumeSizeGb"), "EBS volume size %d GiB is out of range: use 50 to 16384", g.VolumeSizeGB))
	}
	return append(bad, CheckDeepHealthChecks(g.DeepHealthChecks, field)...)
}

// CheckCounts checks a group's count and minimum count.
func CheckCounts(count, minCount int, field func(string) string) errs.List {
	var bad errs.List
	if count < 0 || count > 1000 {
		bad = append(bad, errs.Field(field("count"), "count %d is out of range: use 0 to 1000", count))
	}
	if minCount < 0 || minCount > count {
		bad = append(bad, errs.Field(field("minCount"), "minimum count %d must be between 0 and the count (%d)", minCount, count))
	}
	return bad
}

// CheckDeepHealthChecks checks names of deep health checks.
func CheckDeepHealthChecks(checks []string, field func(string) string) errs.List {
	var bad errs.List
	for _, c := range checks {
		if !slices.Contains(DeepHealthChecks, c) {
			bad = append(bad, errs.Field(field("deepHealthChecks"), "deep health check %q is not one of %s", c, strings.Join(DeepHealthChecks, ", ")))
		}
	}
	return bad
}
