package hyperpod

// Feature names a managed feature of a cluster as the schema does.
type Feature string

// The features.
const (
	NodeAutoRecovery     Feature = "NODE_AUTO_RECOVERY"
	TrainingOperator     Feature = "TRAINING_OPERATOR"
	TieredCheckpointing  Feature = "TIERED_CHECKPOINTING"
	KarpenterAutoscaling Feature = "KARPENTER_AUTOSCALING"
	DeepHealthChecks     Feature = "DEEP_HEALTH_CHECKS"
	InferenceOperator    Feature = "INFERENCE_OPERATOR"
	Observability        Feature = "OBSERVABILITY"
	KubeRay              Feature = "KUBERAY"
	KEDA                 Feature = "KEDA"
	S3CSIDriver          Feature = "S3_CSI_DRIVER"
	FSxCSIDriver         Feature = "FSX_CSI_DRIVER"
	MLflow               Feature = "MLFLOW"
	// LoadBalancerController is the AWS Load Balancer Controller, which
	// makes the Network Load Balancers of LoadBalancer Services.
	LoadBalancerController Feature = "LOAD_BALANCER_CONTROLLER"
)

// MLflowServer is a cluster's MLflow tracking server, for jobs to report
// to.
type MLflowServer struct {
	TrackingServerArn string
	// ServiceAccount (in Namespace) is the identity allowed to write to it.
	Namespace, ServiceAccount string
}

// TieredCheckpointingSetup is a cluster's managed tiered checkpointing, for
// jobs to use: the service account (in Namespace) whose role may write
// the checkpoints' S3 tier in Bucket, and the share of each instance's
// memory the memory daemon holds for the in-memory tier (0 when the
// cluster leaves it to the service).
type TieredCheckpointingSetup struct {
	Namespace, ServiceAccount string
	Bucket                    string
	MemoryPercentage          int
}
