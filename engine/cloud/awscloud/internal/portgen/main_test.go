package main

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
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
	type noOptions interface {
		DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput) (*ec2.DescribeVpcsOutput, error)
	}
	type inputByValue interface {
		DescribeVpcs(ctx context.Context, in ec2.DescribeVpcsInput, opts ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error)
	}
	type optionsWithoutParameter interface {
		DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput, opts ...func()) (*ec2.DescribeVpcsOutput, error)
	}
	type twoClients interface {
		DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput, opts ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error)
		GetRole(ctx context.Context, in *iam.GetRoleInput, opts ...func(*iam.Options)) (*iam.GetRoleOutput, error)
	}
	const shape = "portgen serves only SDK operations of the shape"
	for _, tt := range []struct {
		port reflect.Type
		want []string
	}{
		{reflect.TypeFor[noOptions](), []string{".DescribeVpcs", "a different number of values", shape}},
		{reflect.TypeFor[inputByValue](), []string{".DescribeVpcs", "its input is not a pointer", shape}},
		{reflect.TypeFor[optionsWithoutParameter](), []string{".DescribeVpcs", "its last parameter is not ...func(*Options)", shape}},
		{reflect.TypeFor[twoClients](), []string{".GetRole", "one port is served by one SDK client"}},
	} {
		_, err := generate([]reflect.Type{tt.port})
		for _, w := range append(tt.want, tt.port.Name()) {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("generate(%s) = %v; want a refusal that says %q", tt.port.Name(), err, w)
			}
		}
	}
}
