package features_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/storage"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/engine/training"
	"github.com/instantstart/instantstart/engine/training/recipe"
)

// TestMLflowJobsReportTheirMetrics wires the areas as the App does: with
// MLFLOW on (its artifacts in the shared bucket the storage area made), a
// job submitted runs as the MLflow service account, logs to the server
// MLFLOW made, and its metrics are read back through the simulated MLflow
// API.
func TestMLflowJobsReportTheirMetrics(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open("", store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	world, err := sim.New(sim.Options{Speed: speed, DefaultRegion: "us-west-2"})
	if err != nil {
		t.Fatal(err)
	}
	runner := ops.NewRunner(st, ops.Options{Speed: speed})
	clusters := cluster.New(st, runner, world, cluster.Options{})
	comp, err := compute.New(st, runner, world, cluster.ComputeView{Service: clusters}, compute.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stor *storage.Service
	feats := features.New(st, runner, world, cluster.FeaturesView{Service: clusters}, features.Options{Buckets: lateBuckets{&stor}})
	stor = storage.New(st, runner, world, cluster.StorageView{Service: clusters}, features.StorageView{Service: feats}, storage.Options{})
	jobs := training.New(st, runner, world, cluster.TrainingView{Service: clusters}, storage.TrainingView{Service: stor},
		compute.TrainingView{Service: comp}, features.TrainingOperatorView{Service: feats}, training.Options{})
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		jobs.Close()
		runner.Shutdown(context.Background())
		st.Close()
	})
	op, err := clusters.Create(ctx, "tester", cluster.CreateInput{Name: "train-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: []compute.GroupSpec{{Name: "gpu", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 1, Zone: "us-west-2a"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, runner, op)
	clusterID := op.Target.ID
	if _, err := comp.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	add, err := stor.Add(ctx, "tester", storage.AddInput{ClusterID: clusterID, Kind: storage.KindS3, S3: &storage.S3Input{Bucket: "train-1-data", Create: true}}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, runner, add)
	up, err := feats.Update(ctx, "tester", clusterID, []features.Toggle{{Name: features.TrainingOperator, Enable: true}, {Name: features.MLflow, Enable: true}}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, runner, up)
	p, _ := world.Provider("us-west-2")
	for _, key := range []string{"models/qwen3-0-6b/config.json", "datasets/alpaca/train.json"} {
		if _, err := p.S3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("train-1-data"), Key: aws.String(key), Body: strings.NewReader("{}")}); err != nil {
			t.Fatal(err)
		}
	}

	sub, err := jobs.Submit(ctx, "tester", training.SubmitInput{ClusterID: clusterID, Name: "sft-1", Recipe: recipe.Name("LLAMA_FACTORY"), Model: "qwen3-0-6b",
		DatasetPath: "datasets/alpaca/", InstanceGroup: "gpu", Nodes: 1,
		Settings: []training.Setting{{Key: "stage", Value: "sft"}, {Key: "finetuning_type", Value: "lora"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, runner, sub)
	j, err := jobs.Get(sub.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	server := "arn:aws:sagemaker:us-west-2:123456789012:mlflow-tracking-server/train-1-mlflow"
	if j.MLflow == nil || j.MLflow.TrackingServerArn != server || j.MLflow.Experiment != "train-1" || j.MLflow.RunName != "sft-1" {
		t.Fatalf("the job reports to %+v", j.MLflow)
	}

	var loss []cloud.MLflowMetric
	eventually(t, "the job's loss in MLflow", func() bool {
		m, err := jobs.Metrics(ctx, j.ID, []string{"loss"})
		if err != nil {
			t.Fatal(err)
		}
		loss = m.Series[0].Points
		return m.Run != nil && len(loss) >= 3
	})
	if loss[0].Value <= loss[len(loss)-1].Value || loss[0].Step >= loss[len(loss)-1].Step {
		t.Fatalf("loss does not fall with the steps: %+v", loss)
	}
	kc, err := p.Kubernetes.Clients(ctx, "train-1")
	if err != nil {
		t.Fatal(err)
	}
	pods, err := kc.Core.CoreV1().Pods(j.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	for _, pod := range pods.Items {
		if pod.Spec.ServiceAccountName == cloud.MLflowServiceAccount && pod.Status.Phase != corev1.PodPending {
			ran = true
		}
	}
	if !ran {
		t.Fatalf("no pod ran as %s", cloud.MLflowServiceAccount)
	}
}

// lateBuckets reaches the storage service once it is built, as the App's
// wiring does: the features are built first.
type lateBuckets struct{ s **storage.Service }

func (b lateBuckets) SharedBucket(clusterID string) (*features.SharedBucket, error) {
	return storage.FeaturesView{Service: *b.s}.SharedBucket(clusterID)
}
