package netplan

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseCIDR(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr string
	}{
		{in: "10.0.0.0/16", want: "10.0.0.0/16"},
		{in: "192.168.4.0/24", want: "192.168.4.0/24"},
		{in: "10.1.2.3/32", want: "10.1.2.3/32"},
		{in: "0.0.0.0/0", want: "0.0.0.0/0"},
		{in: "10.0.0.1/16", wantErr: "use 10.0.0.0/16"},
		{in: "172.16.5.0/12", wantErr: "use 172.16.0.0/12"},
		{in: "fd00::/8", wantErr: "not an IPv4 block"},
		{in: "::ffff:10.0.0.0/112", wantErr: "not an IPv4 block"},
		{in: "10.0.0.0", wantErr: "not a CIDR block"},
		{in: "10.0.0.0/33", wantErr: "not a CIDR block"},
		{in: "10.0.0/16", wantErr: "not a CIDR block"},
		{in: "", wantErr: "not a CIDR block"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCIDR(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseCIDR(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("ParseCIDR(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestOverlapsAndContains(t *testing.T) {
	tests := []struct {
		a, b       string
		overlaps   bool
		aContainsB bool
		bContainsA bool
	}{
		{a: "10.0.0.0/8", b: "10.1.0.0/16", overlaps: true, aContainsB: true},
		{a: "10.0.0.0/16", b: "10.0.0.0/16", overlaps: true, aContainsB: true, bContainsA: true},
		{a: "10.0.0.0/16", b: "10.1.0.0/16", overlaps: false},
		{a: "10.0.0.0/19", b: "10.0.16.0/20", overlaps: true, aContainsB: true},
		{a: "10.0.0.0/20", b: "10.0.16.0/20", overlaps: false},
		{a: "10.0.15.255/32", b: "10.0.0.0/20", overlaps: true, bContainsA: true},
		{a: "0.0.0.0/0", b: "192.168.0.0/16", overlaps: true, aContainsB: true},
		{a: "10.0.0.0/8", b: "fd00::/8", overlaps: false},
	}
	for _, tt := range tests {
		t.Run(tt.a+"~"+tt.b, func(t *testing.T) {
			a, b := netip.MustParsePrefix(tt.a), netip.MustParsePrefix(tt.b)
			if got := Overlaps(a, b); got != tt.overlaps {
				t.Errorf("Overlaps(%s, %s) = %v; want %v", a, b, got, tt.overlaps)
			}
			if got := Overlaps(b, a); got != tt.overlaps {
				t.Errorf("Overlaps(%s, %s) = %v; want %v", b, a, got, tt.overlaps)
			}
			if got := Contains(a, b); got != tt.aContainsB {
				t.Errorf("Contains(%s, %s) = %v; want %v", a, b, got, tt.aContainsB)
			}
			if got := Contains(b, a); got != tt.bContainsA {
				t.Errorf("Contains(%s, %s) = %v; want %v", b, a, got, tt.bContainsA)
			}
		})
	}
	if Contains(netip.Prefix{}, netip.MustParsePrefix("10.0.0.0/8")) {
		t.Error("Contains(invalid, 10.0.0.0/8) = true; want false")
	}
}
