package storage

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

// An FSx for Lustre file system: made in the cluster's compute subnet
// (one zone), behind a security group that lets the nodes reach Lustre's
// ports, optionally linked to the shared bucket through a data repository
// association, mounted through the FSx CSI driver (the FSX_CSI_DRIVER
// feature, turned on in the same operation) as a static PersistentVolume
// and its claim fsx-<name>, which pods see at /fsx/<name>.

// DeploymentType is an FSx for Lustre deployment type.
type DeploymentType string

// The deployment types this version makes. SCRATCH_1 is FSx's first
// generation, superseded by SCRATCH_2.
const (
	Scratch2    DeploymentType = "SCRATCH_2"
	Persistent1 DeploymentType = "PERSISTENT_1"
	Persistent2 DeploymentType = "PERSISTENT_2"
)

// FSxInput is the file system to add.
type FSxInput struct {
	// Name names the storage in the cluster: its claim is fsx-<name> and
	// pods see it at /fsx/<name>.
	Name           string         `json:"name"`
	DeploymentType DeploymentType `json:"deploymentType"`
	// CapacityGiB is the storage capacity: 1200 GiB, or a multiple of
	// 2400 GiB.
	CapacityGiB int `json:"capacityGiB"`
	// ThroughputPerTiB is the persistent types' throughput in MB/s per TiB
	// of storage (0 for scratch).
	ThroughputPerTiB int `json:"throughputPerTiB,omitempty"`
	// Zone picks the compute subnet; empty means the first.
	Zone string `json:"zone,omitempty"`
	// LinkSharedBucket links the file system to the shared bucket: its
	// objects appear under /fsx/<name>/s3 and new files are exported back.
	LinkSharedBucket bool `json:"linkSharedBucket,omitempty"`
}

// FileSystem is a storage's FSx for Lustre file system.
type FileSystem struct {
	Name             string         `json:"name"`
	DeploymentType   DeploymentType `json:"deploymentType"`
	CapacityGiB      int            `json:"capacityGiB"`
	ThroughputPerTiB int            `json:"throughputPerTiB,omitempty"`
	SubnetID         string         `json:"subnetId"`
	Zone             string         `json:"zone"`
	SecurityGroupID  string         `json:"securityGroupId,omitempty"`
	FileSystemID     string         `json:"fileSystemId,omitempty"`
	Arn              string         `json:"arn,omitempty"`
	DNSName          string         `json:"dnsName,omitempty"`
	MountName        string         `json:"mountName,omitempty"`
	// Lifecycle is FSx's lifecycle as the last operation saw it.
	Lifecycle string `json:"lifecycle,omitempty"`
	// DataRepositoryPath is the s3:// path linked, when linked, and
	// AssociationID the association that links it.
	DataRepositoryPath string `json:"dataRepositoryPath,omitempty"`
	AssociationID      string `json:"associationId,omitempty"`
}

// FSxMountRoot is where pods see the file systems.
const FSxMountRoot = "/fsx"

// fsxLinkPath is where a linked bucket appears in the file system.
const fsxLinkPath = "/s3"

// Lustre's ports: the LNet port and the range Lustre's servers reply from.
const (
	lustrePort     = 988
	lustreFromPort = 1018
	lustreToPort   = 1023
)

// throughputs are the PerUnitStorageThroughput values FSx takes by
// deployment type (MB/s per TiB); scratch takes none.
var throughputs = map[DeploymentType][]int{
	Persistent1: {50, 100, 200},
	Persistent2: {125, 250, 500, 1000},
}

// fsxMaxCapacityGiB bounds what one request may ask: FSx's default quota
// of Lustre storage per account and region is 100,800 GiB.
const fsxMaxCapacityGiB = 100800

var storageName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$`)

// checkFSx refuses a file system FSx would refuse, or that cannot be
// placed in the cluster's network, naming the field to change.
func checkFSx(c *hyperpod.Cluster, in *FSxInput) (hyperpod.Subnet, error) {
	const f = "input.fsxLustre."
	switch {
	case !storageName.MatchString(in.Name):
		return hyperpod.Subnet{}, errs.Field(f+"name", "name %q must be 1 to 40 lower-case letters, digits and hyphens, starting and ending with a letter or digit: it names the claim fsx-<name> and the mount /fsx/<name>", in.Name)
	case !slices.Contains([]DeploymentType{Scratch2, Persistent1, Persistent2}, in.DeploymentType):
		return hyperpod.Subnet{}, errs.Field(f+"deploymentType", "deployment type %q is not one of SCRATCH_2, PERSISTENT_1, PERSISTENT_2", in.DeploymentType)
	}
	if err := checkCapacity(in.CapacityGiB); err != nil {
		return hyperpod.Subnet{}, errs.Field(f+"storageCapacityGiB", "%s", err)
	}
	allowed := throughputs[in.DeploymentType]
	switch {
	case allowed == nil && in.ThroughputPerTiB != 0:
		return hyperpod.Subnet{}, errs.Field(f+"throughputPerTiB", "a %s file system has no throughput setting (its throughput follows its capacity); leave throughputPerTiB out, or choose PERSISTENT_2", in.DeploymentType)
	case allowed != nil && !slices.Contains(allowed, in.ThroughputPerTiB):
		return hyperpod.Subnet{}, errs.Field(f+"throughputPerTiB", "a %s file system takes a throughput of %s MB/s per TiB, not %d", in.DeploymentType, joinInts(allowed), in.ThroughputPerTiB)
	case in.LinkSharedBucket && in.DeploymentType != Persistent2:
		return hyperpod.Subnet{}, errs.Field(f+"linkSharedBucket", "FSx links a bucket through a data repository association only on PERSISTENT_2 file systems; choose PERSISTENT_2, or do not link the bucket")
	}
	if len(c.ComputeSubnets()) == 0 || c.Network.VpcID == "" || c.Network.SecurityGroupID == "" {
		return hyperpod.Subnet{}, errs.New(errs.Precondition, "cluster %s has no compute subnet InstantStart knows of (an imported cluster's network is not recorded), so a file system cannot be placed next to its nodes", c.Name)
	}
	if in.Zone == "" {
		return c.ComputeSubnets()[0], nil
	}
	var zones []string
	for _, sn := range c.ComputeSubnets() {
		if sn.Zone == in.Zone {
			return sn, nil
		}
		zones = append(zones, sn.Zone)
	}
	return hyperpod.Subnet{}, errs.Field(f+"zone", "cluster %s has no compute subnet in %s; its compute subnets are in %s", c.Name, in.Zone, strings.Join(zones, ", "))
}

// checkCapacity applies FSx's capacity steps for SSD Lustre (SCRATCH_2,
// PERSISTENT_1, PERSISTENT_2): 1200 GiB, or a multiple of 2400 GiB.
func checkCapacity(gib int) error {
	switch {
	case gib < 1200:
		return fmt.Errorf("a Lustre file system holds at least 1200 GiB, not %d", gib)
	case gib > fsxMaxCapacityGiB:
		return fmt.Errorf("%d GiB is more than FSx's default quota of %d GiB of Lustre storage per region", gib, fsxMaxCapacityGiB)
	case gib != 1200 && gib%2400 != 0:
		lo := gib / 2400 * 2400
		return fmt.Errorf("FSx takes 1200 GiB or a multiple of 2400 GiB, not %d; the nearest are %d and %d", gib, max(lo, 1200), lo+2400)
	}
	return nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
