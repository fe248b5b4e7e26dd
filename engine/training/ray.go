package training

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/training/recipe"
)

// RayRecord is what a RAY job's record shows of its program. The
// variables' values stay in the RayJob.
type RayRecord struct {
	Entrypoint string            `json:"entrypoint"`
	Args       []string          `json:"args"`
	Pip        []string          `json:"pip"`
	EnvNames   []string          `json:"envNames"`
	Workers    []RayWorkerRecord `json:"workers"`
}

// RayWorkerRecord is a worker group of a RAY job.
type RayWorkerRecord struct {
	InstanceGroup string `json:"instanceGroup"`
	InstanceType  string `json:"instanceType"`
	Replicas      int    `json:"replicas"`
	GPUsPerNode   int    `json:"gpusPerNode"`
}

// lookupRayWorkers fills in each worker group's instance type and shape.
// It refuses a group the cluster does not have, and one that cannot hold
// its replicas (with the head, when it is the head's group) while managed
// Karpenter does not scale it.
func (s *Service) lookupRayWorkers(ctx context.Context, p *cloud.Provider, c *hyperpod.Cluster, r *recipe.Request) error {
	if r.Ray == nil {
		return nil
	}
	for i := range r.Ray.Workers {
		w := &r.Ray.Workers[i]
		field := fmt.Sprintf("input.ray.workerGroups[%d]", i)
		g, err := s.group(c.ID, w.InstanceGroup)
		if err != nil {
			return err
		}
		if g == nil {
			return errs.New(errs.Precondition, "cluster %s has no instance group %s; list its instance groups and choose one for the workers", c.Name, errs.Clip(w.InstanceGroup)).WithField(field + ".instanceGroup")
		}
		need := w.Replicas
		if g.Name == r.InstanceGroup {
			need += r.Nodes
		}
		if need > g.Count {
			autoscaled, err := s.features.Autoscaled(ctx, c.ID, g.Name)
			if err != nil {
				return err
			}
			if !autoscaled {
				return errs.New(errs.Precondition, "instance group %s holds %d nodes and the job asks %d of it, and managed Karpenter does not scale it; ask for fewer replicas, scale the group (updateInstanceGroup), or let Karpenter scale it (the KARPENTER_AUTOSCALING feature)", g.Name, g.Count, need).WithField(field + ".replicas")
			}
		}
		shape, err := instanceShape(ctx, p, g.InstanceTypes[0])
		if err != nil {
			return err
		}
		w.InstanceType, w.Shape = g.InstanceTypes[0], shape
	}
	return nil
}

// rayRecord is what a RAY job's record keeps of what was built.
func rayRecord(r recipe.Request, built *recipe.Job) *RayRecord {
	entrypoint, _, _ := unstructured.NestedString(built.Object.Object, "spec", "entrypoint")
	out := &RayRecord{Entrypoint: entrypoint, Args: []string{}, Pip: []string{}, EnvNames: []string{}, Workers: []RayWorkerRecord{}}
	if p := r.Ray; p != nil {
		out.Args = append(out.Args, p.Args...)
		out.Pip = append(out.Pip, p.Pip...)
		for _, e := range p.Env {
			out.EnvNames = append(out.EnvNames, e.Name)
		}
		for _, w := range p.Workers {
			gpus := w.GPUsPerNode
			if gpus == 0 {
				gpus = w.Shape.Accelerators
			}
			out.Workers = append(out.Workers, RayWorkerRecord{InstanceGroup: w.InstanceGroup, InstanceType: w.InstanceType, Replicas: w.Replicas, GPUsPerNode: gpus})
		}
	}
	return out
}
