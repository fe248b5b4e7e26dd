package sim

import (
	"strings"

	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// instanceNetwork is what EC2 publishes of an instance type's networking:
// how many network interfaces it takes, how many private IPv4 addresses
// each of them takes, and how many of its network cards carry an EFA.
type instanceNetwork struct {
	maxENIs, ipv4PerENI, efas int
}

// instanceNetworks are the networking figures of the simulated instance
// types, as EC2 publishes them (DescribeInstanceTypes' NetworkInfo).
var instanceNetworks = map[string]instanceNetwork{
	"p5.48xlarge":   {64, 50, 32},
	"p5e.48xlarge":  {64, 50, 32},
	"p4d.24xlarge":  {60, 50, 4},
	"p4de.24xlarge": {60, 50, 4},
	"g5.xlarge":     {4, 15, 0},
	"g5.12xlarge":   {15, 50, 1},
	"g5.48xlarge":   {7, 50, 1},
	"g6.12xlarge":   {8, 30, 1},
	"g6e.12xlarge":  {10, 30, 1},
	"trn1.32xlarge": {40, 50, 8},
	"trn2.48xlarge": {32, 50, 16},
	"m5.large":      {3, 10, 0},
	"m5.xlarge":     {4, 15, 0},
	"m5.2xlarge":    {4, 15, 0},
	"c5.4xlarge":    {8, 30, 0},
	"t3.medium":     {3, 6, 0},
}

// networkOf returns the networking figures of typ (an EC2 name, or a
// SageMaker one with "ml."). For a type the table does not know it derives
// them from the size, as EC2's figures grow with it, and gives an EFA to
// the large accelerated sizes.
func networkOf(typ string) instanceNetwork {
	typ = strings.TrimPrefix(typ, "ml.")
	if n, ok := instanceNetworks[typ]; ok {
		return n
	}
	_, size, _ := strings.Cut(typ, ".")
	n := instanceNetwork{maxENIs: 8, ipv4PerENI: 30}
	switch size {
	case "nano", "micro", "small", "medium":
		n = instanceNetwork{maxENIs: 3, ipv4PerENI: 6}
	case "large":
		n = instanceNetwork{maxENIs: 3, ipv4PerENI: 10}
	case "xlarge", "2xlarge":
		n = instanceNetwork{maxENIs: 4, ipv4PerENI: 15}
	case "16xlarge", "24xlarge", "32xlarge", "48xlarge", "metal":
		n = instanceNetwork{maxENIs: 15, ipv4PerENI: 50}
	}
	if accelerated(instanceFamily(typ)) && n.ipv4PerENI >= 30 {
		n.efas = 1
	}
	return n
}

// nodeAddresses is how many private addresses of its subnet a HyperPod
// node of typ takes on EKS, with the group's network interface mode
// (empty, "efa" or "efa-only"). The VPC CNI fills the primary network
// interface with secondary addresses for pods (ipv4PerENI in all), and
// HyperPod attaches an EFA interface on each other EFA network card: an
// EFA with ENA takes one address, an EFA-only interface none. A
// p5.48xlarge with EFA interfaces takes 50 + 31 = 81. A node never takes
// more than all its interfaces can hold.
func nodeAddresses(typ, mode string) int {
	n := networkOf(typ)
	ips := n.ipv4PerENI
	if n.efas > 1 && mode != string(smtypes.ClusterInterfaceTypeEfaOnly) {
		ips += n.efas - 1
	}
	return min(ips, n.maxENIs*n.ipv4PerENI)
}
