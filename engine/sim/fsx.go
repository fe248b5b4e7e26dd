package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go"

	fsxtypes "github.com/aws/aws-sdk-go-v2/service/fsx/types"

	"github.com/instantstart/instantstart/engine/cloud"
)

// The simulated FSx for Lustre: file systems (fsx_file_system.go) and the
// data repository associations that link a directory of one to an S3
// bucket or prefix (fsx_association.go). Only LUSTRE file systems exist.
//
// Left out: backups (a final backup gets an id and nothing more), updates,
// the file system's network interfaces as EC2 resources (they take no
// address of the subnet and do not keep it from being deleted), Intelligent-
// Tiering storage, data repository tasks and File Cache.

// fsxAPI is one region's view of the simulated FSx.
type fsxAPI struct {
	w      *World
	region string
}

var _ cloud.FSx = (*fsxAPI)(nil)

// Real FSx latencies, divided by the world's speed. A file system takes
// from fsxCreateMin to fsxCreateMax to create, drawn for each; an
// association from draCreateMin to draCreateMax.
const (
	fsxCreateMin  = 6 * time.Minute
	fsxCreateMax  = 10 * time.Minute
	fsxDeleteTime = 4 * time.Minute
	draCreateMin  = 90 * time.Second
	draCreateMax  = 3 * time.Minute
	draDeleteTime = time.Minute
)

// fsxFileSystemRec is a Lustre file system.
type fsxFileSystemRec struct {
	ID              string
	ARN             string
	DeploymentType  string
	StorageType     string
	StorageCapacity int32 // GiB
	// Throughput is the PerUnitStorageThroughput in MB/s/TiB; 0 on scratch.
	Throughput       int32  `json:",omitempty"`
	DriveCacheType   string `json:",omitempty"`
	Version          string // Lustre version: 2.10, 2.12 or 2.15
	VpcID            string
	SubnetIDs        []string
	SecurityGroupIDs []string
	ENIs             []string
	MountName        string
	KmsKeyID         string `json:",omitempty"`
	Compression      string
	BackupDays       int32  `json:",omitempty"` // AutomaticBackupRetentionDays
	BackupStart      string `json:",omitempty"` // DailyAutomaticBackupStartTime
	CopyTagsToBackup bool   `json:",omitempty"`
	Maintenance      string // WeeklyMaintenanceStartTime
	EfaEnabled       bool   `json:",omitempty"`
	MetadataMode     string `json:",omitempty"`
	MetadataIops     int32  `json:",omitempty"`
	// ImportPath and the rest link a scratch or PERSISTENT_1 file system
	// to S3 as a whole, the way that predates associations.
	ImportPath  string      `json:",omitempty"`
	ExportPath  string      `json:",omitempty"`
	AutoImport  string      `json:",omitempty"`
	ChunkSize   int32       `json:",omitempty"`
	Token       string      `json:",omitempty"` // ClientRequestToken
	RequestHash string      `json:",omitempty"` // of the request that made it, to tell a retry from a reuse of Token
	Tags        []fsxTagRec `json:",omitempty"`
	Life        lifecycle
}

// fsxDRARec is a data repository association of a file system.
type fsxDRARec struct {
	ID             string
	ARN            string
	FileSystemID   string
	FileSystemPath string
	RepositoryPath string // s3://bucket/prefix/
	BatchImport    bool   `json:",omitempty"` // BatchImportMetaDataOnCreate
	ChunkSize      int32
	AutoImport     []string    `json:",omitempty"` // event types; nil with AutoImportSet false: no policy
	AutoExport     []string    `json:",omitempty"`
	AutoImportSet  bool        `json:",omitempty"`
	AutoExportSet  bool        `json:",omitempty"`
	DeleteData     bool        `json:",omitempty"` // DeleteDataInFileSystem, once deleting
	Token          string      `json:",omitempty"`
	RequestHash    string      `json:",omitempty"`
	Tags           []fsxTagRec `json:",omitempty"`
	Life           lifecycle
}

// fsxTagRec is one tag; FSx keeps tags as an ordered list.
type fsxTagRec struct {
	Key, Value string
}

func (fs *fsxFileSystemRec) status(now time.Time) fsxtypes.FileSystemLifecycle {
	switch fs.Life.phase(now) {
	case phaseCreating:
		return fsxtypes.FileSystemLifecycleCreating
	case phaseFailed:
		return fsxtypes.FileSystemLifecycleFailed
	case phaseDeleting, phaseGone:
		return fsxtypes.FileSystemLifecycleDeleting
	}
	return fsxtypes.FileSystemLifecycleAvailable
}

func (d *fsxDRARec) status(now time.Time) fsxtypes.DataRepositoryLifecycle {
	switch d.Life.phase(now) {
	case phaseCreating:
		return fsxtypes.DataRepositoryLifecycleCreating
	case phaseFailed:
		return fsxtypes.DataRepositoryLifecycleFailed
	case phaseDeleting, phaseGone:
		return fsxtypes.DataRepositoryLifecycleDeleting
	}
	return fsxtypes.DataRepositoryLifecycleAvailable
}

// pruneFSx drops the file systems and associations that have finished
// deleting, and the associations of file systems that are gone.
func (rs *regionState) pruneFSx(now time.Time) {
	for id, fs := range rs.FileSystems {
		if fs.Life.phase(now) == phaseGone {
			delete(rs.FileSystems, id)
		}
	}
	for id, d := range rs.DataRepoAssociations {
		if d.Life.phase(now) == phaseGone || rs.FileSystems[d.FileSystemID] == nil {
			delete(rs.DataRepoAssociations, id)
		}
	}
}

func fsxBadRequest(format string, args ...any) error {
	return &fsxtypes.BadRequest{Message: aws.String(fmt.Sprintf(format, args...))}
}

// fsxValidation is the ValidationException FSx answers for a value outside
// a field's constraints; the SDK has no typed error for it.
func fsxValidation(format string, args ...any) error {
	return apiError("ValidationException", format, args...)
}

func fsxNotFound(id string) error {
	return &fsxtypes.FileSystemNotFound{Message: aws.String(fmt.Sprintf("File system '%s' does not exist.", id))}
}

func draNotFound(id string) error {
	return &fsxtypes.DataRepositoryAssociationNotFound{Message: aws.String(fmt.Sprintf("Data repository association '%s' does not exist.", id))}
}

// fsxTokenReused is FSx's answer to a ClientRequestToken sent again with a
// different request.
func fsxTokenReused(token string) error {
	return &fsxtypes.IncompatibleParameterError{
		Parameter: aws.String("ClientRequestToken"),
		Message:   aws.String(fmt.Sprintf("The client request token '%s' was already used with a different request; use a new token for a new request.", token)),
	}
}

// fsxRequestHash fingerprints a request (with its ClientRequestToken
// cleared), so a retry with the same token is told from a new request.
func fsxRequestHash(in any) string {
	b, _ := json.Marshal(in)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// fsxMaxTags is how many tags a resource takes.
const fsxMaxTags = 50

// fsxTags checks tags as the SDK (Key and Value required) and FSx do.
func fsxTags(input string, tags []fsxtypes.Tag) ([]fsxTagRec, error) {
	outer := smithy.InvalidParamsError{Context: input}
	nested := smithy.InvalidParamsError{Context: "Tags"}
	for i, tg := range tags {
		one := smithy.InvalidParamsError{Context: "Tag"}
		if tg.Key == nil {
			one.Add(smithy.NewErrParamRequired("Key"))
		}
		if tg.Value == nil {
			one.Add(smithy.NewErrParamRequired("Value"))
		}
		if one.Len() > 0 {
			nested.AddNested(fmt.Sprintf("[%d]", i), one)
		}
	}
	if nested.Len() > 0 {
		outer.AddNested("Tags", nested)
		return nil, &outer
	}
	if len(tags) > fsxMaxTags {
		return nil, fsxValidation("1 validation error detected: Value at 'tags' failed to satisfy constraint: Member must have length less than or equal to %d", fsxMaxTags)
	}
	var out []fsxTagRec
	seen := map[string]bool{}
	for _, tg := range tags {
		k := *tg.Key
		switch {
		case k == "" || len(k) > 128:
			return nil, fsxValidation("1 validation error detected: Value '%s' at 'tags.key' failed to satisfy constraint: Member must have length between 1 and 128", k)
		case strings.HasPrefix(strings.ToLower(k), "aws:"):
			return nil, fsxBadRequest("Tag keys starting with aws: are reserved for AWS use: %s.", k)
		case seen[k]:
			return nil, fsxBadRequest("Tag key %s is given more than once.", k)
		}
		seen[k] = true
		out = append(out, fsxTagRec{Key: k, Value: *tg.Value})
	}
	return out, nil
}

func fsxTagsOut(tags []fsxTagRec) []fsxtypes.Tag {
	var out []fsxtypes.Tag
	for _, tg := range tags {
		out = append(out, fsxtypes.Tag{Key: aws.String(tg.Key), Value: aws.String(tg.Value)})
	}
	return out
}

// fsxMaxResults checks a MaxResults: FSx takes any positive value and
// pages by at most its own maximum.
func fsxMaxResults(n *int32, serviceMax int32) (*int32, error) {
	if n == nil {
		return aws.Int32(serviceMax), nil
	}
	if *n < 1 {
		return nil, fsxValidation("1 validation error detected: Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 1", *n)
	}
	return aws.Int32(min(*n, serviceMax)), nil
}
