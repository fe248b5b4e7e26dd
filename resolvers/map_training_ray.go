package resolvers

import (
	"fmt"

	"github.com/instantstart/instantstart/engine/training"
	"github.com/instantstart/instantstart/engine/training/recipe"
	"github.com/instantstart/instantstart/graph/model"
)

// rayProgramOf is the RAY program asked for; the engine bounds and checks
// it.
func rayProgramOf(in *model.RayProgramInput) (*recipe.RayProgram, error) {
	out := &recipe.RayProgram{Args: in.Args, Pip: in.Pip}
	for _, e := range in.Env {
		out.Env = append(out.Env, recipe.EnvVar{Name: e.Name, Value: e.Value})
	}
	for i, w := range in.WorkerGroups {
		gpus, err := given(fmt.Sprintf("input.ray.workerGroups[%d].gpusPerNode", i), w.GpusPerNode, 1, 0)
		if err != nil {
			return nil, err
		}
		out.Workers = append(out.Workers, recipe.RayWorkers{InstanceGroup: w.InstanceGroup, Replicas: w.Replicas, GPUsPerNode: gpus})
	}
	return out, nil
}

func mapRayProgram(p *training.RayRecord) *model.RayProgram {
	out := &model.RayProgram{Entrypoint: p.Entrypoint, Args: p.Args, Pip: p.Pip, EnvNames: p.EnvNames, WorkerGroups: make([]*model.RayWorkerGroup, 0, len(p.Workers))}
	for _, w := range p.Workers {
		out.WorkerGroups = append(out.WorkerGroups, &model.RayWorkerGroup{InstanceGroup: w.InstanceGroup, InstanceType: w.InstanceType, Replicas: w.Replicas, GpusPerNode: w.GPUsPerNode})
	}
	return out
}
