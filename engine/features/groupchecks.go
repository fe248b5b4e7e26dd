package features

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/capacity"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/groupspec"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

// resolveCheckedGroups names, when the request does not, every group of
// the cluster that runs GPU or Trainium instances, and the default checks.
func resolveCheckedGroups(ctx context.Context, e *env) error {
	if len(e.settings.Checks) == 0 {
		e.settings.Checks = slices.Clone(capacity.DeepHealthChecks)
	}
	if len(e.settings.InstanceGroups) > 0 {
		return nil
	}
	out, err := e.describe(ctx)
	if err != nil {
		return err
	}
	for _, g := range out.InstanceGroups {
		if !slices.ContainsFunc(groupspec.Actual(&g).InstanceTypes, func(t string) bool { return !capacity.Accelerated(t) }) {
			e.settings.InstanceGroups = append(e.settings.InstanceGroups, aws.ToString(g.InstanceGroupName))
		}
	}
	return nil
}

// checkDeepHealthChecks refuses checks InstantStart does not run and groups
// the cluster does not have or that run instances without accelerators.
func checkDeepHealthChecks(ctx context.Context, e *env) error {
	f := "input.deepHealthChecks."
	var bad errs.List
	for i, c := range e.settings.Checks {
		bad = append(bad, capacity.CheckDeepHealthChecks([]string{c}, func(string) string { return fmt.Sprintf("%schecks[%d]", f, i) })...)
	}
	out, err := e.describe(ctx)
	if err != nil {
		return err
	}
	if len(e.settings.InstanceGroups) == 0 {
		bad = append(bad, errs.New(errs.Precondition, "cluster %s has no instance group of GPU or Trainium instances, the only ones HyperPod runs deep health checks on; add one first", e.c.Name).WithField(f+"instanceGroups"))
	}
	for i, name := range e.settings.InstanceGroups {
		field := fmt.Sprintf("%sinstanceGroups[%d]", f, i)
		g := groupspec.Find(out, name)
		if g == nil {
			bad = append(bad, errs.New(errs.Precondition, "cluster %s has no instance group %s", e.c.Name, name).WithField(field))
			continue
		}
		for _, t := range groupspec.Actual(g).InstanceTypes {
			if !capacity.Accelerated(t) {
				bad = append(bad, errs.New(errs.Precondition, "instance group %s runs %s, which has no GPU or Trainium accelerators; HyperPod runs deep health checks only on those", name, t).WithField(field))
				break
			}
		}
	}
	if len(bad) > 0 {
		return bad
	}
	return nil
}

// groupChecksLink is the deep health checks one instance group runs on
// every new node (OnStartDeepHealthChecks).
func groupChecksLink(e *env, group string, checks []string) link {
	title := "deep health checks of instance group " + group
	update := func(ctx context.Context, change func(have []string) []string) error {
		out, err := e.p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(e.c.HyperPod.Name)})
		if err != nil {
			return errs.FromUpstream(err, "describe HyperPod cluster "+e.c.HyperPod.Name)
		}
		g := groupspec.Find(out, group)
		if g == nil {
			return errs.New(errs.Precondition, "cluster %s has no instance group %s any more", e.c.Name, group)
		}
		spec := groupspec.Respec(g, func(s *hyperpod.GroupSpec) { s.DeepHealthChecks = change(s.DeepHealthChecks) })
		_, err = e.p.SageMaker.UpdateCluster(ctx, &sagemaker.UpdateClusterInput{ClusterName: aws.String(e.c.HyperPod.Name), InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{spec}})
		if err != nil {
			return errs.FromUpstream(err, "update instance group "+group+" of HyperPod cluster "+e.c.HyperPod.Name)
		}
		return nil
	}
	return link{key: "group-" + group, title: title, kind: "CLUSTER_SETTING", timeout: 30 * time.Minute,
		state: func(ctx context.Context) (linkState, error) {
			out, err := e.describe(ctx)
			if err != nil {
				return linkState{}, err
			}
			g := groupspec.Find(out, group)
			if g == nil {
				return linkState{}, nil
			}
			var have []string
			for _, c := range g.OnStartDeepHealthChecks {
				have = append(have, string(c))
			}
			present := !slices.ContainsFunc(checks, func(c string) bool { return !slices.Contains(have, c) })
			settled := out.ClusterStatus == smtypes.ClusterStatusInservice && g.Status == smtypes.InstanceGroupStatusInservice
			return linkState{present: present, matches: true, settled: settled,
				ref:    aws.ToString(out.ClusterArn) + " instance group " + group + " OnStartDeepHealthChecks",
				detail: "runs " + cmpOr(strings.Join(have, ", "), "none") + "; group " + string(g.Status)}, nil
		},
		create: func(ctx context.Context) error {
			return update(ctx, func(have []string) []string {
				for _, c := range checks {
					if !slices.Contains(have, c) {
						have = append(have, c)
					}
				}
				return have
			})
		},
		delete: func(ctx context.Context) error {
			return update(ctx, func(have []string) []string {
				return slices.DeleteFunc(have, func(c string) bool { return slices.Contains(checks, c) })
			})
		},
	}
}
