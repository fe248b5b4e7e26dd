package resolvers

import (
	"github.com/instantstart/instantstart/engine/training"
	"github.com/instantstart/instantstart/engine/training/recipe"
	"github.com/instantstart/instantstart/graph/model"
)

func (r *Resolver) jobStream(id string) *recordStream[training.Job, model.Job] {
	return &recordStream[training.Job, model.Job]{r: r, name: "jobUpdated", kind: training.RecordKind, id: id,
		get: r.Training.Get, view: mapJob, final: func(j *training.Job) bool { return j.Status.Terminal() }}
}

func submitInputOf(in model.SubmitTrainingJobInput) (training.SubmitInput, error) {
	out := training.SubmitInput{ClusterID: in.ClusterID, Name: in.Name, Recipe: recipe.Name(in.Recipe), Model: deref(in.Model), DatasetPath: in.DatasetPath,
		Script: deref(in.Script), InstanceGroup: in.InstanceGroup, Nodes: in.Nodes, Experiment: deref(in.Experiment)}
	if in.Checkpointing != nil {
		out.Checkpointing = training.Checkpointing(*in.Checkpointing)
	}
	var err error
	if out.GPUsPerNode, err = given("input.gpusPerNode", in.GpusPerNode, 1, 0); err != nil {
		return out, err
	}
	for _, s := range in.Settings {
		out.Settings = append(out.Settings, training.Setting{Key: s.Key, Value: s.Value})
	}
	if p := in.Ray; p != nil {
		if out.Ray, err = rayProgramOf(p); err != nil {
			return out, err
		}
	}
	if rc := in.Recovery; rc != nil {
		out.Recovery = training.RecoveryInput{MaxRestarts: rc.MaxRestarts, WindowSeconds: rc.WindowSeconds, MaxFullJobRestarts: rc.MaxFullJobRestarts,
			RestartsBeforeFullJobRestart: rc.RestartsBeforeFullJobRestart, DetectHangs: rc.DetectHangs}
	}
	return out, nil
}

func mapJob(j *training.Job) *model.Job {
	out := &model.Job{ID: j.ID, ClusterID: j.ClusterID, Name: j.Name, Namespace: j.Namespace, Kind: model.JobKind(j.Kind), Recipe: model.TrainingRecipe(j.Recipe),
		Status: model.JobStatus(j.Status), OperatorState: optional(j.OperatorState), StatusMessage: optional(j.StatusMessage), Model: optional(j.Model),
		DatasetPath: j.DatasetPath, Script: optional(j.Script), InstanceGroup: j.InstanceGroup, InstanceType: j.InstanceType, Nodes: j.Nodes,
		GpusPerNode: j.GPUsPerNode, EfaPerNode: j.EFAPerNode, ProcessesPerNode: j.ProcessesPerNode, Image: j.Image, OutputPath: j.OutputPath,
		CheckpointPath: j.CheckpointPath, Checkpointing: model.CheckpointingS3, CreatedAt: j.CreatedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt, UpdatedAt: j.UpdatedAt,
		LastOperationID: optional(j.LastOperationID),
		Settings:        make([]*model.RecipeSetting, 0, len(j.Settings)), Pods: make([]*model.JobPod, 0, len(j.Pods)), Restarts: make([]*model.JobRestart, 0, len(j.Restarts))}
	for _, s := range j.Settings {
		out.Settings = append(out.Settings, &model.RecipeSetting{Key: s.Key, Value: s.Value})
	}
	for _, p := range j.Pods {
		out.Pods = append(out.Pods, &model.JobPod{Name: p.Name, Phase: p.Phase, Ready: p.Ready, Node: optional(p.Node), InstanceID: optional(p.InstanceID),
			Message: optional(p.Message), ContainerRestarts: p.ContainerRestarts, StartedAt: p.StartedAt})
	}
	for _, r := range j.Restarts {
		mr := &model.JobRestart{Time: r.Time, Reason: model.RestartReason(r.Reason), Message: r.Message, OperatorReason: r.OperatorReason}
		if res := r.ResumedFrom; res != nil {
			tier, step, at := model.CheckpointTier(res.Tier), res.Step, res.At
			mr.ResumedFromTier, mr.ResumedFromStep, mr.ResumedAt = &tier, &step, &at
		}
		out.Restarts = append(out.Restarts, mr)
	}
	if j.Checkpointing != "" {
		out.Checkpointing = model.Checkpointing(j.Checkpointing)
	}
	b := j.Budget
	out.Budget = &model.RecoveryBudget{RestartsUsed: b.RestartsUsed, RestartsAllowed: b.RestartsAllowed, FullJobRestartsUsed: b.FullJobRestartsUsed,
		FullJobRestartsAllowed: b.FullJobRestartsAllowed, WindowRestartsUsed: b.WindowRestartsUsed, RestartsBeforeFullJobRestart: b.RestartsBeforeFullJobRestart,
		WindowSeconds: b.WindowSeconds, WindowEndsAt: b.WindowEndsAt, Exhausted: b.Exhausted}
	if p := j.Ray; p != nil {
		out.Ray = mapRayProgram(p)
	}
	if m := j.MLflow; m != nil {
		out.Mlflow = &model.JobMlflow{TrackingServerArn: m.TrackingServerArn, Experiment: m.Experiment, RunName: m.RunName}
	}
	return out
}

func mapRecipes() []*model.TrainingRecipeInfo {
	var out []*model.TrainingRecipeInfo
	for _, info := range recipe.Catalog() {
		ri := &model.TrainingRecipeInfo{Recipe: model.TrainingRecipe(info.Recipe), Kind: model.JobKind(info.Kind), Image: info.Image, Version: info.Version,
			NeedsModel: info.NeedsModel, Settings: make([]*model.RecipeSettingInfo, 0, len(info.Settings))}
		for _, s := range info.Settings {
			allowed := s.Allowed
			if allowed == nil {
				allowed = []string{}
			}
			ri.Settings = append(ri.Settings, &model.RecipeSettingInfo{Key: s.Key, Description: s.Description, Default: s.Default, Allowed: allowed, Type: s.Type})
		}
		out = append(out, ri)
	}
	return out
}

func mapMetrics(m *training.Metrics) *model.JobMetrics {
	out := &model.JobMetrics{TrackingServerArn: m.Target.TrackingServerArn, Experiment: m.Target.Experiment, RunName: m.Target.RunName,
		Series: make([]*model.MetricSeries, 0, len(m.Series))}
	if m.Run != nil {
		out.RunID, out.RunStatus = optional(m.Run.ID), optional(m.Run.Status)
	}
	for _, s := range m.Series {
		ms := &model.MetricSeries{Name: s.Name, Points: make([]*model.MetricPoint, 0, len(s.Points))}
		for _, p := range s.Points {
			ms.Points = append(ms.Points, &model.MetricPoint{Step: float64(p.Step), Value: p.Value, Time: p.Timestamp})
		}
		out.Series = append(out.Series, ms)
	}
	return out
}
