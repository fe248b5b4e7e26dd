package netplan

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// controlPlane returns what PlanControlPlaneSubnets makes in 10.0.0.0/16
// for two zones, plus extra.
func controlPlane(extra ...string) []string {
	return append(extra, "10.0.0.0/24", "10.0.1.0/24", "10.0.16.0/24", "10.0.17.0/24")
}

func TestComputeSubnet(t *testing.T) {
	tests := []struct {
		name    string
		vpc     string
		used    []string
		want    string
		wantErr string
		noFree  bool
	}{
		{name: "empty VPC", vpc: "10.0.0.0/16", want: "10.0.0.0/20"},
		{name: "skips the control-plane /24s", vpc: "10.0.0.0/16", used: controlPlane(), want: "10.0.32.0/20"},
		{
			name: "skips existing /20s",
			vpc:  "10.0.0.0/16",
			used: controlPlane("10.0.32.0/20", "10.0.48.0/20"),
			want: "10.0.64.0/20",
		},
		{name: "fills a gap between /20s", vpc: "10.0.0.0/16", used: []string{"10.0.0.0/20", "10.0.32.0/20"}, want: "10.0.16.0/20"},
		{name: "a /19 blocks two /20s", vpc: "10.0.0.0/16", used: controlPlane("10.0.32.0/19"), want: "10.0.64.0/20"},
		{name: "a /18 at the start", vpc: "10.0.0.0/16", used: []string{"10.0.0.0/18"}, want: "10.0.64.0/20"},
		{
			name: "blocks not aligned to /20",
			vpc:  "10.0.0.0/16",
			used: []string{"10.0.2.0/23", "10.0.20.0/22", "10.0.44.0/26", "10.0.63.255/32"},
			want: "10.0.64.0/20",
		},
		{name: "a single address blocks its /20", vpc: "10.0.0.0/16", used: []string{"10.0.15.255/32"}, want: "10.0.16.0/20"},
		{name: "a used block with host bits counts as its whole block", vpc: "10.0.0.0/16", used: []string{"10.0.3.7/19"}, want: "10.0.32.0/20"},
		{name: "blocks outside the VPC do not count", vpc: "10.0.0.0/16", used: []string{"10.1.0.0/16", "192.168.0.0/16"}, want: "10.0.0.0/20"},
		{name: "IPv6 blocks do not count", vpc: "10.0.0.0/16", used: []string{"::/0"}, want: "10.0.0.0/20"},
		{
			name: "only the last /20 is free",
			vpc:  "10.0.0.0/16",
			used: []string{"10.0.0.0/17", "10.0.128.0/18", "10.0.192.0/19", "10.0.224.0/20"},
			want: "10.0.240.0/20",
		},
		{
			name: "the last /20 of the address space",
			vpc:  "255.255.0.0/16",
			used: []string{"255.255.0.0/17", "255.255.128.0/18", "255.255.192.0/19", "255.255.224.0/20"},
			want: "255.255.240.0/20",
		},
		{name: "a VPC that is one /20", vpc: "10.0.0.0/20", want: "10.0.0.0/20"},
		{name: "a large VPC", vpc: "10.0.0.0/8", used: []string{"10.0.0.0/9", "10.128.0.0/24"}, want: "10.128.16.0/20"},
		{
			name:    "full VPC",
			vpc:     "10.0.0.0/16",
			used:    []string{"10.0.0.0/17", "10.0.128.0/18", "10.0.192.0/19", "10.0.224.0/20", "10.0.240.0/28"},
			wantErr: "the VPC 10.0.0.0/16 has no free /20 left for a compute subnet in us-east-1a; delete unused subnets or use another VPC",
			noFree:  true,
		},
		{
			name:    "the top of the address space is full",
			vpc:     "255.255.0.0/16",
			used:    []string{"255.255.0.0/17", "255.255.128.0/18", "255.255.192.0/19", "255.255.224.0/20", "255.255.255.255/32"},
			wantErr: "has no free /20 left",
			noFree:  true,
		},
		{name: "a used /16 equal to the VPC", vpc: "10.0.0.0/16", used: []string{"10.0.0.0/16"}, wantErr: "has no free /20 left", noFree: true},
		{name: "a used block larger than the VPC", vpc: "10.0.0.0/16", used: []string{"10.0.0.0/8"}, wantErr: "has no free /20 left", noFree: true},
		{name: "a /20 VPC with a /28 in use", vpc: "10.0.0.0/20", used: []string{"10.0.8.0/28"}, wantErr: "has no free /20 left", noFree: true},
		{name: "VPC smaller than a /20", vpc: "10.0.0.0/21", wantErr: "smaller than a /20"},
		{name: "IPv6 VPC", vpc: "fd00::/48", wantErr: "not IPv4"},
		{name: "VPC with host bits", vpc: "10.0.0.1/16", wantErr: "use 10.0.0.0/16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vpc := netip.MustParsePrefix(tt.vpc)
			used := make([]netip.Prefix, len(tt.used))
			for i, s := range tt.used {
				used[i] = netip.MustParsePrefix(s)
			}
			got, err := ComputeSubnet(vpc, "us-east-1a", used)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ComputeSubnet(%s, %v) = %v, %v; want error containing %q", tt.vpc, tt.used, got, err, tt.wantErr)
				}
				if errors.Is(err, ErrNoFreeRange) != tt.noFree {
					t.Fatalf("errors.Is(%v, ErrNoFreeRange) = %v; want %v", err, !tt.noFree, tt.noFree)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("ComputeSubnet(%s, %v) = %v, %v; want %s", tt.vpc, tt.used, got, err, tt.want)
			}
		})
	}
}

func TestComputeSubnetInvalidUsed(t *testing.T) {
	_, err := ComputeSubnet(netip.MustParsePrefix("10.0.0.0/16"), "us-east-1a", []netip.Prefix{{}})
	if err == nil || errors.Is(err, ErrNoFreeRange) || !strings.Contains(err.Error(), "used subnet 0") {
		t.Fatalf("err = %v; want an error naming used subnet 0", err)
	}
}

// FuzzComputeSubnet checks ComputeSubnet against a brute-force search that
// uses netip's own overlap test: the result is a /20 inside the VPC that
// overlaps no used block, and no earlier /20 was free; a "full" error means
// every /20 is blocked.
func FuzzComputeSubnet(f *testing.F) {
	f.Add(uint32(0x0a000000), uint8(16), []byte{})
	f.Add(uint32(0x0a000000), uint8(16), []byte{0, 0, 0, 0, 0, 24, 0, 0, 1, 0, 24, 0, 0, 16, 0, 24})
	f.Add(uint32(0x0a000000), uint8(16), []byte{0, 0, 0, 32, 0, 19, 0, 0, 3, 7, 255, 32})
	f.Add(uint32(0xac100000), uint8(12), []byte{1, 172, 16, 0, 0, 13})
	f.Add(uint32(0xffff0000), uint8(20), []byte{0, 0, 0, 15, 255, 32})
	f.Fuzz(func(t *testing.T, vpcAddr uint32, vpcBits uint8, usedBytes []byte) {
		// /8 to /20 keeps the brute-force oracle under 4096 candidates.
		vpc := prefixAt(uint64(vpcAddr), 8+int(vpcBits)%13).Masked()
		hostMask := uint32(1)<<(32-vpc.Bits()) - 1
		var used []netip.Prefix
		// Each 6-byte record is one used block: a flag byte, four address
		// bytes and a length. An even flag puts the block inside the VPC so
		// that collisions are common.
		for rec := usedBytes; len(rec) >= 6 && len(used) < 64; rec = rec[6:] {
			addr := uint32(rec[1])<<24 | uint32(rec[2])<<16 | uint32(rec[3])<<8 | uint32(rec[4])
			if rec[0]%2 == 0 {
				addr = vpcAddr&^hostMask | addr&hostMask
			}
			used = append(used, prefixAt(uint64(addr), int(rec[5])%33))
		}

		got, err := ComputeSubnet(vpc, "fuzz-zone", used)
		want, free := firstFreeSlash20(vpc, used)
		if err != nil {
			if !errors.Is(err, ErrNoFreeRange) {
				t.Fatalf("ComputeSubnet(%s, %v): unexpected error %v", vpc, used, err)
			}
			if free {
				t.Fatalf("ComputeSubnet(%s, %v) said the VPC is full, but %s is free", vpc, used, want)
			}
			return
		}
		if got.Bits() != 20 || got.Masked() != got {
			t.Fatalf("ComputeSubnet(%s, %v) = %s; want an aligned /20", vpc, used, got)
		}
		if !Contains(vpc, got) {
			t.Fatalf("ComputeSubnet(%s, %v) = %s, outside the VPC", vpc, used, got)
		}
		for _, u := range used {
			if u.Overlaps(got) {
				t.Fatalf("ComputeSubnet(%s, %v) = %s, which overlaps used %s", vpc, used, got, u)
			}
		}
		if !free || got != want {
			t.Fatalf("ComputeSubnet(%s, %v) = %s; the first free /20 is %s (free=%v)", vpc, used, got, want, free)
		}
	})
}

// firstFreeSlash20 walks every /20 of vpc in order, one by one, and returns
// the first that overlaps none of used by netip's own test.
func firstFreeSlash20(vpc netip.Prefix, used []netip.Prefix) (netip.Prefix, bool) {
	start := rangeOf(vpc).first
	for i := uint64(0); i < uint64(1)<<(20-vpc.Bits()); i++ {
		c := prefixAt(start+i<<12, 20)
		blocked := false
		for _, u := range used {
			if u.Overlaps(c) {
				blocked = true
				break
			}
		}
		if !blocked {
			return c, true
		}
	}
	return netip.Prefix{}, false
}
