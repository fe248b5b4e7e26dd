package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sts"
)

func TestGetCallerIdentity(t *testing.T) {
	clock := newTestClock()
	w := ok(New(Options{AccountID: "210987654321", Clock: clock.Now})).must(t)
	p := ok(w.Provider("us-east-2")).must(t)
	id := ok(p.STS.GetCallerIdentity(t.Context(), &sts.GetCallerIdentityInput{})).must(t)
	if *id.Account != "210987654321" || *id.Arn != "arn:aws:iam::210987654321:role/InstantStartManagement" || *id.UserId == "" {
		t.Errorf("identity = %s %s %s", *id.Account, *id.Arn, *id.UserId)
	}
}
