// Package capacity answers whether instances can be had where they are
// asked for: whether a zone offers an instance type, and whether the
// account's HyperPod quota leaves room for more. Creating a cluster, adding
// or scaling an instance group, and the preflight queries all ask here, so
// the checks and their messages are the same everywhere.
package capacity

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// Demand is a request for Count instances of InstanceType in Zone, made by
// the instance group Group. Field is the input path that errors name.
type Demand struct {
	Field        string // e.g. "input.instanceGroups[0]"; errors append ".instanceType" or ".count"
	Group        string
	InstanceType string // HyperPod's form, ml.p5.48xlarge
	Zone         string
	Count        int
}

// EC2Type is the EC2 name of a HyperPod instance type (ml.p5.48xlarge ->
// p5.48xlarge).
func EC2Type(instanceType string) string { return strings.TrimPrefix(instanceType, "ml.") }

// OfferedZones maps each of types (HyperPod names) to the zones of the
// region that offer it.
func OfferedZones(ctx context.Context, p *cloud.Provider, types []string) (map[string][]string, error) {
	var ec2Types []string
	for _, t := range types {
		if e := EC2Type(t); !slices.Contains(ec2Types, e) {
			ec2Types = append(ec2Types, e)
		}
	}
	offered := map[string][]string{}
	if len(ec2Types) == 0 {
		return offered, nil
	}
	var token *string
	for page := range cloud.MaxPages {
		out, err := p.EC2.DescribeInstanceTypeOfferings(ctx, &ec2.DescribeInstanceTypeOfferingsInput{
			LocationType: ec2types.LocationTypeAvailabilityZone,
			Filters:      []ec2types.Filter{{Name: aws.String("instance-type"), Values: ec2Types}},
			NextToken:    token,
		})
		if err != nil {
			return nil, errs.FromUpstream(err, "list instance type offerings")
		}
		for _, o := range out.InstanceTypeOfferings {
			t := "ml." + string(o.InstanceType)
			offered[t] = append(offered[t], aws.ToString(o.Location))
		}
		if token = out.NextToken; aws.ToString(token) == "" {
			break
		}
		if page == cloud.MaxPages-1 {
			return nil, cloud.TooManyPages("DescribeInstanceTypeOfferings")
		}
	}
	for t := range offered {
		slices.Sort(offered[t])
	}
	return offered, nil
}

// CheckOfferings fails with PRECONDITION for each demand whose zone does not
// offer its instance type, naming the zones that do.
func CheckOfferings(ctx context.Context, p *cloud.Provider, demands []Demand) error {
	var types []string
	for _, d := range demands {
		types = append(types, d.InstanceType)
	}
	offered, err := OfferedZones(ctx, p, types)
	if err != nil {
		return err
	}
	var bad errs.List
	for _, d := range demands {
		zones := offered[d.InstanceType]
		if slices.Contains(zones, d.Zone) {
			continue
		}
		where := "in no zone of " + p.Region + ": choose another instance type"
		if len(zones) > 0 {
			where = "only in " + strings.Join(zones, ", ") + ": choose one of those zones or another instance type"
		}
		e := errs.New(errs.Precondition, "instance type %s of group %s is not offered in %s; it is offered %s", d.InstanceType, d.Group, d.Zone, where)
		bad = append(bad, e.WithField(d.Field+".instanceType"))
	}
	return bad.Err()
}

// quotaSuffix ends the name of the SageMaker quota on instances of a type
// in HyperPod clusters ("ml.p5.48xlarge for cluster usage").
const quotaSuffix = " for cluster usage"

// QuotaName is the Service Quotas name of the HyperPod quota on a type.
func QuotaName(instanceType string) string { return instanceType + quotaSuffix }

// Quotas reads the account's HyperPod instance quotas in the region, by
// instance type.
func Quotas(ctx context.Context, p *cloud.Provider) (map[string]float64, error) {
	quota := map[string]float64{}
	var token *string
	for range cloud.MaxPages {
		out, err := p.ServiceQuotas.ListServiceQuotas(ctx, &servicequotas.ListServiceQuotasInput{ServiceCode: aws.String("sagemaker"), NextToken: token})
		if err != nil {
			return nil, errs.FromUpstream(err, "read SageMaker service quotas")
		}
		for _, q := range out.Quotas {
			if t, ok := strings.CutSuffix(aws.ToString(q.QuotaName), quotaSuffix); ok && q.Value != nil {
				quota[t] = *q.Value
			}
		}
		if token = out.NextToken; token == nil {
			return quota, nil
		}
	}
	return nil, cloud.TooManyPages("ListServiceQuotas")
}

// Usage counts the instances the account's HyperPod clusters in the region
// run or are scaling to (each group's target count), by instance type.
// Clusters being deleted are left out; skip names clusters whose groups the
// caller counts itself.
func Usage(ctx context.Context, p *cloud.Provider, skip ...string) (map[string]int, error) {
	used := map[string]int{}
	var token *string
	for range cloud.MaxPages {
		out, err := p.SageMaker.ListClusters(ctx, &sagemaker.ListClustersInput{NextToken: token})
		if err != nil {
			return nil, errs.FromUpstream(err, "list HyperPod clusters")
		}
		for _, c := range out.ClusterSummaries {
			name := aws.ToString(c.ClusterName)
			if slices.Contains(skip, name) || c.ClusterStatus == "Deleting" {
				continue
			}
			d, err := p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(name)})
			if errs.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, errs.FromUpstream(err, "describe HyperPod cluster "+name)
			}
			for _, g := range d.InstanceGroups {
				n := int(aws.ToInt32(g.TargetCount))
				if n == 0 {
					n = int(aws.ToInt32(g.CurrentCount))
				}
				used[string(g.InstanceType)] += n
			}
		}
		if token = out.NextToken; token == nil || *token == "" {
			return used, nil
		}
	}
	return nil, cloud.TooManyPages("ListClusters")
}

// CheckQuotas fails with PRECONDITION when the demands, added to inUse,
// ask for more instances of a type than the account's quota allows.
func CheckQuotas(ctx context.Context, p *cloud.Provider, demands []Demand, inUse map[string]int) error {
	want := map[string]int{}
	for _, d := range demands {
		want[d.InstanceType] += d.Count
	}
	if len(want) == 0 {
		return nil
	}
	quota, err := Quotas(ctx, p)
	if err != nil {
		return err
	}
	var bad errs.List
	for _, d := range demands {
		limit, known := quota[d.InstanceType]
		total := want[d.InstanceType] + inUse[d.InstanceType]
		if !known || float64(total) <= limit {
			continue
		}
		msg := fmt.Sprintf("the account's quota \"%s\" in %s is %v, but ", QuotaName(d.InstanceType), p.Region, limit)
		if used := inUse[d.InstanceType]; used > 0 {
			msg += fmt.Sprintf("%d are in use and this asks for %d more", used, want[d.InstanceType])
		} else {
			msg += fmt.Sprintf("the instance groups ask for %d", want[d.InstanceType])
		}
		e := errs.New(errs.Precondition, "%s; request a quota increase in Service Quotas or lower the count", msg)
		bad = append(bad, e.WithField(d.Field+".count"))
		delete(want, d.InstanceType) // report each type once
	}
	return bad.Err()
}
