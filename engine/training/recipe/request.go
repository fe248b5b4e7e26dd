package recipe

import "github.com/instantstart/instantstart/engine/capacity"

// Shape is what one instance of a type has, as EC2 DescribeInstanceTypes
// tells it (the caller reads it).
type Shape = capacity.Shape

// Recovery is a job's recovery budget. DefaultRecovery gives the HyperPod
// training operator's usual one.
type Recovery struct {
	// MaxRestarts is restarts allowed in all (jobMaxRetryCount; a RayJob's
	// backoffLimit), 0-100.
	MaxRestarts int
	// WindowSeconds is the evaluation window (evalPeriodSeconds),
	// 60-604800.
	WindowSeconds int
	// MaxFullJobRestarts is full job restarts allowed per window, 0-20.
	MaxFullJobRestarts int
	// RestartsBeforeFullJobRestart is standard restarts before a full job
	// restart, 0-20.
	RestartsBeforeFullJobRestart int
	// DetectHangs adds the hang and slowness rules over the logs.
	DetectHangs bool
}

// DefaultRecovery returns the default recovery budget.
func DefaultRecovery() Recovery {
	return Recovery{MaxRestarts: 5, WindowSeconds: 21600, MaxFullJobRestarts: 1, RestartsBeforeFullJobRestart: 3, DetectHangs: true}
}

// MLflow is where a job reports: a SageMaker managed MLflow tracking
// server.
type MLflow struct {
	// TrackingServerArn is the tracking URI the job uses.
	TrackingServerArn string
	Experiment        string
	RunName           string
	// ServiceAccount is the pods' service account, whose role may call
	// the tracking server.
	ServiceAccount string
}

// Request is a training job to build: the user's decisions and the
// facts the caller looked up.
type Request struct {
	// JobID is the job's record id, labelled on everything it makes.
	JobID     string
	Name      string
	Namespace string
	Recipe    Name
	// Model is a folder of models/ in the shared bucket; "" for PYTORCH.
	Model string
	// DatasetPath is a key or prefix under datasets/ of the shared bucket.
	DatasetPath string
	// Script is, for PYTORCH and RAY, the key of the script in the bucket
	// (code/train.py).
	Script string
	// Ray is, for RAY, the program's arguments, runtime environment and
	// worker groups; the head runs on InstanceGroup.
	Ray      *RayProgram
	Settings map[string]string

	InstanceGroup string
	// InstanceType is the group's SageMaker type, ml.p5.48xlarge.
	InstanceType string
	Shape        Shape
	Nodes        int
	// GPUsPerNode is 0 for all of the shape's.
	GPUsPerNode int

	Recovery Recovery
	MLflow   *MLflow
	// Tiered is managed tiered checkpointing; nil for checkpoints in the
	// shared bucket only.
	Tiered *Tiered

	// ClaimName is the shared bucket's PersistentVolumeClaim, mounted at
	// /s3.
	ClaimName string
	Bucket    string
	Region    string
}
