package features_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/testwait"
	"github.com/instantstart/instantstart/engine/training"
	"github.com/instantstart/instantstart/engine/training/recipe"
)

// TestMLflowJobsReportTheirMetrics runs the areas as the App wires them:
// with MLFLOW on (its artifacts in the shared bucket the storage area made), a
// job submitted runs as the MLflow service account, logs to the server
// MLFLOW made, and its metrics are read back through the simulated MLflow
// API.
func TestMLflowJobsReportTheirMetrics(t *testing.T) {
	ctx := context.Background()
	a := apptest.New(t, apptest.Options{})
	clusterID := apptest.Cluster(t, a, cluster.CreateInput{Name: "train-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: []hyperpod.GroupSpec{{Name: "gpu", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 1, Zone: "us-west-2a"}}}).ID
	apptest.SharedBucket(t, a, clusterID, "train-1-data")
	up, err := a.Features.Update(ctx, "tester", clusterID, []features.Toggle{{Name: hyperpod.TrainingOperator, Enable: true}, {Name: hyperpod.MLflow, Enable: true}}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, a.Runner, up)
	p, _ := a.World.Provider("us-west-2")
	for _, key := range []string{"models/qwen3-0-6b/config.json", "datasets/alpaca/train.json"} {
		if _, err := p.S3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("train-1-data"), Key: aws.String(key), Body: strings.NewReader("{}")}); err != nil {
			t.Fatal(err)
		}
	}

	sub, err := a.Training.Submit(ctx, "tester", training.SubmitInput{ClusterID: clusterID, Name: "sft-1", Recipe: recipe.Name("LLAMA_FACTORY"), Model: "qwen3-0-6b",
		DatasetPath: "datasets/alpaca/", InstanceGroup: "gpu", Nodes: 1,
		Settings: []training.Setting{{Key: "stage", Value: "sft"}, {Key: "finetuning_type", Value: "lora"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, a.Runner, sub)
	j, err := a.Training.Get(sub.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	server := "arn:aws:sagemaker:us-west-2:123456789012:mlflow-tracking-server/train-1-mlflow"
	if j.MLflow == nil || j.MLflow.TrackingServerArn != server || j.MLflow.Experiment != "train-1" || j.MLflow.RunName != "sft-1" {
		t.Fatalf("the job reports to %+v", j.MLflow)
	}

	var loss []cloud.MLflowMetric
	testwait.Eventually(t, "the job's loss in MLflow", func() bool {
		m, err := a.Training.Metrics(ctx, j.ID, []string{"loss"})
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
