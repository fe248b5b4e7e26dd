package netplan

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestPlanVPC(t *testing.T) {
	tests := []struct {
		name     string
		existing []string
		want     string
		wantErr  string
		noFree   bool
	}{
		{name: "no VPCs", want: "10.0.0.0/16"},
		{name: "first /16 taken", existing: []string{"10.0.0.0/16"}, want: "10.1.0.0/16"},
		{name: "a /24 inside the first /16", existing: []string{"10.0.5.0/24"}, want: "10.1.0.0/16"},
		{name: "a /15 covers two candidates", existing: []string{"10.0.0.0/15"}, want: "10.2.0.0/16"},
		{name: "partial ranges in two candidates", existing: []string{"10.0.128.0/17", "10.1.255.0/24"}, want: "10.2.0.0/16"},
		{name: "a /8 takes all of 10/8", existing: []string{"10.0.0.0/8"}, want: "172.16.0.0/16"},
		{name: "a /8 with host bits is still a /8", existing: []string{"10.9.9.9/8"}, want: "172.16.0.0/16"},
		{name: "10/8 and half of 172.16/12", existing: []string{"10.0.0.0/8", "172.16.0.0/13"}, want: "172.24.0.0/16"},
		{name: "10/8 and 172.16/12", existing: []string{"172.16.0.0/12", "10.0.0.0/8"}, want: "192.168.0.0/16"},
		{name: "unrelated VPCs do not block", existing: []string{"172.16.0.0/16", "100.64.0.0/10"}, want: "10.0.0.0/16"},
		{name: "IPv6 blocks are ignored", existing: []string{"::/0"}, want: "10.0.0.0/16"},
		{
			name:     "all private ranges taken",
			existing: []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"},
			wantErr:  "no free /16 is left for a new VPC",
			noFree:   true,
		},
		{
			name:     "a part of each range taken is not enough",
			existing: []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.200.0/24"},
			wantErr:  "delete an unused VPC or use an existing VPC",
			noFree:   true,
		},
		{name: "everything taken", existing: []string{"0.0.0.0/0"}, wantErr: "no free /16", noFree: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			existing := make([]netip.Prefix, len(tt.existing))
			for i, s := range tt.existing {
				existing[i] = netip.MustParsePrefix(s)
			}
			got, err := PlanVPC(existing)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("PlanVPC(%v) = %v, %v; want error containing %q", tt.existing, got, err, tt.wantErr)
				}
				if errors.Is(err, ErrNoFreeRange) != tt.noFree {
					t.Fatalf("errors.Is(%v, ErrNoFreeRange) = %v; want %v", err, !tt.noFree, tt.noFree)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("PlanVPC(%v) = %v, %v; want %s", tt.existing, got, err, tt.want)
			}
		})
	}
}

func TestPlanVPCInvalidExisting(t *testing.T) {
	_, err := PlanVPC([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/16"), {}})
	if err == nil || errors.Is(err, ErrNoFreeRange) || !strings.Contains(err.Error(), "existing VPC block 1") {
		t.Fatalf("PlanVPC with a zero prefix: err = %v; want an error naming block 1", err)
	}
}

func TestVPCCandidates(t *testing.T) {
	var got []netip.Prefix
	for c := range vpcCandidates() {
		got = append(got, c)
	}
	if len(got) != 256+16+1 {
		t.Fatalf("got %d candidates; want %d", len(got), 256+16+1)
	}
	for i, want := range map[int]string{0: "10.0.0.0/16", 255: "10.255.0.0/16", 256: "172.16.0.0/16", 271: "172.31.0.0/16", 272: "192.168.0.0/16"} {
		if got[i].String() != want {
			t.Errorf("candidate %d = %s; want %s", i, got[i], want)
		}
	}
}
