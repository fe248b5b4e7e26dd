package sim

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	fsxtypes "github.com/aws/aws-sdk-go-v2/service/fsx/types"
)

// The default FSx quotas of an account, per region: how many file systems
// it has and how much Lustre storage they hold in all.
const (
	fsxMaxFileSystems = 100
	fsxMaxStorage     = 100800 // GiB
)

// fsxDescribeMax is the most file systems one DescribeFileSystems page holds.
const fsxDescribeMax = 100

// lustreVersions are the Lustre versions FSx runs.
var lustreVersions = []string{"2.10", "2.12", "2.15"}

// lustrePorts are the TCP ports Lustre clients and servers talk on (LNET):
// a file system's security groups must let them in.
var lustrePorts = []int32{988, 1018, 1019, 1020, 1021, 1022, 1023}

var (
	weeklyTimePattern = regexp.MustCompile(`^[1-7]:([01]\d|2[0-3]):[0-5]\d$`)
	dailyTimePattern  = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d$`)
)

const (
	scratch1    = fsxtypes.LustreDeploymentTypeScratch1
	scratch2    = fsxtypes.LustreDeploymentTypeScratch2
	persistent1 = fsxtypes.LustreDeploymentTypePersistent1
	persistent2 = fsxtypes.LustreDeploymentTypePersistent2
)

func isScratch(d fsxtypes.LustreDeploymentType) bool { return d == scratch1 || d == scratch2 }

// lustreThroughputs lists the PerUnitStorageThroughput values, in
// MB/s/TiB, of a deployment type with a storage type; nil where none
// applies (scratch).
func lustreThroughputs(d fsxtypes.LustreDeploymentType, st fsxtypes.StorageType) []int32 {
	switch {
	case d == persistent1 && st == fsxtypes.StorageTypeSsd:
		return []int32{50, 100, 200}
	case d == persistent1 && st == fsxtypes.StorageTypeHdd:
		return []int32{12, 40}
	case d == persistent2 && st == fsxtypes.StorageTypeSsd:
		return []int32{125, 250, 500, 1000}
	}
	return nil
}

// lustreCapacity tells whether FSx makes a file system of capacity GiB
// with this deployment type, storage type and throughput, and names the
// sizes it makes.
func lustreCapacity(d fsxtypes.LustreDeploymentType, st fsxtypes.StorageType, throughput, capacity int32) (bool, string) {
	switch {
	case st == fsxtypes.StorageTypeHdd:
		step := int32(1800)
		if throughput == 12 {
			step = 6000
		}
		return capacity > 0 && capacity%step == 0, fmt.Sprintf("increments of %d GiB", step)
	case d == scratch1:
		return capacity == 1200 || capacity == 2400 || capacity > 0 && capacity%3600 == 0, "1200 GiB, 2400 GiB or increments of 3600 GiB"
	}
	return capacity == 1200 || capacity > 0 && capacity%2400 == 0, "1200 GiB or increments of 2400 GiB"
}

func joinInt32(vs []int32) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

// CreateFileSystem starts creating a Lustre file system: CREATING for six
// to ten minutes (drawn from the world's seed, divided by the speed), then
// AVAILABLE. A repeat with the same ClientRequestToken and request returns
// the file system; the token with another request is refused.
func (a *fsxAPI) CreateFileSystem(ctx context.Context, in *fsx.CreateFileSystemInput, _ ...func(*fsx.Options)) (*fsx.CreateFileSystemOutput, error) {
	return call(ctx, a.w, svcFSx, a.region, "CreateFileSystem", func(t *txn) (*fsx.CreateFileSystemOutput, error) {
		in := orZero(in)
		if err := need("CreateFileSystemInput", param{"FileSystemType", in.FileSystemType != ""}, param{"SubnetIds", in.SubnetIds != nil}); err != nil {
			return nil, err
		}
		tags, err := fsxTags("CreateFileSystemInput", in.Tags)
		if err != nil {
			return nil, err
		}
		token := aws.ToString(in.ClientRequestToken)
		if len(token) > 63 {
			return nil, fsxValidation("1 validation error detected: Value at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 63")
		}
		req := *in
		req.ClientRequestToken = nil
		hash := fsxRequestHash(req)
		if old := t.fileSystemByToken(token); old != nil {
			if old.RequestHash != hash {
				return nil, fsxTokenReused(token)
			}
			return &fsx.CreateFileSystemOutput{FileSystem: t.fileSystemOut(old)}, nil
		}
		switch in.FileSystemType {
		case fsxtypes.FileSystemTypeLustre:
		case fsxtypes.FileSystemTypeWindows, fsxtypes.FileSystemTypeOntap, fsxtypes.FileSystemTypeOpenzfs:
			return nil, fsxBadRequest("The simulated FSx makes only LUSTRE file systems, not %s.", in.FileSystemType)
		default:
			return nil, fsxValidation("1 validation error detected: Value '%s' at 'fileSystemType' failed to satisfy constraint: Member must satisfy enum value set: [WINDOWS, LUSTRE, ONTAP, OPENZFS]", in.FileSystemType)
		}
		if in.WindowsConfiguration != nil || in.OntapConfiguration != nil || in.OpenZFSConfiguration != nil {
			return nil, fsxBadRequest("A LUSTRE file system takes a LustreConfiguration only, not a Windows, ONTAP or OpenZFS configuration.")
		}
		fs, err := t.lustreSettings(in)
		if err != nil {
			return nil, err
		}
		if fs.VpcID, fs.SecurityGroupIDs, err = t.fsxNetwork(in.SubnetIds, in.SecurityGroupIds); err != nil {
			return nil, err
		}
		if err := t.fsxQuotas(fs.StorageCapacity); err != nil {
			return nil, err
		}
		fs.SubnetIDs = slices.Clone(in.SubnetIds)
		fs.Token, fs.RequestHash, fs.Tags = token, hash, tags
		t.newFileSystem(fs)
		return &fsx.CreateFileSystemOutput{FileSystem: t.fileSystemOut(fs)}, nil
	})
}

// lustreSettings checks the Lustre half of a CreateFileSystem request and
// returns the file system it describes, with no ids or network yet.
func (t *txn) lustreSettings(in *fsx.CreateFileSystemInput) (*fsxFileSystemRec, error) {
	lc := orZero(in.LustreConfiguration)
	d := cmp.Or(lc.DeploymentType, scratch1)
	switch d {
	case scratch1, scratch2, persistent1, persistent2:
	default:
		return nil, fsxValidation("1 validation error detected: Value '%s' at 'lustreConfiguration.deploymentType' failed to satisfy constraint: Member must satisfy enum value set: [SCRATCH_1, SCRATCH_2, PERSISTENT_1, PERSISTENT_2]", d)
	}
	st := cmp.Or(in.StorageType, fsxtypes.StorageTypeSsd)
	switch st {
	case fsxtypes.StorageTypeSsd:
	case fsxtypes.StorageTypeHdd:
		if d != persistent1 {
			return nil, fsxBadRequest("HDD storage is offered with the PERSISTENT_1 deployment type only, not %s.", d)
		}
	case fsxtypes.StorageTypeIntelligentTiering:
		return nil, fsxBadRequest("The simulated FSx does not offer the INTELLIGENT_TIERING storage class: use SSD.")
	default:
		return nil, fsxValidation("1 validation error detected: Value '%s' at 'storageType' failed to satisfy constraint: Member must satisfy enum value set: [SSD, HDD, INTELLIGENT_TIERING]", st)
	}
	fs := &fsxFileSystemRec{DeploymentType: string(d), StorageType: string(st)}

	allowed, tp := lustreThroughputs(d, st), lc.PerUnitStorageThroughput
	switch {
	case allowed == nil && tp != nil:
		return nil, fsxBadRequest("PerUnitStorageThroughput applies to PERSISTENT_1 and PERSISTENT_2 file systems, not %s.", d)
	case allowed != nil && tp == nil:
		return nil, fsxBadRequest("PerUnitStorageThroughput is required for %s file systems with %s storage: use %s MB/s/TiB.", d, st, joinInt32(allowed))
	case allowed != nil && !slices.Contains(allowed, *tp):
		return nil, &fsxtypes.InvalidPerUnitStorageThroughput{Message: aws.String(fmt.Sprintf(
			"An invalid value for PerUnitStorageThroughput was provided: %d. %s file systems with %s storage take %s MB/s/TiB.", *tp, d, st, joinInt32(allowed)))}
	case tp != nil:
		fs.Throughput = *tp
	}
	switch {
	case st == fsxtypes.StorageTypeHdd && lc.DriveCacheType != fsxtypes.DriveCacheTypeNone && lc.DriveCacheType != fsxtypes.DriveCacheTypeRead:
		return nil, fsxBadRequest("DriveCacheType is required with HDD storage: use NONE or READ.")
	case st != fsxtypes.StorageTypeHdd && lc.DriveCacheType != "":
		return nil, fsxBadRequest("DriveCacheType applies to HDD storage only.")
	}
	fs.DriveCacheType = string(lc.DriveCacheType)

	if in.StorageCapacity == nil {
		return nil, fsxBadRequest("StorageCapacity is required for a LUSTRE file system.")
	}
	if ok, sizes := lustreCapacity(d, st, fs.Throughput, *in.StorageCapacity); !ok {
		return nil, fsxBadRequest("Invalid storage capacity %d GiB: %s file systems with %s storage take %s.", *in.StorageCapacity, d, st, sizes)
	}
	fs.StorageCapacity = *in.StorageCapacity

	if err := fs.lustreVersion(aws.ToString(in.FileSystemTypeVersion), lc.MetadataConfiguration); err != nil {
		return nil, err
	}
	if err := t.lustreOptions(fs, in.KmsKeyId, lc); err != nil {
		return nil, err
	}
	if err := t.lustreImport(fs, lc); err != nil {
		return nil, err
	}
	return fs, nil
}

// lustreVersion sets the file system's Lustre version, the one asked or
// FSx's default, and its metadata configuration.
func (fs *fsxFileSystemRec) lustreVersion(v string, meta *fsxtypes.CreateFileSystemLustreMetadataConfiguration) error {
	d := fsxtypes.LustreDeploymentType(fs.DeploymentType)
	if v == "" {
		switch {
		case d == persistent2 && meta != nil:
			v = "2.15"
		case d == persistent2:
			v = "2.12"
		default:
			v = "2.10"
		}
	}
	switch {
	case !slices.Contains(lustreVersions, v):
		return fsxBadRequest("FileSystemTypeVersion %s is not a Lustre version FSx runs: use 2.10, 2.12 or 2.15.", v)
	case d == persistent2 && v == "2.10":
		return fsxBadRequest("PERSISTENT_2 file systems run Lustre 2.12 or 2.15, not 2.10.")
	case meta != nil && d != persistent2:
		return fsxBadRequest("MetadataConfiguration applies to PERSISTENT_2 file systems only, not %s.", d)
	case meta != nil && v != "2.15":
		return fsxBadRequest("A metadata configuration needs Lustre 2.15, not %s.", v)
	}
	fs.Version = v
	if meta == nil {
		return nil
	}
	switch meta.Mode {
	case fsxtypes.MetadataConfigurationModeAutomatic:
		if meta.Iops != nil {
			return fsxBadRequest("MetadataConfiguration Iops is set by FSx in AUTOMATIC mode: leave it out, or use USER_PROVISIONED.")
		}
	case fsxtypes.MetadataConfigurationModeUserProvisioned:
		iops := aws.ToInt32(meta.Iops)
		if !(iops == 1500 || iops == 3000 || iops == 6000 || iops > 0 && iops <= 192000 && iops%12000 == 0) {
			return fsxBadRequest("MetadataConfiguration Iops %d is invalid: use 1500, 3000, 6000 or increments of 12000 up to 192000.", iops)
		}
		fs.MetadataIops = iops
	default:
		return fsxValidation("1 validation error detected: Value '%s' at 'lustreConfiguration.metadataConfiguration.mode' failed to satisfy constraint: Member must satisfy enum value set: [AUTOMATIC, USER_PROVISIONED]", meta.Mode)
	}
	fs.MetadataMode = string(meta.Mode)
	return nil
}

// lustreOptions checks encryption, backups, maintenance, compression and
// EFA, and sets them on fs.
func (t *txn) lustreOptions(fs *fsxFileSystemRec, kmsKey *string, lc *fsxtypes.CreateFileSystemLustreConfiguration) error {
	d := fsxtypes.LustreDeploymentType(fs.DeploymentType)
	days := aws.ToInt32(lc.AutomaticBackupRetentionDays)
	switch {
	case isScratch(d) && kmsKey != nil:
		return fsxBadRequest("Scratch file systems are encrypted with the FSx service key: KmsKeyId applies to PERSISTENT_1 and PERSISTENT_2.")
	case days < 0 || days > 90:
		return fsxValidation("1 validation error detected: Value '%d' at 'lustreConfiguration.automaticBackupRetentionDays' failed to satisfy constraint: Member must have value between 0 and 90", days)
	case isScratch(d) && (days > 0 || lc.DailyAutomaticBackupStartTime != nil || aws.ToBool(lc.CopyTagsToBackups)):
		return fsxBadRequest("Scratch file systems take no automatic backups.")
	case lc.DailyAutomaticBackupStartTime != nil && !dailyTimePattern.MatchString(*lc.DailyAutomaticBackupStartTime):
		return fsxBadRequest("DailyAutomaticBackupStartTime %q is not a time HH:MM.", *lc.DailyAutomaticBackupStartTime)
	case lc.WeeklyMaintenanceStartTime != nil && !weeklyTimePattern.MatchString(*lc.WeeklyMaintenanceStartTime):
		return fsxBadRequest("WeeklyMaintenanceStartTime %q is not a time d:HH:MM, d from 1 (Monday) to 7.", *lc.WeeklyMaintenanceStartTime)
	case aws.ToBool(lc.EfaEnabled) && d != persistent2:
		return fsxBadRequest("EFA applies to PERSISTENT_2 file systems only, not %s.", d)
	}
	fs.BackupDays, fs.CopyTagsToBackup, fs.EfaEnabled = days, aws.ToBool(lc.CopyTagsToBackups), aws.ToBool(lc.EfaEnabled)
	fs.BackupStart, fs.Maintenance, fs.KmsKeyID = aws.ToString(lc.DailyAutomaticBackupStartTime), aws.ToString(lc.WeeklyMaintenanceStartTime), aws.ToString(kmsKey)
	switch c := cmp.Or(lc.DataCompressionType, fsxtypes.DataCompressionTypeNone); c {
	case fsxtypes.DataCompressionTypeNone, fsxtypes.DataCompressionTypeLz4:
		fs.Compression = string(c)
	default:
		return fsxValidation("1 validation error detected: Value '%s' at 'lustreConfiguration.dataCompressionType' failed to satisfy constraint: Member must satisfy enum value set: [NONE, LZ4]", c)
	}
	return nil
}

// lustreImport checks the file-system-wide link to S3 (ImportPath and the
// rest) that file systems other than PERSISTENT_2 may have instead of data
// repository associations, and sets it on fs.
func (t *txn) lustreImport(fs *fsxFileSystemRec, lc *fsxtypes.CreateFileSystemLustreConfiguration) error {
	if lc.ImportPath == nil && lc.ExportPath == nil && lc.AutoImportPolicy == "" && lc.ImportedFileChunkSize == nil {
		return nil
	}
	if fs.DeploymentType == string(persistent2) {
		return fsxBadRequest("PERSISTENT_2 file systems link to S3 through data repository associations (CreateDataRepositoryAssociation), not ImportPath, ExportPath, AutoImportPolicy or ImportedFileChunkSize.")
	}
	if lc.ImportPath == nil {
		return fsxBadRequest("ExportPath, AutoImportPolicy and ImportedFileChunkSize need an ImportPath.")
	}
	bucket, _, ok := s3RepoPath(*lc.ImportPath)
	if !ok {
		return &fsxtypes.InvalidImportPath{Message: aws.String(fmt.Sprintf("The import path %s is not an S3 path s3://bucket/prefix.", *lc.ImportPath))}
	}
	if why := t.fsxBucketProblem(bucket); why != "" {
		return &fsxtypes.InvalidImportPath{Message: aws.String(fmt.Sprintf("The import path %s cannot be used: %s.", *lc.ImportPath, why))}
	}
	fs.ImportPath = *lc.ImportPath
	fs.ExportPath = fmt.Sprintf("s3://%s/FSxLustre%s", bucket, t.now.UTC().Format("20060102T150405Z"))
	if lc.ExportPath != nil {
		if eb, _, ok := s3RepoPath(*lc.ExportPath); !ok || eb != bucket {
			return &fsxtypes.InvalidExportPath{Message: aws.String(fmt.Sprintf("The export path %s must be an S3 path in the import bucket %s.", *lc.ExportPath, bucket))}
		}
		fs.ExportPath = *lc.ExportPath
	}
	switch p := cmp.Or(lc.AutoImportPolicy, fsxtypes.AutoImportPolicyTypeNone); p {
	case fsxtypes.AutoImportPolicyTypeNone, fsxtypes.AutoImportPolicyTypeNew, fsxtypes.AutoImportPolicyTypeNewChanged, fsxtypes.AutoImportPolicyTypeNewChangedDeleted:
		fs.AutoImport = string(p)
	default:
		return fsxValidation("1 validation error detected: Value '%s' at 'lustreConfiguration.autoImportPolicy' failed to satisfy constraint: Member must satisfy enum value set: [NONE, NEW, NEW_CHANGED, NEW_CHANGED_DELETED]", p)
	}
	chunk, err := fsxChunkSize(lc.ImportedFileChunkSize)
	fs.ChunkSize = chunk
	return err
}

// fsxChunkSize checks an ImportedFileChunkSize (MiB), 1024 when unset.
func fsxChunkSize(n *int32) (int32, error) {
	if n == nil {
		return 1024, nil
	}
	if *n < 1 || *n > 512000 {
		return 0, fsxValidation("1 validation error detected: Value '%d' at 'importedFileChunkSize' failed to satisfy constraint: Member must have value between 1 and 512000", *n)
	}
	return *n, nil
}

// s3RepoPath splits an S3 data repository path s3://bucket/prefix.
func s3RepoPath(p string) (bucket, prefix string, ok bool) {
	rest, found := strings.CutPrefix(p, "s3://")
	if !found {
		return "", "", false
	}
	bucket, prefix, _ = strings.Cut(rest, "/")
	return bucket, prefix, bucket != ""
}

// fsxBucketProblem tells why FSx cannot link bucket name, or "" when it
// can: the bucket must exist, be the account's and be in the file
// system's region.
func (t *txn) fsxBucketProblem(name string) string {
	b := t.st.Buckets[name]
	switch {
	case b == nil:
		return fmt.Sprintf("the S3 bucket %s does not exist", name)
	case b.Owner != t.account():
		return fmt.Sprintf("Amazon FSx cannot access the S3 bucket %s: it belongs to another account", name)
	case b.Region != t.region:
		return fmt.Sprintf("the S3 bucket %s is in %s, and a file system of %s links buckets of its own region", name, b.Region, t.region)
	}
	return ""
}

// fsxNetwork checks a file system's network: one existing subnet, security
// groups of its VPC (the VPC's default group when none is given) that let
// Lustre traffic in. It returns the VPC and the groups.
func (t *txn) fsxNetwork(subnetIDs, groupIDs []string) (string, []string, error) {
	if len(subnetIDs) != 1 {
		return "", nil, &fsxtypes.InvalidNetworkSettings{Message: aws.String(fmt.Sprintf("A LUSTRE file system takes exactly one subnet, got %d.", len(subnetIDs)))}
	}
	s := t.rs.Subnets[subnetIDs[0]]
	if s == nil {
		return "", nil, &fsxtypes.InvalidNetworkSettings{InvalidSubnetId: aws.String(subnetIDs[0]),
			Message: aws.String(fmt.Sprintf("The subnet ID '%s' does not exist.", subnetIDs[0]))}
	}
	groups := slices.Clone(groupIDs)
	if len(groups) == 0 {
		if v := t.rs.VPCs[s.VpcID]; v != nil {
			groups = []string{v.DefaultGroupID}
		}
	}
	for _, id := range groups {
		if g := t.rs.SecurityGroups[id]; g == nil || g.VpcID != s.VpcID {
			return "", nil, &fsxtypes.InvalidNetworkSettings{InvalidSecurityGroupId: aws.String(id),
				Message: aws.String(fmt.Sprintf("The security group '%s' does not exist in VPC '%s', the VPC of subnet %s.", id, s.VpcID, s.ID))}
		}
	}
	if port, ok := t.lustreTrafficAllowed(groups, s); !ok {
		return "", nil, &fsxtypes.InvalidNetworkSettings{InvalidSecurityGroupId: aws.String(groups[0]), Message: aws.String(fmt.Sprintf(
			"The security groups %s do not permit Amazon FSx for Lustre LNET network traffic on port %d: allow inbound TCP 988 and 1018-1023 from the groups themselves or from the subnet's CIDR %s.",
			strings.Join(groups, ", "), port, s.CIDR))}
	}
	return s.VpcID, groups, nil
}

// lustreTrafficAllowed tells whether the groups let in Lustre traffic on
// every Lustre port from one of the groups or from the whole subnet, and
// if not, the first port they keep out.
func (t *txn) lustreTrafficAllowed(groups []string, s *subnetRec) (int32, bool) {
	subnet := netip.MustParsePrefix(s.CIDR)
	allows := func(r ruleRec, port int32) bool {
		switch {
		case r.Protocol != "-1" && r.Protocol != "tcp" && r.Protocol != "6":
			return false
		case r.Protocol != "-1" && (port < r.FromPort || port > r.ToPort):
			return false
		case r.SourceGroupID != "":
			return slices.Contains(groups, r.SourceGroupID)
		}
		c, err := netip.ParsePrefix(r.CIDR)
		return err == nil && c.Bits() <= subnet.Bits() && c.Contains(subnet.Addr())
	}
	for _, port := range lustrePorts {
		open := false
		for _, id := range groups {
			for _, r := range t.rs.SecurityGroups[id].Ingress {
				open = open || allows(r, port)
			}
		}
		if !open {
			return port, false
		}
	}
	return 0, true
}

// fsxQuotas refuses a file system that would take the region past the
// account's quotas. File systems count until they are gone.
func (t *txn) fsxQuotas(capacity int32) error {
	total := int64(capacity)
	for _, fs := range t.rs.FileSystems {
		total += int64(fs.StorageCapacity)
	}
	switch {
	case len(t.rs.FileSystems) >= fsxMaxFileSystems:
		return &fsxtypes.ServiceLimitExceeded{Limit: fsxtypes.ServiceLimitFileSystemCount,
			Message: aws.String(fmt.Sprintf("The account has %d file systems in %s, its quota: delete one or ask for a higher quota.", len(t.rs.FileSystems), t.region))}
	case total > fsxMaxStorage:
		return &fsxtypes.ServiceLimitExceeded{Limit: fsxtypes.ServiceLimitTotalStorage,
			Message: aws.String(fmt.Sprintf("The file system would bring the account's Lustre storage in %s to %d GiB, past its quota of %d GiB.", t.region, total, fsxMaxStorage))}
	}
	return nil
}

// newFileSystem gives fs its ids, network interfaces, mount name and
// lifecycle, and adds it to the region.
func (t *txn) newFileSystem(fs *fsxFileSystemRec) {
	fs.ID = t.newID("fs")
	fs.ARN = fmt.Sprintf("arn:aws:fsx:%s:%s:file-system/%s", t.region, t.account(), fs.ID)
	// One interface for the metadata server and one per storage server of
	// about 2.4 TiB.
	for range 1 + max(1, fs.StorageCapacity/2400) {
		fs.ENIs = append(fs.ENIs, t.newID("eni"))
	}
	fs.MountName = "fsx"
	if fs.DeploymentType != string(scratch1) {
		fs.MountName = t.randString(lowerAlnum, 8)
	}
	if fs.KmsKeyID == "" && !isScratch(fsxtypes.LustreDeploymentType(fs.DeploymentType)) {
		fs.KmsKeyID = fmt.Sprintf("arn:aws:kms:%s:%s:key/%s", t.region, t.account(), t.uuid())
	}
	v := t.nextRand()
	if fs.Maintenance == "" {
		fs.Maintenance = fmt.Sprintf("%d:%02d:%02d", 1+v%7, (v/7)%24, 30*((v/168)%2))
	}
	if fs.BackupDays > 0 && fs.BackupStart == "" {
		fs.BackupStart = fmt.Sprintf("%02d:00", (v/336)%24)
	}
	fs.Life = newLifecycle(t.now, t.after(t.draw(fsxCreateMin, fsxCreateMax)))
	t.rs.FileSystems[fs.ID] = fs
}

func (t *txn) fileSystemByToken(token string) *fsxFileSystemRec {
	if token == "" {
		return nil
	}
	for _, fs := range t.rs.FileSystems {
		if fs.Token == token {
			return fs
		}
	}
	return nil
}

func (t *txn) fileSystem(id *string) (*fsxFileSystemRec, error) {
	fs := t.rs.FileSystems[aws.ToString(id)]
	if fs == nil {
		return nil, fsxNotFound(aws.ToString(id))
	}
	return fs, nil
}

func (t *txn) fileSystemOut(fs *fsxFileSystemRec) *fsxtypes.FileSystem {
	status := fs.status(t.now)
	lc := &fsxtypes.LustreFileSystemConfiguration{
		DeploymentType:             fsxtypes.LustreDeploymentType(fs.DeploymentType),
		MountName:                  aws.String(fs.MountName),
		DataCompressionType:        fsxtypes.DataCompressionType(fs.Compression),
		WeeklyMaintenanceStartTime: aws.String(fs.Maintenance),
		DriveCacheType:             fsxtypes.DriveCacheType(fs.DriveCacheType),
		EfaEnabled:                 aws.Bool(fs.EfaEnabled),
	}
	if fs.Throughput != 0 {
		lc.PerUnitStorageThroughput = aws.Int32(fs.Throughput)
	}
	if !isScratch(lc.DeploymentType) {
		lc.AutomaticBackupRetentionDays = aws.Int32(fs.BackupDays)
		lc.CopyTagsToBackups = aws.Bool(fs.CopyTagsToBackup)
		lc.DailyAutomaticBackupStartTime = optionalString(fs.BackupStart)
	}
	if fs.MetadataMode != "" {
		lc.MetadataConfiguration = &fsxtypes.FileSystemLustreMetadataConfiguration{Mode: fsxtypes.MetadataConfigurationMode(fs.MetadataMode)}
		if fs.MetadataIops != 0 {
			lc.MetadataConfiguration.Iops = aws.Int32(fs.MetadataIops)
		}
	}
	if fs.ImportPath != "" {
		repo := fsxtypes.DataRepositoryLifecycleAvailable
		switch status {
		case fsxtypes.FileSystemLifecycleCreating:
			repo = fsxtypes.DataRepositoryLifecycleCreating
		case fsxtypes.FileSystemLifecycleDeleting:
			repo = fsxtypes.DataRepositoryLifecycleDeleting
		case fsxtypes.FileSystemLifecycleFailed:
			repo = fsxtypes.DataRepositoryLifecycleFailed
		}
		lc.DataRepositoryConfiguration = &fsxtypes.DataRepositoryConfiguration{
			ImportPath: aws.String(fs.ImportPath), ExportPath: aws.String(fs.ExportPath),
			AutoImportPolicy: fsxtypes.AutoImportPolicyType(fs.AutoImport), ImportedFileChunkSize: aws.Int32(fs.ChunkSize), Lifecycle: repo,
		}
	}
	out := &fsxtypes.FileSystem{
		FileSystemId: aws.String(fs.ID), ResourceARN: aws.String(fs.ARN), OwnerId: aws.String(t.account()),
		FileSystemType: fsxtypes.FileSystemTypeLustre, FileSystemTypeVersion: aws.String(fs.Version),
		CreationTime: aws.Time(fs.Life.CreatedAt), Lifecycle: status,
		DNSName:         aws.String(fmt.Sprintf("%s.fsx.%s.amazonaws.com", fs.ID, t.region)),
		StorageCapacity: aws.Int32(fs.StorageCapacity), StorageType: fsxtypes.StorageType(fs.StorageType),
		VpcId: aws.String(fs.VpcID), SubnetIds: slices.Clone(fs.SubnetIDs), NetworkInterfaceIds: slices.Clone(fs.ENIs),
		NetworkType: fsxtypes.NetworkTypeIpv4, KmsKeyId: optionalString(fs.KmsKeyID),
		LustreConfiguration: lc, Tags: fsxTagsOut(fs.Tags),
	}
	if status == fsxtypes.FileSystemLifecycleFailed {
		out.FailureDetails = &fsxtypes.FileSystemFailureDetails{Message: aws.String(fs.Life.FailMessage)}
	}
	return out
}

// DescribeFileSystems describes the file systems named, or all of the
// region's, oldest first, a page at a time.
func (a *fsxAPI) DescribeFileSystems(ctx context.Context, in *fsx.DescribeFileSystemsInput, _ ...func(*fsx.Options)) (*fsx.DescribeFileSystemsOutput, error) {
	return call(ctx, a.w, svcFSx, a.region, "DescribeFileSystems", func(t *txn) (*fsx.DescribeFileSystemsOutput, error) {
		in := orZero(in)
		limit, err := fsxMaxResults(in.MaxResults, fsxDescribeMax)
		if err != nil {
			return nil, err
		}
		var list []*fsxFileSystemRec
		if len(in.FileSystemIds) > 0 {
			for _, id := range in.FileSystemIds {
				fs, err := t.fileSystem(aws.String(id))
				if err != nil {
					return nil, err
				}
				list = append(list, fs)
			}
		} else {
			for _, id := range sortedKeys(t.rs.FileSystems) {
				list = append(list, t.rs.FileSystems[id])
			}
			slices.SortStableFunc(list, func(a, b *fsxFileSystemRec) int { return a.Life.CreatedAt.Compare(b.Life.CreatedAt) })
		}
		items, next, err := page(list, in.NextToken, t.pageSize(svcFSx, "DescribeFileSystems", limit), fsxDescribeMax)
		if err != nil {
			return nil, fsxBadRequest("The NextToken is invalid: pass the NextToken of the previous page.")
		}
		out := &fsx.DescribeFileSystemsOutput{NextToken: next, FileSystems: []fsxtypes.FileSystem{}}
		for _, fs := range items {
			out.FileSystems = append(out.FileSystems, *t.fileSystemOut(fs))
		}
		return out, nil
	})
}

// DeleteFileSystem starts deleting a file system with its data repository
// associations: DELETING for about four minutes (divided by the speed),
// then gone. A file system still CREATING cannot be deleted. Asking for a
// final backup of a persistent file system returns its id; the backup
// itself is not simulated.
func (a *fsxAPI) DeleteFileSystem(ctx context.Context, in *fsx.DeleteFileSystemInput, _ ...func(*fsx.Options)) (*fsx.DeleteFileSystemOutput, error) {
	return call(ctx, a.w, svcFSx, a.region, "DeleteFileSystem", func(t *txn) (*fsx.DeleteFileSystemOutput, error) {
		in := orZero(in)
		if err := need("DeleteFileSystemInput", param{"FileSystemId", in.FileSystemId != nil}); err != nil {
			return nil, err
		}
		fs, err := t.fileSystem(in.FileSystemId)
		if err != nil {
			return nil, err
		}
		out := &fsx.DeleteFileSystemOutput{FileSystemId: aws.String(fs.ID), Lifecycle: fsxtypes.FileSystemLifecycleDeleting}
		switch fs.status(t.now) {
		case fsxtypes.FileSystemLifecycleCreating:
			return nil, fsxBadRequest("File system %s is CREATING; it can be deleted once it is AVAILABLE or FAILED.", fs.ID)
		case fsxtypes.FileSystemLifecycleDeleting:
			return out, nil
		}
		lc := orZero(in.LustreConfiguration)
		backup := lc.SkipFinalBackup != nil && !*lc.SkipFinalBackup
		if backup && isScratch(fsxtypes.LustreDeploymentType(fs.DeploymentType)) {
			return nil, fsxBadRequest("Scratch file systems take no backups: delete %s with SkipFinalBackup true, the default.", fs.ID)
		}
		backupTags, err := fsxTags("DeleteFileSystemInput", lc.FinalBackupTags)
		if err != nil {
			return nil, err
		}
		goneAt := t.after(fsxDeleteTime)
		fs.Life.startDeleting(t.now, goneAt)
		for _, d := range t.rs.DataRepoAssociations {
			if d.FileSystemID == fs.ID && d.Life.DeletingAt == nil {
				d.Life.startDeleting(t.now, goneAt)
			}
		}
		if backup {
			out.LustreResponse = &fsxtypes.DeleteFileSystemLustreResponse{FinalBackupId: aws.String(t.newID("backup")), FinalBackupTags: fsxTagsOut(backupTags)}
		}
		return out, nil
	})
}
