package netplan

import (
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

func TestPlanControlPlaneSubnets(t *testing.T) {
	tests := []struct {
		name    string
		vpc     string
		zones   []string
		want    []Subnet
		wantErr string
	}{
		{
			name:  "two zones",
			vpc:   "10.0.0.0/16",
			zones: []string{"us-east-1a", "us-east-1b"},
			want: []Subnet{
				{Zone: "us-east-1a", CIDR: netip.MustParsePrefix("10.0.0.0/24"), Role: Public},
				{Zone: "us-east-1b", CIDR: netip.MustParsePrefix("10.0.1.0/24"), Role: Public},
				{Zone: "us-east-1a", CIDR: netip.MustParsePrefix("10.0.16.0/24"), Role: Private},
				{Zone: "us-east-1b", CIDR: netip.MustParsePrefix("10.0.17.0/24"), Role: Private},
			},
		},
		{
			name:  "three zones in another VPC",
			vpc:   "172.20.0.0/16",
			zones: []string{"us-west-2c", "us-west-2a", "us-west-2d"},
			want: []Subnet{
				{Zone: "us-west-2c", CIDR: netip.MustParsePrefix("172.20.0.0/24"), Role: Public},
				{Zone: "us-west-2a", CIDR: netip.MustParsePrefix("172.20.1.0/24"), Role: Public},
				{Zone: "us-west-2d", CIDR: netip.MustParsePrefix("172.20.2.0/24"), Role: Public},
				{Zone: "us-west-2c", CIDR: netip.MustParsePrefix("172.20.16.0/24"), Role: Private},
				{Zone: "us-west-2a", CIDR: netip.MustParsePrefix("172.20.17.0/24"), Role: Private},
				{Zone: "us-west-2d", CIDR: netip.MustParsePrefix("172.20.18.0/24"), Role: Private},
			},
		},
		{name: "one zone", vpc: "10.0.0.0/16", zones: []string{"us-east-1a"}, wantErr: "at least 2 availability zones"},
		{name: "no zones", vpc: "10.0.0.0/16", wantErr: "at least 2 availability zones"},
		{name: "duplicate zone", vpc: "10.0.0.0/16", zones: []string{"us-east-1a", "us-east-1b", "us-east-1a"}, wantErr: "us-east-1a is listed twice"},
		{name: "empty zone", vpc: "10.0.0.0/16", zones: []string{"us-east-1a", ""}, wantErr: "zone name is empty"},
		{name: "too many zones", vpc: "10.0.0.0/16", zones: zoneNames(17), wantErr: "at most 16 zones"},
		{name: "VPC not a /16", vpc: "10.0.0.0/20", zones: []string{"a", "b"}, wantErr: "needs a /16 VPC, such as 10.0.0.0/16"},
		{name: "VPC larger than a /16", vpc: "10.0.0.0/8", zones: []string{"a", "b"}, wantErr: "needs a /16 VPC"},
		{name: "IPv6 VPC", vpc: "fd00::/56", zones: []string{"a", "b"}, wantErr: "not IPv4"},
		{name: "VPC with host bits", vpc: "10.0.0.1/16", zones: []string{"a", "b"}, wantErr: "use 10.0.0.0/16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PlanControlPlaneSubnets(netip.MustParsePrefix(tt.vpc), tt.zones)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("PlanControlPlaneSubnets(%s, %v) = %v, %v; want error containing %q", tt.vpc, tt.zones, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("PlanControlPlaneSubnets(%s, %v): %v", tt.vpc, tt.zones, err)
			}
			if !reflect.DeepEqual(got.Subnets, tt.want) {
				t.Fatalf("PlanControlPlaneSubnets(%s, %v) =\n%v\nwant\n%v", tt.vpc, tt.zones, got.Subnets, tt.want)
			}
		})
	}
}

func TestPlanControlPlaneSubnetsZeroVPC(t *testing.T) {
	_, err := PlanControlPlaneSubnets(netip.Prefix{}, []string{"a", "b"})
	if err == nil || !strings.Contains(err.Error(), "not set to a valid CIDR block") {
		t.Fatalf("err = %v; want a message about the missing VPC CIDR", err)
	}
}

func TestControlPlaneSubnetsByRole(t *testing.T) {
	plan, err := PlanControlPlaneSubnets(netip.MustParsePrefix("10.3.0.0/16"), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		role Role
		got  []Subnet
		want []string
	}{
		{role: Public, got: plan.Public(), want: []string{"10.3.0.0/24", "10.3.1.0/24"}},
		{role: Private, got: plan.Private(), want: []string{"10.3.16.0/24", "10.3.17.0/24"}},
	}
	for _, tt := range tests {
		var cidrs []string
		for _, s := range tt.got {
			if s.Role != tt.role {
				t.Errorf("%s() returned a %s subnet %s", tt.role, s.Role, s.CIDR)
			}
			cidrs = append(cidrs, s.CIDR.String())
		}
		if !reflect.DeepEqual(cidrs, tt.want) {
			t.Errorf("%s subnets = %v; want %v", tt.role, cidrs, tt.want)
		}
	}
	if got := len(plan.CIDRs()); got != 4 {
		t.Errorf("len(CIDRs()) = %d; want 4", got)
	}
}

// TestControlPlaneLeavesRoomForCompute checks the promise the layout makes:
// however many zones the control plane spans, the first compute /20 lands at
// x.y.32.0/20 and no planned subnet overlaps another.
func TestControlPlaneLeavesRoomForCompute(t *testing.T) {
	vpc := netip.MustParsePrefix("10.7.0.0/16")
	for n := 2; n <= 16; n++ {
		t.Run(fmt.Sprintf("%d zones", n), func(t *testing.T) {
			plan, err := PlanControlPlaneSubnets(vpc, zoneNames(n))
			if err != nil {
				t.Fatal(err)
			}
			cidrs := plan.CIDRs()
			for i, a := range cidrs {
				if !Contains(vpc, a) {
					t.Errorf("%s is outside the VPC %s", a, vpc)
				}
				for _, b := range cidrs[i+1:] {
					if Overlaps(a, b) {
						t.Errorf("%s overlaps %s", a, b)
					}
				}
			}
			got, err := ComputeSubnet(vpc, "zone-0", cidrs)
			if err != nil || got.String() != "10.7.32.0/20" {
				t.Fatalf("ComputeSubnet after the control plane = %v, %v; want 10.7.32.0/20", got, err)
			}
		})
	}
}

func zoneNames(n int) []string {
	zones := make([]string, n)
	for i := range zones {
		zones[i] = fmt.Sprintf("zone-%d", i)
	}
	return zones
}
