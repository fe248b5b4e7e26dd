package sim

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	fsxtypes "github.com/aws/aws-sdk-go-v2/service/fsx/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// link is an association of fsID's path with an S3 path.
func link(fsID *string, path, repo string) *fsx.CreateDataRepositoryAssociationInput {
	return &fsx.CreateDataRepositoryAssociationInput{FileSystemId: fsID, FileSystemPath: aws.String(path), DataRepositoryPath: aws.String(repo)}
}

func TestFSxCreateDataRepositoryAssociationValidation(t *testing.T) {
	f := newFixture(t)
	n := f.lustreNetwork()
	f.bucket("shared-data")
	f.w.PutForeignBucket("someone-elses", "us-west-2")
	east, err := f.w.Provider("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	ok(east.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String("in-virginia")})).must(t)
	fs := f.availableFileSystem(lustreInput(n)).FileSystemId

	events := func(e ...fsxtypes.EventType) *fsxtypes.S3DataRepositoryConfiguration {
		return &fsxtypes.S3DataRepositoryConfiguration{AutoImportPolicy: &fsxtypes.AutoImportPolicy{Events: e}}
	}
	cases := []struct {
		name string
		in   *fsx.CreateDataRepositoryAssociationInput
		want string
	}{
		{"no repository path", &fsx.CreateDataRepositoryAssociationInput{FileSystemId: fs}, "params"},
		{"unknown file system", link(aws.String("fs-0123456789abcdef0"), "/s3", "s3://shared-data/"), "FileSystemNotFound"},
		{"NFS repository", link(fs, "/s3", "nfs://filer/export"), "InvalidDataRepositoryType"},
		{"no bucket", link(fs, "/s3", "s3://"), "BadRequest"},
		{"missing bucket", link(fs, "/s3", "s3://no-such-bucket/x/"), "BadRequest"},
		{"another account's bucket", link(fs, "/s3", "s3://someone-elses/"), "BadRequest"},
		{"a bucket of another region", link(fs, "/s3", "s3://in-virginia/"), "BadRequest"},
		{"relative file system path", link(fs, "s3", "s3://shared-data/"), "BadRequest"},
		{"unknown event", func() *fsx.CreateDataRepositoryAssociationInput {
			in := link(fs, "/s3", "s3://shared-data/")
			in.S3 = events("MOVED")
			return in
		}(), "ValidationException"},
		{"repeated event", func() *fsx.CreateDataRepositoryAssociationInput {
			in := link(fs, "/s3", "s3://shared-data/")
			in.S3 = events(fsxtypes.EventTypeNew, fsxtypes.EventTypeNew)
			return in
		}(), "BadRequest"},
		{"zero chunk size", func() *fsx.CreateDataRepositoryAssociationInput {
			in := link(fs, "/s3", "s3://shared-data/")
			in.ImportedFileChunkSize = aws.Int32(0)
			return in
		}(), "ValidationException"},
	}
	for _, c := range cases {
		_, err := f.p.FSx.CreateDataRepositoryAssociation(f.ctx, c.in)
		t.Run(c.name, func(t *testing.T) { wantFSxError(t, err, c.want) })
	}
}

func TestFSxDataRepositoryAssociationNeedsAvailableFileSystem(t *testing.T) {
	f := newFixture(t)
	n := f.lustreNetwork()
	f.bucket("shared-data")
	fs := ok(f.p.FSx.CreateFileSystem(f.ctx, lustreInput(n))).must(t).FileSystem
	_, err := f.p.FSx.CreateDataRepositoryAssociation(f.ctx, link(fs.FileSystemId, "/s3", "s3://shared-data/"))
	wantFSxError(t, err, "BadRequest")
	if err == nil || !strings.Contains(err.Error(), "CREATING") {
		t.Errorf("error %v does not name the file system's lifecycle", err)
	}
}

func TestFSxDataRepositoryAssociationDeploymentTypes(t *testing.T) {
	version := func(v string) func(*fsx.CreateFileSystemInput) {
		return func(in *fsx.CreateFileSystemInput) { in.FileSystemTypeVersion = aws.String(v) }
	}
	cases := []struct {
		name string
		mods []func(*fsx.CreateFileSystemInput)
		want string
	}{
		{"persistent 2", nil, ""},
		{"persistent 1 on 2.12", []func(*fsx.CreateFileSystemInput){lustre(persistent1, 1200, 50), version("2.12")}, ""},
		{"scratch 2 on 2.15", []func(*fsx.CreateFileSystemInput){lustre(scratch2, 1200, 0), version("2.15")}, ""},
		{"scratch 2 on the default 2.10", []func(*fsx.CreateFileSystemInput){lustre(scratch2, 1200, 0)}, "BadRequest"},
		{"persistent 1 on 2.10", []func(*fsx.CreateFileSystemInput){lustre(persistent1, 1200, 50)}, "BadRequest"},
		{"scratch 1", []func(*fsx.CreateFileSystemInput){lustre(scratch1, 1200, 0), version("2.15")}, "BadRequest"},
		{"linked through ImportPath", []func(*fsx.CreateFileSystemInput){lustre(scratch2, 1200, 0), version("2.15"), func(in *fsx.CreateFileSystemInput) {
			in.LustreConfiguration.ImportPath = aws.String("s3://shared-data/legacy")
		}}, "BadRequest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.bucket("shared-data")
			fs := f.availableFileSystem(lustreInput(f.lustreNetwork(), c.mods...))
			_, err := f.p.FSx.CreateDataRepositoryAssociation(f.ctx, link(fs.FileSystemId, "/s3", "s3://shared-data/models/"))
			wantFSxError(t, err, c.want)
		})
	}
}

func TestFSxDataRepositoryAssociationLifecycle(t *testing.T) {
	f := newFixture(t)
	f.bucket("shared-data")
	fs := f.availableFileSystem(lustreInput(f.lustreNetwork()))
	all := []fsxtypes.EventType{fsxtypes.EventTypeNew, fsxtypes.EventTypeChanged, fsxtypes.EventTypeDeleted}
	in := link(fs.FileSystemId, "/s3", "s3://shared-data/models/")
	in.BatchImportMetaDataOnCreate = aws.Bool(true)
	in.S3 = &fsxtypes.S3DataRepositoryConfiguration{AutoImportPolicy: &fsxtypes.AutoImportPolicy{Events: all}, AutoExportPolicy: &fsxtypes.AutoExportPolicy{Events: all[:2]}}
	a := ok(f.p.FSx.CreateDataRepositoryAssociation(f.ctx, in)).must(t).Association
	id := *a.AssociationId
	if !regexp.MustCompile(`^dra-[0-9a-f]{17}$`).MatchString(id) {
		t.Errorf("id %q is not dra- and 17 hex digits", id)
	}
	if want := fmt.Sprintf("arn:aws:fsx:us-west-2:123456789012:association/%s/%s", *fs.FileSystemId, id); *a.ResourceARN != want {
		t.Errorf("ARN = %s, want %s", *a.ResourceARN, want)
	}
	if a.Lifecycle != fsxtypes.DataRepositoryLifecycleCreating || !*a.BatchImportMetaDataOnCreate || *a.ImportedFileChunkSize != 1024 ||
		len(a.S3.AutoImportPolicy.Events) != 3 || len(a.S3.AutoExportPolicy.Events) != 2 {
		t.Errorf("new association = %s, batch import %v, chunk %d, S3 %+v", a.Lifecycle, *a.BatchImportMetaDataOnCreate, *a.ImportedFileChunkSize, a.S3)
	}

	// Paths overlapping the first association's are refused.
	for _, c := range []struct{ path, repo string }{
		{"/s3/sub", "s3://shared-data/other/"},
		{"/", "s3://shared-data/other/"},
		{"/s3/", "s3://shared-data/other/"},
		{"/data", "s3://shared-data/models/"},
		{"/data", "s3://shared-data/"},
	} {
		_, err := f.p.FSx.CreateDataRepositoryAssociation(f.ctx, link(fs.FileSystemId, c.path, c.repo))
		if errorCode(t, err) != "BadRequest" {
			t.Errorf("%s -> %s beside /s3 -> s3://shared-data/models/: %v", c.path, c.repo, err)
		}
	}
	second := ok(f.p.FSx.CreateDataRepositoryAssociation(f.ctx, link(fs.FileSystemId, "/data", "s3://shared-data/datasets/"))).must(t).Association

	_, err := f.p.FSx.DeleteDataRepositoryAssociation(f.ctx, &fsx.DeleteDataRepositoryAssociationInput{AssociationId: aws.String(id)})
	wantFSxError(t, err, "BadRequest") // still CREATING
	f.clock.Advance(draAvailableAfter)
	describe := func(in *fsx.DescribeDataRepositoryAssociationsInput) []fsxtypes.DataRepositoryAssociation {
		t.Helper()
		return ok(f.p.FSx.DescribeDataRepositoryAssociations(f.ctx, in)).must(t).Associations
	}
	if got := describe(&fsx.DescribeDataRepositoryAssociationsInput{AssociationIds: []string{id}}); got[0].Lifecycle != fsxtypes.DataRepositoryLifecycleAvailable {
		t.Fatalf("after three minutes/speed: %s", got[0].Lifecycle)
	}

	del := ok(f.p.FSx.DeleteDataRepositoryAssociation(f.ctx, &fsx.DeleteDataRepositoryAssociationInput{AssociationId: aws.String(id), DeleteDataInFileSystem: aws.Bool(false)})).must(t)
	if del.Lifecycle != fsxtypes.DataRepositoryLifecycleDeleting {
		t.Errorf("DeleteDataRepositoryAssociation = %s", del.Lifecycle)
	}
	f.clock.Advance(scaled(draDeleteTime))
	_, err = f.p.FSx.DescribeDataRepositoryAssociations(f.ctx, &fsx.DescribeDataRepositoryAssociationsInput{AssociationIds: []string{id}})
	var notFound *fsxtypes.DataRepositoryAssociationNotFound
	if !errors.As(err, &notFound) {
		t.Errorf("describe after deletion: %v", err)
	}

	// Deleting the file system takes its associations along.
	ok(f.p.FSx.DeleteFileSystem(f.ctx, &fsx.DeleteFileSystemInput{FileSystemId: fs.FileSystemId})).must(t)
	if got := describe(&fsx.DescribeDataRepositoryAssociationsInput{AssociationIds: []string{*second.AssociationId}}); got[0].Lifecycle != fsxtypes.DataRepositoryLifecycleDeleting {
		t.Errorf("association of a deleting file system: %s", got[0].Lifecycle)
	}
	f.clock.Advance(scaled(fsxDeleteTime))
	if got := describe(&fsx.DescribeDataRepositoryAssociationsInput{}); len(got) != 0 {
		t.Errorf("associations after the file system is gone: %d", len(got))
	}
}

func TestFSxDescribeDataRepositoryAssociations(t *testing.T) {
	f := newFixture(t)
	f.bucket("shared-data")
	n := f.lustreNetwork()
	one := f.availableFileSystem(lustreInput(n)).FileSystemId
	two := f.availableFileSystem(lustreInput(n)).FileSystemId
	for i, fs := range []*string{one, one, two} {
		ok(f.p.FSx.CreateDataRepositoryAssociation(f.ctx, link(fs, fmt.Sprintf("/d%d", i), fmt.Sprintf("s3://shared-data/d%d/", i)))).must(t)
	}
	filter := func(name fsxtypes.FilterName, values ...string) []fsxtypes.Filter {
		return []fsxtypes.Filter{{Name: name, Values: values}}
	}
	for _, c := range []struct {
		name string
		in   *fsx.DescribeDataRepositoryAssociationsInput
		n    int
		want string
	}{
		{"all", &fsx.DescribeDataRepositoryAssociationsInput{}, 3, ""},
		{"of one file system", &fsx.DescribeDataRepositoryAssociationsInput{Filters: filter(fsxtypes.FilterNameFileSystemId, *one)}, 2, ""},
		{"of either", &fsx.DescribeDataRepositoryAssociationsInput{Filters: filter(fsxtypes.FilterNameFileSystemId, *one, *two)}, 3, ""},
		{"S3", &fsx.DescribeDataRepositoryAssociationsInput{Filters: filter(fsxtypes.FilterNameDataRepositoryType, "S3")}, 3, ""},
		{"NFS", &fsx.DescribeDataRepositoryAssociationsInput{Filters: filter(fsxtypes.FilterNameDataRepositoryType, "NFS")}, 0, ""},
		{"unknown filter", &fsx.DescribeDataRepositoryAssociationsInput{Filters: filter(fsxtypes.FilterNameBackupType, "USER_INITIATED")}, 0, "BadRequest"},
		{"ids and filters", &fsx.DescribeDataRepositoryAssociationsInput{AssociationIds: []string{"dra-0123456789abcdef0"},
			Filters: filter(fsxtypes.FilterNameFileSystemId, *one)}, 0, "BadRequest"},
		{"unknown id", &fsx.DescribeDataRepositoryAssociationsInput{AssociationIds: []string{"dra-0123456789abcdef0"}}, 0, "DataRepositoryAssociationNotFound"},
	} {
		out, err := f.p.FSx.DescribeDataRepositoryAssociations(f.ctx, c.in)
		wantFSxError(t, err, c.want)
		if err == nil && len(out.Associations) != c.n {
			t.Errorf("%s: %d associations, want %d", c.name, len(out.Associations), c.n)
		}
	}
	var seen int
	in := &fsx.DescribeDataRepositoryAssociationsInput{MaxResults: aws.Int32(2)}
	for pages := 0; ; pages++ {
		out := ok(f.p.FSx.DescribeDataRepositoryAssociations(f.ctx, in)).must(t)
		seen += len(out.Associations)
		if out.NextToken == nil {
			if pages != 1 || seen != 3 {
				t.Errorf("paged %d associations over %d pages, want 3 over 2", seen, pages+1)
			}
			break
		}
		in.NextToken = out.NextToken
	}
}

func TestFSxDataRepositoryAssociationIdempotencyAndLimit(t *testing.T) {
	f := newFixture(t)
	f.bucket("shared-data")
	fs := f.availableFileSystem(lustreInput(f.lustreNetwork())).FileSystemId
	withToken := func(in *fsx.CreateDataRepositoryAssociationInput) *fsx.CreateDataRepositoryAssociationInput {
		in.ClientRequestToken = aws.String("storage-1")
		return in
	}
	first := ok(f.p.FSx.CreateDataRepositoryAssociation(f.ctx, withToken(link(fs, "/d0", "s3://shared-data/d0/")))).must(t).Association
	again := ok(f.p.FSx.CreateDataRepositoryAssociation(f.ctx, withToken(link(fs, "/d0", "s3://shared-data/d0/")))).must(t).Association
	if *again.AssociationId != *first.AssociationId {
		t.Errorf("a retry made %s, want %s", *again.AssociationId, *first.AssociationId)
	}
	_, err := f.p.FSx.CreateDataRepositoryAssociation(f.ctx, withToken(link(fs, "/elsewhere", "s3://shared-data/elsewhere/")))
	wantFSxError(t, err, "IncompatibleParameterError")

	for i := 1; i < draMaxPerFileSystem; i++ {
		ok(f.p.FSx.CreateDataRepositoryAssociation(f.ctx, link(fs, fmt.Sprintf("/d%d", i), fmt.Sprintf("s3://shared-data/d%d/", i)))).must(t)
	}
	_, err = f.p.FSx.CreateDataRepositoryAssociation(f.ctx, link(fs, "/d9", "s3://shared-data/d9/"))
	wantFSxError(t, err, "BadRequest")
}
