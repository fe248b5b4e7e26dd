package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	sqtypes "github.com/aws/aws-sdk-go-v2/service/servicequotas/types"
)

// quotas lists every SageMaker quota, page by page.
func (f *fixture) quotas(pageSize int32) map[string]sqtypes.ServiceQuota {
	out := map[string]sqtypes.ServiceQuota{}
	in := &servicequotas.ListServiceQuotasInput{ServiceCode: aws.String("sagemaker"), MaxResults: aws.Int32(pageSize)}
	for {
		page := ok(f.p.ServiceQuotas.ListServiceQuotas(f.ctx, in)).must(f.t)
		for _, q := range page.Quotas {
			out[*q.QuotaName] = q
		}
		if page.NextToken == nil {
			return out
		}
		in.NextToken = page.NextToken
	}
}

func TestListServiceQuotas(t *testing.T) {
	f := newFixture(t)
	quotas := f.quotas(4)
	if len(quotas) != 16 {
		t.Fatalf("%d quotas, want one per instance type (16)", len(quotas))
	}
	for typ, want := range map[string]float64{
		"ml.p5.48xlarge": 4, "ml.trn2.48xlarge": 4, "ml.p4d.24xlarge": 8, "ml.g5.12xlarge": 16, "ml.g6e.12xlarge": 16, "ml.m5.xlarge": 32,
	} {
		q, found := quotas[typ+" for cluster usage"]
		if !found {
			t.Errorf("no quota for %s", typ)
			continue
		}
		if *q.Value != want || *q.QuotaCode != quotaCode(typ) || len(*q.QuotaCode) != 10 {
			t.Errorf("%s: value %v code %s", typ, *q.Value, *q.QuotaCode)
		}
	}
	other := ok(f.p.ServiceQuotas.ListServiceQuotas(f.ctx, &servicequotas.ListServiceQuotasInput{ServiceCode: aws.String("ec2")})).must(t)
	if len(other.Quotas) != 0 {
		t.Errorf("ec2 quotas = %d", len(other.Quotas))
	}
}
