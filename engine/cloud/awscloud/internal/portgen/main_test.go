package main

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// TestTheCheckedInPortsAreCurrent regenerates ports_gen.go and compares it
// with the checked-in file, so that a port changed without go generate
// fails here rather than in a build that misses a method.
func TestTheCheckedInPortsAreCurrent(t *testing.T) {
	got, err := generate(ports)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../ports_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("engine/cloud/awscloud/ports_gen.go is not what portgen writes: run go generate ./engine/cloud/awscloud/")
	}
}

func TestAMethodOfAnotherShapeIsRefused(t *testing.T) {
	type notAnOperation interface {
		DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput) (*ec2.DescribeVpcsOutput, error)
	}
	_, err := generate([]port{{"EC2", reflect.TypeFor[notAnOperation](), "github.com/aws/aws-sdk-go-v2/service/ec2"}})
	if err == nil || !strings.Contains(err.Error(), "DescribeVpcs") || !strings.Contains(err.Error(), "portgen serves only SDK operations") {
		t.Fatalf("generate = %v; want a refusal that names DescribeVpcs and the shape portgen serves", err)
	}
}
