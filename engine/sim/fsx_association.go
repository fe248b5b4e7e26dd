package sim

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	fsxtypes "github.com/aws/aws-sdk-go-v2/service/fsx/types"
)

// draMaxPerFileSystem is how many data repository associations one file
// system takes.
const draMaxPerFileSystem = 8

// draDescribeMax is the most associations one DescribeDataRepositoryAssociations
// page holds.
const draDescribeMax = 25

// CreateDataRepositoryAssociation links a directory of an AVAILABLE file
// system to an S3 bucket or prefix of the account and region: CREATING
// for one and a half to three minutes (divided by the speed), then
// AVAILABLE. As in FSx, associations are for Lustre 2.12 and 2.15 file
// systems other than SCRATCH_1 and not linked through ImportPath. Neither
// the directory nor the S3 path may overlap another association's of the
// file system.
func (a *fsxAPI) CreateDataRepositoryAssociation(ctx context.Context, in *fsx.CreateDataRepositoryAssociationInput, _ ...func(*fsx.Options)) (*fsx.CreateDataRepositoryAssociationOutput, error) {
	return call(ctx, a.w, svcFSx, a.region, "CreateDataRepositoryAssociation", func(t *txn) (*fsx.CreateDataRepositoryAssociationOutput, error) {
		in := orZero(in)
		if err := need("CreateDataRepositoryAssociationInput", param{"FileSystemId", in.FileSystemId != nil},
			param{"DataRepositoryPath", in.DataRepositoryPath != nil}); err != nil {
			return nil, err
		}
		tags, err := fsxTags("CreateDataRepositoryAssociationInput", in.Tags)
		if err != nil {
			return nil, err
		}
		token := aws.ToString(in.ClientRequestToken)
		req := *in
		req.ClientRequestToken = nil
		hash := fsxRequestHash(req)
		if old := t.associationByToken(token); old != nil {
			if old.RequestHash != hash {
				return nil, fsxTokenReused(token)
			}
			return &fsx.CreateDataRepositoryAssociationOutput{Association: t.associationOut(old)}, nil
		}
		fs, err := t.fileSystem(in.FileSystemId)
		if err != nil {
			return nil, err
		}
		if err := fs.takesAssociations(t); err != nil {
			return nil, err
		}
		d := &fsxDRARec{FileSystemID: fs.ID, FileSystemPath: "/", RepositoryPath: *in.DataRepositoryPath,
			BatchImport: aws.ToBool(in.BatchImportMetaDataOnCreate), Token: token, RequestHash: hash, Tags: tags}
		if p := aws.ToString(in.FileSystemPath); p != "" {
			d.FileSystemPath = p
		}
		if err := t.associationPaths(fs, d); err != nil {
			return nil, err
		}
		if d.ChunkSize, err = fsxChunkSize(in.ImportedFileChunkSize); err != nil {
			return nil, err
		}
		if s3 := in.S3; s3 != nil {
			if s3.AutoImportPolicy != nil {
				if d.AutoImport, err = draEvents("autoImportPolicy", s3.AutoImportPolicy.Events); err != nil {
					return nil, err
				}
				d.AutoImportSet = true
			}
			if s3.AutoExportPolicy != nil {
				if d.AutoExport, err = draEvents("autoExportPolicy", s3.AutoExportPolicy.Events); err != nil {
					return nil, err
				}
				d.AutoExportSet = true
			}
		}
		d.ID = t.newID("dra")
		d.ARN = fmt.Sprintf("arn:aws:fsx:%s:%s:association/%s/%s", t.region, t.account(), fs.ID, d.ID)
		d.Life = newLifecycle(t.now, t.after(t.draw(draCreateMin, draCreateMax)))
		t.rs.DataRepoAssociations[d.ID] = d
		return &fsx.CreateDataRepositoryAssociationOutput{Association: t.associationOut(d)}, nil
	})
}

// takesAssociations tells why the file system cannot take another data
// repository association, or nil when it can.
func (fs *fsxFileSystemRec) takesAssociations(t *txn) error {
	if st := fs.status(t.now); st != fsxtypes.FileSystemLifecycleAvailable {
		return fsxBadRequest("File system %s is %s; data repository associations can be created once it is AVAILABLE.", fs.ID, st)
	}
	switch {
	case fs.DeploymentType == string(scratch1):
		return fsxBadRequest("Data repository associations are not supported on SCRATCH_1 file systems: use SCRATCH_2, PERSISTENT_1 or PERSISTENT_2 with Lustre 2.12 or 2.15, or give a SCRATCH_1 file system an ImportPath when creating it.")
	case fs.Version == "2.10":
		return fsxBadRequest("Data repository associations need Lustre 2.12 or 2.15: file system %s runs 2.10, which links to S3 only through the ImportPath and ExportPath set when it is created.", fs.ID)
	case fs.ImportPath != "":
		return fsxBadRequest("File system %s is linked to %s through its ImportPath; a file system linked that way takes no data repository association.", fs.ID, fs.ImportPath)
	}
	n := 0
	for _, d := range t.rs.DataRepoAssociations {
		if d.FileSystemID == fs.ID {
			n++
		}
	}
	if n >= draMaxPerFileSystem {
		return fsxBadRequest("File system %s has %d data repository associations, the most one takes: delete one first.", fs.ID, n)
	}
	return nil
}

// associationPaths checks the file system path and S3 path of a new
// association d of fs.
func (t *txn) associationPaths(fs *fsxFileSystemRec, d *fsxDRARec) error {
	p := d.FileSystemPath
	if !strings.HasPrefix(p, "/") || len(p) > 4096 || strings.Contains(p, "//") {
		return fsxBadRequest("The file system path %q is invalid: it starts with / and names a directory, such as /ns1/.", p)
	}
	repo := d.RepositoryPath
	if !strings.HasPrefix(repo, "s3://") {
		return &fsxtypes.InvalidDataRepositoryType{Message: aws.String(fmt.Sprintf("The data repository path %s is not an S3 path s3://bucket/prefix/: FSx for Lustre links S3 data repositories only.", repo))}
	}
	bucket, _, ok := s3RepoPath(repo)
	if !ok {
		return fsxBadRequest("The data repository path %s names no bucket: use s3://bucket/prefix/.", repo)
	}
	if why := t.fsxBucketProblem(bucket); why != "" {
		return fsxBadRequest("The data repository path %s cannot be used: %s.", repo, why)
	}
	for _, id := range sortedKeys(t.rs.DataRepoAssociations) {
		o := t.rs.DataRepoAssociations[id]
		switch {
		case o.FileSystemID != fs.ID:
		case pathsOverlap(o.FileSystemPath, p):
			return fsxBadRequest("The file system path %s overlaps the path %s of data repository association %s: two associations of a file system take directories neither of which holds the other.", p, o.FileSystemPath, o.ID)
		case pathsOverlap(o.RepositoryPath, repo):
			return fsxBadRequest("The data repository path %s overlaps the path %s of data repository association %s: each association of a file system takes its own bucket or prefix.", repo, o.RepositoryPath, o.ID)
		}
	}
	return nil
}

// pathsOverlap tells whether one of two slash-separated paths is the other
// or lies under it.
func pathsOverlap(a, b string) bool {
	a, b = strings.TrimSuffix(a, "/")+"/", strings.TrimSuffix(b, "/")+"/"
	return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// draEvents checks the events of an automatic import or export policy.
func draEvents(field string, events []fsxtypes.EventType) ([]string, error) {
	var out []string
	for _, e := range events {
		switch e {
		case fsxtypes.EventTypeNew, fsxtypes.EventTypeChanged, fsxtypes.EventTypeDeleted:
		default:
			return nil, fsxValidation("1 validation error detected: Value '%s' at 's3.%s.events' failed to satisfy constraint: Member must satisfy enum value set: [NEW, CHANGED, DELETED]", e, field)
		}
		if slices.Contains(out, string(e)) {
			return nil, fsxBadRequest("The %s lists the event %s more than once.", field, e)
		}
		out = append(out, string(e))
	}
	return out, nil
}

func (t *txn) associationByToken(token string) *fsxDRARec {
	if token == "" {
		return nil
	}
	for _, d := range t.rs.DataRepoAssociations {
		if d.Token == token {
			return d
		}
	}
	return nil
}

func (t *txn) association(id *string) (*fsxDRARec, error) {
	d := t.rs.DataRepoAssociations[aws.ToString(id)]
	if d == nil {
		return nil, draNotFound(aws.ToString(id))
	}
	return d, nil
}

func (t *txn) associationOut(d *fsxDRARec) *fsxtypes.DataRepositoryAssociation {
	status := d.status(t.now)
	out := &fsxtypes.DataRepositoryAssociation{
		AssociationId: aws.String(d.ID), ResourceARN: aws.String(d.ARN), FileSystemId: aws.String(d.FileSystemID),
		FileSystemPath: aws.String(d.FileSystemPath), DataRepositoryPath: aws.String(d.RepositoryPath),
		BatchImportMetaDataOnCreate: aws.Bool(d.BatchImport), ImportedFileChunkSize: aws.Int32(d.ChunkSize),
		Lifecycle: status, CreationTime: aws.Time(d.Life.CreatedAt), Tags: fsxTagsOut(d.Tags),
	}
	if d.AutoImportSet || d.AutoExportSet {
		out.S3 = &fsxtypes.S3DataRepositoryConfiguration{}
		if d.AutoImportSet {
			out.S3.AutoImportPolicy = &fsxtypes.AutoImportPolicy{Events: draEventsOut(d.AutoImport)}
		}
		if d.AutoExportSet {
			out.S3.AutoExportPolicy = &fsxtypes.AutoExportPolicy{Events: draEventsOut(d.AutoExport)}
		}
	}
	if status == fsxtypes.DataRepositoryLifecycleFailed {
		out.FailureDetails = &fsxtypes.DataRepositoryFailureDetails{Message: aws.String(d.Life.FailMessage)}
	}
	return out
}

func draEventsOut(events []string) []fsxtypes.EventType {
	out := []fsxtypes.EventType{}
	for _, e := range events {
		out = append(out, fsxtypes.EventType(e))
	}
	return out
}

// DescribeDataRepositoryAssociations describes the associations named by
// AssociationIds, or those that pass the Filters (file-system-id,
// data-repository-type, file-cache-id), or all of the region's, oldest
// first, a page at a time.
func (a *fsxAPI) DescribeDataRepositoryAssociations(ctx context.Context, in *fsx.DescribeDataRepositoryAssociationsInput, _ ...func(*fsx.Options)) (*fsx.DescribeDataRepositoryAssociationsOutput, error) {
	return call(ctx, a.w, svcFSx, a.region, "DescribeDataRepositoryAssociations", func(t *txn) (*fsx.DescribeDataRepositoryAssociationsOutput, error) {
		in := orZero(in)
		limit, err := fsxMaxResults(in.MaxResults, draDescribeMax)
		if err != nil {
			return nil, err
		}
		if len(in.AssociationIds) > 0 && len(in.Filters) > 0 {
			return nil, fsxBadRequest("Give AssociationIds or Filters, not both.")
		}
		var list []*fsxDRARec
		if len(in.AssociationIds) > 0 {
			for _, id := range in.AssociationIds {
				d, err := t.association(aws.String(id))
				if err != nil {
					return nil, err
				}
				list = append(list, d)
			}
		} else {
			match, err := draFilter(in.Filters)
			if err != nil {
				return nil, err
			}
			for _, id := range sortedKeys(t.rs.DataRepoAssociations) {
				if d := t.rs.DataRepoAssociations[id]; match(d) {
					list = append(list, d)
				}
			}
			slices.SortStableFunc(list, func(a, b *fsxDRARec) int { return a.Life.CreatedAt.Compare(b.Life.CreatedAt) })
		}
		items, next, err := page(list, in.NextToken, t.pageSize(svcFSx, "DescribeDataRepositoryAssociations", limit), draDescribeMax)
		if err != nil {
			return nil, fsxBadRequest("The NextToken is invalid: pass the NextToken of the previous page.")
		}
		out := &fsx.DescribeDataRepositoryAssociationsOutput{NextToken: next, Associations: []fsxtypes.DataRepositoryAssociation{}}
		for _, d := range items {
			out.Associations = append(out.Associations, *t.associationOut(d))
		}
		return out, nil
	})
}

// draFilter returns whether an association passes every filter (one of
// whose values it must match).
func draFilter(filters []fsxtypes.Filter) (func(*fsxDRARec) bool, error) {
	for _, f := range filters {
		switch f.Name {
		case fsxtypes.FilterNameFileSystemId, fsxtypes.FilterNameDataRepositoryType, fsxtypes.FilterNameFileCacheId:
		default:
			return nil, fsxBadRequest("The filter %s does not apply to data repository associations: use file-system-id, data-repository-type or file-cache-id.", f.Name)
		}
	}
	return func(d *fsxDRARec) bool {
		for _, f := range filters {
			var v string
			switch f.Name {
			case fsxtypes.FilterNameFileSystemId:
				v = d.FileSystemID
			case fsxtypes.FilterNameDataRepositoryType:
				v = "S3"
			case fsxtypes.FilterNameFileCacheId:
				v = "" // a file system's associations belong to no cache
			}
			if !slices.Contains(f.Values, v) {
				return false
			}
		}
		return true
	}, nil
}

// DeleteDataRepositoryAssociation starts unlinking an association:
// DELETING for about a minute (divided by the speed), then gone. One still
// CREATING cannot be deleted.
func (a *fsxAPI) DeleteDataRepositoryAssociation(ctx context.Context, in *fsx.DeleteDataRepositoryAssociationInput, _ ...func(*fsx.Options)) (*fsx.DeleteDataRepositoryAssociationOutput, error) {
	return call(ctx, a.w, svcFSx, a.region, "DeleteDataRepositoryAssociation", func(t *txn) (*fsx.DeleteDataRepositoryAssociationOutput, error) {
		in := orZero(in)
		if err := need("DeleteDataRepositoryAssociationInput", param{"AssociationId", in.AssociationId != nil}); err != nil {
			return nil, err
		}
		d, err := t.association(in.AssociationId)
		if err != nil {
			return nil, err
		}
		switch d.status(t.now) {
		case fsxtypes.DataRepositoryLifecycleCreating:
			return nil, fsxBadRequest("Data repository association %s is CREATING; it can be deleted once it is AVAILABLE.", d.ID)
		case fsxtypes.DataRepositoryLifecycleDeleting:
		default:
			d.DeleteData = aws.ToBool(in.DeleteDataInFileSystem)
			d.Life.startDeleting(t.now, t.after(draDeleteTime))
		}
		return &fsx.DeleteDataRepositoryAssociationOutput{AssociationId: aws.String(d.ID),
			DeleteDataInFileSystem: aws.Bool(d.DeleteData), Lifecycle: fsxtypes.DataRepositoryLifecycleDeleting}, nil
	})
}
