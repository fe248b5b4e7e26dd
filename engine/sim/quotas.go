package sim

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	sqtypes "github.com/aws/aws-sdk-go-v2/service/servicequotas/types"

	"github.com/instantstart/instantstart/engine/cloud"
)

// quotasAPI is one region's view of the simulated Service Quotas.
type quotasAPI struct {
	w      *World
	region string
}

var _ cloud.ServiceQuotas = (*quotasAPI)(nil)

// quotaName is the name of the SageMaker quota that bounds how many
// instances of typ (a SageMaker name) HyperPod clusters may use.
func quotaName(typ string) string { return typ + " for cluster usage" }

// quotaCode is a stable code of the shape Service Quotas uses ("L-1194F27D").
func quotaCode(typ string) string {
	h := fnv.New32a()
	h.Write([]byte(quotaName(typ)))
	return fmt.Sprintf("L-%08X", h.Sum32())
}

// defaultQuota is the simulated account's default quota for typ: scarce,
// large accelerators get few instances.
func defaultQuota(typ string) float64 {
	family, _, _ := strings.Cut(strings.TrimPrefix(typ, "ml."), ".")
	switch family {
	case "p5", "p5e", "p5en", "trn2":
		return 4
	case "p4d", "p4de", "trn1":
		return 8
	case "g5", "g6", "g6e":
		return 16
	}
	return 32
}

// quota is the quota of typ in the call's region, with quota faults
// applied.
func (t *txn) quota(typ string) float64 {
	if i := t.quotaFault(typ); i >= 0 {
		return t.st.Faults[i].Value
	}
	return defaultQuota(typ)
}

// ListServiceQuotas lists, for ServiceCode "sagemaker", one "<type> for
// cluster usage" quota per instance type of the catalog. Other services
// have no simulated quotas.
func (a *quotasAPI) ListServiceQuotas(ctx context.Context, in *servicequotas.ListServiceQuotasInput, _ ...func(*servicequotas.Options)) (*servicequotas.ListServiceQuotasOutput, error) {
	return call(ctx, a.w, svcQuotas, a.region, "ListServiceQuotas", func(t *txn) (*servicequotas.ListServiceQuotasOutput, error) {
		in := orZero(in)
		if err := need("ListServiceQuotasInput", param{"ServiceCode", in.ServiceCode != nil}); err != nil {
			return nil, err
		}
		if in.MaxResults != nil && (*in.MaxResults < 1 || *in.MaxResults > 100) {
			return nil, &sqtypes.IllegalArgumentException{Message: aws.String("MaxResults must be between 1 and 100.")}
		}
		var all []sqtypes.ServiceQuota
		if *in.ServiceCode == "sagemaker" {
			for _, typ := range t.w.catalog.instanceTypes() {
				typ = "ml." + typ
				code := quotaCode(typ)
				if in.QuotaCode != nil && *in.QuotaCode != code {
					continue
				}
				all = append(all, sqtypes.ServiceQuota{
					ServiceCode:         aws.String("sagemaker"),
					ServiceName:         aws.String("Amazon SageMaker"),
					QuotaCode:           aws.String(code),
					QuotaName:           aws.String(quotaName(typ)),
					QuotaArn:            aws.String(fmt.Sprintf("arn:aws:servicequotas:%s:%s:sagemaker/%s", t.region, t.account(), code)),
					Value:               aws.Float64(t.quota(typ)),
					Unit:                aws.String("None"),
					Adjustable:          true,
					QuotaAppliedAtLevel: sqtypes.AppliedLevelEnumAccount,
				})
			}
		}
		items, next, err := page(all, in.NextToken, t.pageSize(svcQuotas, "ListServiceQuotas", in.MaxResults), 100)
		if err != nil {
			return nil, &sqtypes.InvalidPaginationTokenException{Message: aws.String("Invalid pagination token.")}
		}
		return &servicequotas.ListServiceQuotasOutput{Quotas: items, NextToken: next}, nil
	})
}
