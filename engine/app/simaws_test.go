package app

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
)

// TestSimAWSListenServesWhileRefreshRuns reaches the simulator through
// its AWS endpoint while Refresh runs, and finds it closed once it ends.
func TestSimAWSListenServesWhileRefreshRuns(t *testing.T) {
	a, err := New(Config{DataDir: t.TempDir(), SimSpeed: 1000, SimAWSListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	refreshed := make(chan struct{})
	go func() { defer close(refreshed); a.Refresh(ctx) }()

	sm := sagemaker.NewFromConfig(aws.Config{
		Region:       a.World.DefaultRegion(),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String("http://" + a.SimAWS.Addr().String()),
	})
	if _, err := sm.ListClusters(context.Background(), &sagemaker.ListClustersInput{}); err != nil {
		t.Errorf("ListClusters through the endpoint: %v", err)
	}
	cancel()
	<-refreshed
	once := func(o *sagemaker.Options) { o.RetryMaxAttempts = 1 }
	if _, err := sm.ListClusters(context.Background(), &sagemaker.ListClustersInput{}, once); err == nil {
		t.Error("the endpoint still answers after Refresh ended")
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestSimAWSListenNeedsTheSimulator(t *testing.T) {
	if _, err := New(Config{DataDir: t.TempDir(), Provider: ProviderAWS, SimAWSListen: "127.0.0.1:0"}); err == nil {
		t.Fatal("--sim-aws-listen with the aws provider must be refused")
	}
}
