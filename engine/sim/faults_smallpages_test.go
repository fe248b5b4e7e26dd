package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
)

func TestParseSmallPagesFault(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want Fault
		bad  bool
	}{
		{spec: "smallpages", want: Fault{Kind: FaultSmallPages}},
		{spec: "smallpages:size=3,operation=ListClusterNodes", want: Fault{Kind: FaultSmallPages, Value: 3, Operation: "ListClusterNodes"}},
		{spec: "smallpages:size=x", bad: true},
	} {
		got, err := ParseFault(tc.spec)
		if tc.bad {
			if err == nil {
				t.Errorf("%s: no error", tc.spec)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s = %+v, %v; want %+v", tc.spec, got, err, tc.want)
		}
	}
	f := newFixture(t)
	for _, bad := range []Fault{
		{Kind: FaultSmallPages, Value: -1},
		{Kind: FaultSmallPages, Value: 1.5},
		{Kind: FaultSmallPages, Count: 2},
		{Kind: FaultSmallPages, Zone: "us-west-2a"},
	} {
		if _, err := f.w.InjectFault(bad); err == nil {
			t.Errorf("%+v was accepted", bad)
		}
	}
}

// TestSmallPagesFault shows that the fault caps each page whatever the
// caller asks for, that a caller following the marker still reads every
// item, and that it strikes only the calls it selects.
func TestSmallPagesFault(t *testing.T) {
	f := newFixture(t)
	im := f.p.IAM
	role := ok(im.CreateRole(f.ctx, &iam.CreateRoleInput{RoleName: aws.String("r"), AssumeRolePolicyDocument: aws.String(trustPolicy)})).must(t).Role
	for _, name := range []string{"a", "b", "c"} {
		ok(im.PutRolePolicy(f.ctx, &iam.PutRolePolicyInput{RoleName: role.RoleName, PolicyName: aws.String(name), PolicyDocument: aws.String(trustPolicy)})).must(t)
		ok(im.AttachRolePolicy(f.ctx, &iam.AttachRolePolicyInput{RoleName: role.RoleName, PolicyArn: aws.String("arn:aws:iam::aws:policy/" + name)})).must(t)
	}
	ok(f.w.InjectFault(Fault{Kind: FaultSmallPages, Operation: "ListRolePolicies"})).must(t)

	var names []string
	pages := 0
	p := iam.NewListRolePoliciesPaginator(im, &iam.ListRolePoliciesInput{RoleName: role.RoleName, MaxItems: aws.Int32(100)})
	for p.HasMorePages() {
		out := ok(p.NextPage(f.ctx)).must(t)
		if len(out.PolicyNames) > 1 {
			t.Errorf("page %d holds %d names, want at most 1", pages, len(out.PolicyNames))
		}
		if out.IsTruncated != (out.Marker != nil) {
			t.Errorf("page %d: IsTruncated %v with marker %v", pages, out.IsTruncated, out.Marker)
		}
		names = append(names, out.PolicyNames...)
		pages++
	}
	if pages != 3 || len(names) != 3 || names[0] != "a" || names[2] != "c" {
		t.Errorf("read %v in %d pages, want a, b, c in 3", names, pages)
	}

	attached := ok(im.ListAttachedRolePolicies(f.ctx, &iam.ListAttachedRolePoliciesInput{RoleName: role.RoleName})).must(t)
	if len(attached.AttachedPolicies) != 3 || attached.IsTruncated {
		t.Errorf("an operation the fault does not select was paged: %d policies, truncated %v", len(attached.AttachedPolicies), attached.IsTruncated)
	}

	ok(f.w.InjectFault(Fault{Kind: FaultSmallPages, Service: "iam", Value: 2})).must(t)
	attached = ok(im.ListAttachedRolePolicies(f.ctx, &iam.ListAttachedRolePoliciesInput{RoleName: role.RoleName})).must(t)
	if len(attached.AttachedPolicies) != 2 || !attached.IsTruncated {
		t.Errorf("size=2: %d policies, truncated %v; want 2, true", len(attached.AttachedPolicies), attached.IsTruncated)
	}
}
