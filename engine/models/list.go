package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// MaxPage is the most models one page holds.
const MaxPage = 200

// Bounds of how many objects are listed to size a folder no download
// made, in a page of models and for one model; a larger one shows what
// was counted.
const (
	maxCountedInList = 1000
	maxCounted       = 10000
)

// bucketIDPrefix starts the id of a folder no download made.
const bucketIDPrefix = "bucket:"

// BucketID is the id of the cluster's models/<name>/ folder that no
// download made.
func BucketID(clusterID, name string) string { return bucketIDPrefix + clusterID + ":" + name }

// Page is one page of a cluster's models, by name.
type Page struct {
	Models  []*Model
	HasNext bool
}

// Get returns model id: a download's record, or a folder of models/ no
// download made.
func (s *Service) Get(ctx context.Context, id string) (*Model, error) {
	rest, ok := strings.CutPrefix(id, bucketIDPrefix)
	if !ok {
		return s.record(id)
	}
	clusterID, name, _ := strings.Cut(rest, ":")
	if !namePattern.MatchString(name) {
		return nil, errs.New(errs.NotFound, "%s %q does not exist; %s to find its id", missingModel.Noun, errs.Clip(id), missingModel.List).WithField("id")
	}
	if m, err := s.named(clusterID, name); err != nil || m != nil {
		return m, err
	}
	_, p, b, err := s.reachBucket(clusterID, true)
	if err != nil {
		return nil, err
	}
	m, err := folderModel(ctx, p, clusterID, b.Name, name, maxCounted)
	if err != nil {
		return nil, err
	}
	if m.FilesDone == 0 {
		return nil, errs.New(errs.NotFound, "models/%s/ is empty in bucket %s", name, b.Name).WithField("id")
	}
	return m, nil
}

// List returns the cluster's models by name, first at a time after the
// name after: those its downloads made and the folders of models/ that
// no download made.
func (s *Service) List(ctx context.Context, clusterID string, first int, after string) (*Page, error) {
	if first < 1 || first > MaxPage {
		return nil, errs.Field("first", "first must be between 1 and %d, got %d", MaxPage, first)
	}
	if after != "" && !namePattern.MatchString(after) {
		return nil, errs.Field("after", "the cursor %q is not a model's name; pass pageInfo.endCursor of the previous page", errs.Clip(after))
	}
	_, p, b, err := s.reachBucket(clusterID, true)
	if err != nil {
		return nil, err
	}
	records, err := s.recordsAfter(clusterID, after, first+1)
	if err != nil {
		return nil, err
	}
	folders, err := folderNames(ctx, p, b.Name, after, first+1)
	if err != nil {
		return nil, err
	}
	// Merge the two name orders; a folder a download made is its record.
	page := &Page{}
	i, j := 0, 0
	for len(page.Models) < first+1 && (i < len(records) || j < len(folders)) {
		switch {
		case j >= len(folders) || i < len(records) && records[i].Name <= folders[j]:
			if j < len(folders) && records[i].Name == folders[j] {
				j++
			}
			page.Models = append(page.Models, records[i])
			i++
		default:
			m, err := folderModel(ctx, p, clusterID, b.Name, folders[j], maxCountedInList)
			if err != nil {
				return nil, err
			}
			page.Models = append(page.Models, m)
			j++
		}
	}
	if len(page.Models) > first {
		page.Models, page.HasNext = page.Models[:first], true
	}
	return page, nil
}

// recordsAfter returns up to n of the cluster's download records past
// name after, by name.
func (s *Service) recordsAfter(clusterID, after string, n int) ([]*Model, error) {
	var out []*Model
	err := s.store.View(func(tx *store.Tx) error {
		page, err := store.ReadPage(tx, store.Scan{Kind: RecordKind, Index: nameIndex, Prefix: clusterID + "/"}, store.PageRequest{First: n, After: after}, func(*Model) bool { return true })
		if err != nil {
			return err
		}
		out = page.Items
		return nil
	})
	return out, err
}

// folderNames returns up to n names of the folders of models/ past
// after.
func folderNames(ctx context.Context, p *cloud.Provider, bucket, after string, n int) ([]string, error) {
	in := &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(Prefix), Delimiter: aws.String("/"), MaxKeys: aws.Int32(int32(n))}
	if after != "" {
		in.StartAfter = aws.String(Prefix + after + "/\U0010FFFF")
	}
	out, err := p.S3.ListObjectsV2(ctx, in)
	if err != nil {
		return nil, errs.FromUpstream(err, "list "+Prefix+" in bucket "+bucket)
	}
	var names []string
	for _, cp := range out.CommonPrefixes {
		name := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), Prefix), "/")
		if namePattern.MatchString(name) {
			names = append(names, name)
		}
	}
	return names, nil
}

// folderModel describes models/<name>/, which no download made: its
// objects counted and sized, at most max of them.
func folderModel(ctx context.Context, p *cloud.Provider, clusterID, bucket, name string, max int) (*Model, error) {
	m := &Model{ID: BucketID(clusterID, name), ClusterID: clusterID, Name: name, Source: Unknown, Status: Present, Bucket: bucket}
	all, err := eachObject(ctx, p, bucket, Prefix+name+"/", max, func(_ string, size int64, modified *time.Time) {
		m.FilesDone++
		m.BytesDone += size
		if modified != nil && modified.After(m.UpdatedAt) {
			m.UpdatedAt = *modified
		}
	})
	if err != nil {
		return nil, err
	}
	if !all {
		m.StatusMessage = fmt.Sprintf("more than %d files: the counts are of the first %d", max, max)
	}
	m.FilesTotal, m.BytesTotal = m.FilesDone, m.BytesDone
	return m, nil
}
