package simwire

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/cloud"
)

// S3 over its REST-XML protocol, path-style (http://host/bucket/key), the
// subset that presigned browser uploads, the SDK's multipart calls and the
// aws CLI's s3 ls and s3 cp use: ListBuckets, ListObjectsV2,
// GetBucketLocation, HeadBucket, Get/PutBucketCors, PutObject, GetObject, HeadObject,
// DeleteObject, and the multipart upload's Create, UploadPart, ListParts,
// Complete and Abort. A presigned URL is accepted until its X-Amz-Expires
// has passed; as everywhere here, its signature is not checked.
//
// A browser reaches the bucket from the UI's origin: a CORS preflight
// (OPTIONS with Origin and Access-Control-Request-Method) is answered as a
// bucket whose CORS rule allows any origin to PUT and exposes ETag, the
// rule addStorage puts on a real shared bucket.

// MaxS3BodyBytes bounds the body of an S3 upload: S3's largest single PUT
// or part. A body is streamed to the port, which keeps its size, its hash
// and a bounded prefix, so the bound is on time, not memory.
const MaxS3BodyBytes = 5 << 30

// isCORSPreflight tells whether r is a browser's CORS preflight.
func isCORSPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// allowCORS adds to an answer to a request from a browser origin the
// headers a bucket's CORS rule gives it.
func allowCORS(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "ETag")
	h.Add("Vary", "Origin")
	if isCORSPreflight(r) {
		h.Set("Access-Control-Allow-Methods", "PUT, GET, HEAD")
		if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
			h.Set("Access-Control-Allow-Headers", req)
		}
		h.Set("Access-Control-Max-Age", "3000")
	}
}

// presignExpired tells whether r is a presigned request past its expiry.
func presignExpired(q url.Values, now time.Time) bool {
	date, expires := q.Get("X-Amz-Date"), q.Get("X-Amz-Expires")
	if date == "" || expires == "" {
		return false
	}
	t, err1 := time.Parse("20060102T150405Z", date)
	secs, err2 := strconv.Atoi(expires)
	return err1 != nil || err2 != nil || now.After(t.Add(time.Duration(secs)*time.Second))
}

func serveS3(w http.ResponseWriter, r *http.Request, p cloud.S3) {
	allowCORS(w, r)
	if isCORSPreflight(r) {
		w.WriteHeader(http.StatusOK)
		return
	}
	q := r.URL.Query()
	if presignExpired(q, time.Now()) {
		writeS3Error(w, r, http.StatusForbidden, "AccessDenied", "Request has expired")
		return
	}
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	ctx := r.Context()
	var err error
	switch {
	case bucket == "" && r.Method == http.MethodGet:
		err = s3ListBuckets(w, r, p)
	case bucket == "":
		err = apiErr("MethodNotAllowed", "The specified method is not allowed against this resource.")
	case key == "":
		err = serveS3Bucket(w, r, p, bucket, q)
	case r.Method == http.MethodPut && q.Has("uploadId"):
		var n int
		if n, err = strconv.Atoi(q.Get("partNumber")); err != nil {
			err = apiErr("InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive.")
			break
		}
		var out *s3.UploadPartOutput
		out, err = p.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: aws.String(q.Get("uploadId")), PartNumber: aws.Int32(int32(n)), Body: s3Body(r)})
		if err == nil {
			w.Header().Set("ETag", aws.ToString(out.ETag))
			w.WriteHeader(http.StatusOK)
		}
	case r.Method == http.MethodPut:
		if r.Header.Get("X-Amz-Copy-Source") != "" {
			err = apiErr("NotImplemented", "The simulator's S3 does not copy objects.")
			break
		}
		var out *s3.PutObjectOutput
		in := &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: s3Body(r)}
		if ct := r.Header.Get("Content-Type"); ct != "" {
			in.ContentType = &ct
		}
		out, err = p.PutObject(ctx, in)
		if err == nil {
			w.Header().Set("ETag", aws.ToString(out.ETag))
			w.WriteHeader(http.StatusOK)
		}
	case r.Method == http.MethodPost && q.Has("uploads"):
		in := &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key}
		if ct := r.Header.Get("Content-Type"); ct != "" {
			in.ContentType = &ct
		}
		var out *s3.CreateMultipartUploadOutput
		if out, err = p.CreateMultipartUpload(ctx, in); err == nil {
			writeS3XML(w, http.StatusOK, initiateResult{Bucket: bucket, Key: key, UploadID: aws.ToString(out.UploadId)})
		}
	case r.Method == http.MethodPost && q.Has("uploadId"):
		err = s3Complete(w, r, p, bucket, key, q.Get("uploadId"))
	case r.Method == http.MethodDelete && q.Has("uploadId"):
		if _, err = p.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: aws.String(q.Get("uploadId"))}); err == nil {
			w.WriteHeader(http.StatusNoContent)
		}
	case r.Method == http.MethodDelete:
		if _, err = p.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: &key}); err == nil {
			w.WriteHeader(http.StatusNoContent)
		}
	case r.Method == http.MethodGet && q.Has("uploadId"):
		err = s3ListParts(w, r, p, bucket, key, q)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		err = s3GetObject(w, r, p, bucket, key)
	default:
		err = apiErr("MethodNotAllowed", "The specified method is not allowed against this resource.")
	}
	if err != nil {
		writeS3APIError(w, r, err)
	}
}

// s3Body is an upload's body: what the client sent, decoded from
// aws-chunked when it was sent so (with its chunk signatures and trailing
// checksums dropped).
func s3Body(r *http.Request) io.Reader {
	if strings.Contains(r.Header.Get("Content-Encoding"), "aws-chunked") || strings.HasPrefix(r.Header.Get("X-Amz-Content-Sha256"), "STREAMING-") {
		return &awsChunkedReader{r: newLineReader(r.Body)}
	}
	return r.Body
}

func serveS3Bucket(w http.ResponseWriter, r *http.Request, p cloud.S3, bucket string, q url.Values) error {
	ctx := r.Context()
	switch {
	case r.Method == http.MethodHead:
		out, err := p.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &bucket})
		if err != nil {
			return err
		}
		w.Header().Set("X-Amz-Bucket-Region", aws.ToString(out.BucketRegion))
		w.WriteHeader(http.StatusOK)
		return nil
	case q.Has("cors"):
		return serveS3Cors(w, r, p, bucket)
	case r.Method == http.MethodGet && q.Has("location"):
		out, err := p.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: &bucket})
		if err != nil {
			return err
		}
		writeS3XML(w, http.StatusOK, locationResult{Region: string(out.LocationConstraint)})
		return nil
	case r.Method == http.MethodGet:
		return s3ListObjects(w, r, p, bucket, q)
	}
	return apiErr("NotImplemented", "The simulator's S3 serves no %s on a bucket but HEAD and GET (ListObjectsV2, ?location).", r.Method)
}

// corsConfiguration is a bucket's CORS rules in S3's XML.
type corsConfiguration struct {
	XMLName xml.Name   `xml:"http://s3.amazonaws.com/doc/2006-03-01/ CORSConfiguration"`
	Rules   []corsRule `xml:"CORSRule"`
}

type corsRule struct {
	ID             string   `xml:"ID,omitempty"`
	AllowedHeaders []string `xml:"AllowedHeader"`
	AllowedMethods []string `xml:"AllowedMethod"`
	AllowedOrigins []string `xml:"AllowedOrigin"`
	ExposeHeaders  []string `xml:"ExposeHeader"`
	MaxAgeSeconds  int32    `xml:"MaxAgeSeconds,omitempty"`
}

func serveS3Cors(w http.ResponseWriter, r *http.Request, p cloud.S3, bucket string) error {
	switch r.Method {
	case http.MethodGet:
		out, err := p.GetBucketCors(r.Context(), &s3.GetBucketCorsInput{Bucket: &bucket})
		if err != nil {
			return err
		}
		var doc corsConfiguration
		for _, c := range out.CORSRules {
			doc.Rules = append(doc.Rules, corsRule{aws.ToString(c.ID), c.AllowedHeaders, c.AllowedMethods, c.AllowedOrigins, c.ExposeHeaders, aws.ToInt32(c.MaxAgeSeconds)})
		}
		writeS3XML(w, http.StatusOK, doc)
		return nil
	case http.MethodPut:
		var doc corsConfiguration
		if err := xml.NewDecoder(io.LimitReader(r.Body, maxCompleteBody)).Decode(&doc); err != nil {
			return apiErr("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: %v", err)
		}
		in := &s3.PutBucketCorsInput{Bucket: &bucket, CORSConfiguration: &s3types.CORSConfiguration{}}
		for _, c := range doc.Rules {
			rule := s3types.CORSRule{AllowedHeaders: c.AllowedHeaders, AllowedMethods: c.AllowedMethods, AllowedOrigins: c.AllowedOrigins, ExposeHeaders: c.ExposeHeaders}
			if c.ID != "" {
				rule.ID = aws.String(c.ID)
			}
			if c.MaxAgeSeconds != 0 {
				rule.MaxAgeSeconds = aws.Int32(c.MaxAgeSeconds)
			}
			in.CORSConfiguration.CORSRules = append(in.CORSConfiguration.CORSRules, rule)
		}
		if _, err := p.PutBucketCors(r.Context(), in); err != nil {
			return err
		}
		w.WriteHeader(http.StatusOK)
		return nil
	}
	return apiErr("MethodNotAllowed", "The specified method is not allowed against this resource.")
}

type initiateResult struct {
	XMLName  xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ InitiateMultipartUploadResult"`
	Bucket   string
	Key      string
	UploadID string `xml:"UploadId"`
}

type locationResult struct {
	XMLName xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ LocationConstraint"`
	Region  string   `xml:",chardata"`
}

type completeRequest struct {
	Parts []struct {
		PartNumber int32
		ETag       string
	} `xml:"Part"`
}

type completeResult struct {
	XMLName  xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ CompleteMultipartUploadResult"`
	Location string
	Bucket   string
	Key      string
	ETag     string
}

// maxCompleteBody bounds a CompleteMultipartUpload request: 10,000 parts
// of a few dozen bytes each.
const maxCompleteBody = 2 << 20

func s3Complete(w http.ResponseWriter, r *http.Request, p cloud.S3, bucket, key, uploadID string) error {
	var req completeRequest
	if err := xml.NewDecoder(io.LimitReader(r.Body, maxCompleteBody)).Decode(&req); err != nil {
		return apiErr("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: %v", err)
	}
	parts := make([]s3types.CompletedPart, 0, len(req.Parts))
	for _, pt := range req.Parts {
		parts = append(parts, s3types.CompletedPart{PartNumber: aws.Int32(pt.PartNumber), ETag: aws.String(pt.ETag)})
	}
	out, err := p.CompleteMultipartUpload(r.Context(), &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: &uploadID, MultipartUpload: &s3types.CompletedMultipartUpload{Parts: parts}})
	if err != nil {
		return err
	}
	writeS3XML(w, http.StatusOK, completeResult{Location: aws.ToString(out.Location), Bucket: bucket, Key: key, ETag: aws.ToString(out.ETag)})
	return nil
}

type listPartsResult struct {
	XMLName              xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ ListPartsResult"`
	Bucket               string
	Key                  string
	UploadID             string `xml:"UploadId"`
	PartNumberMarker     string
	NextPartNumberMarker string `xml:",omitempty"`
	MaxParts             int32
	IsTruncated          bool
	StorageClass         string
	Parts                []xmlPart `xml:"Part"`
}

type xmlPart struct {
	PartNumber   int32
	LastModified string
	ETag         string
	Size         int64
}

func s3ListParts(w http.ResponseWriter, r *http.Request, p cloud.S3, bucket, key string, q url.Values) error {
	in := &s3.ListPartsInput{Bucket: &bucket, Key: &key, UploadId: aws.String(q.Get("uploadId"))}
	if m := q.Get("part-number-marker"); m != "" {
		in.PartNumberMarker = &m
	}
	if m := q.Get("max-parts"); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil {
			return apiErr("InvalidArgument", "max-parts must be an integer.")
		}
		in.MaxParts = aws.Int32(int32(n))
	}
	out, err := p.ListParts(r.Context(), in)
	if err != nil {
		return err
	}
	res := listPartsResult{Bucket: bucket, Key: key, UploadID: aws.ToString(out.UploadId), PartNumberMarker: aws.ToString(out.PartNumberMarker),
		NextPartNumberMarker: aws.ToString(out.NextPartNumberMarker), MaxParts: aws.ToInt32(out.MaxParts), IsTruncated: aws.ToBool(out.IsTruncated), StorageClass: string(out.StorageClass)}
	for _, pt := range out.Parts {
		res.Parts = append(res.Parts, xmlPart{PartNumber: aws.ToInt32(pt.PartNumber), LastModified: isoTime(pt.LastModified), ETag: aws.ToString(pt.ETag), Size: aws.ToInt64(pt.Size)})
	}
	writeS3XML(w, http.StatusOK, res)
	return nil
}

type listBucketResult struct {
	XMLName               xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ ListBucketResult"`
	Name                  string
	Prefix                string
	Delimiter             string `xml:",omitempty"`
	StartAfter            string `xml:",omitempty"`
	ContinuationToken     string `xml:",omitempty"`
	NextContinuationToken string `xml:",omitempty"`
	KeyCount              int32
	MaxKeys               int32
	IsTruncated           bool
	EncodingType          string      `xml:",omitempty"`
	Contents              []xmlObject `xml:"Contents"`
	CommonPrefixes        []struct {
		Prefix string
	} `xml:"CommonPrefixes"`
}

type xmlObject struct {
	Key          string
	LastModified string
	ETag         string
	Size         int64
	StorageClass string
}

func s3ListObjects(w http.ResponseWriter, r *http.Request, p cloud.S3, bucket string, q url.Values) error {
	if q.Get("list-type") != "2" {
		return apiErr("NotImplemented", "The simulator's S3 lists objects with ListObjectsV2 (list-type=2) only.")
	}
	in := &s3.ListObjectsV2Input{Bucket: &bucket}
	for name, dst := range map[string]**string{"prefix": &in.Prefix, "delimiter": &in.Delimiter, "start-after": &in.StartAfter, "continuation-token": &in.ContinuationToken} {
		if q.Has(name) {
			*dst = aws.String(q.Get(name))
		}
	}
	if m := q.Get("max-keys"); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil {
			return apiErr("InvalidArgument", "max-keys must be an integer.")
		}
		in.MaxKeys = aws.Int32(int32(n))
	}
	out, err := p.ListObjectsV2(r.Context(), in)
	if err != nil {
		return err
	}
	// With encoding-type=url, keys and prefixes travel URL-encoded, as
	// the aws CLI asks.
	enc := func(s string) string { return s }
	res := listBucketResult{Name: bucket}
	if q.Get("encoding-type") == "url" {
		enc = func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "%2F", "/") }
		res.EncodingType = "url"
	}
	res.Prefix, res.Delimiter, res.StartAfter = enc(aws.ToString(out.Prefix)), enc(aws.ToString(out.Delimiter)), enc(aws.ToString(out.StartAfter))
	res.ContinuationToken, res.NextContinuationToken = aws.ToString(out.ContinuationToken), aws.ToString(out.NextContinuationToken)
	res.KeyCount, res.MaxKeys, res.IsTruncated = aws.ToInt32(out.KeyCount), aws.ToInt32(out.MaxKeys), aws.ToBool(out.IsTruncated)
	for _, o := range out.Contents {
		res.Contents = append(res.Contents, xmlObject{Key: enc(aws.ToString(o.Key)), LastModified: isoTime(o.LastModified), ETag: aws.ToString(o.ETag), Size: aws.ToInt64(o.Size), StorageClass: string(o.StorageClass)})
	}
	for _, cp := range out.CommonPrefixes {
		res.CommonPrefixes = append(res.CommonPrefixes, struct{ Prefix string }{enc(aws.ToString(cp.Prefix))})
	}
	writeS3XML(w, http.StatusOK, res)
	return nil
}

type listBucketsResult struct {
	XMLName xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ ListAllMyBucketsResult"`
	Owner   struct{ ID string }
	Buckets []xmlBucket `xml:"Buckets>Bucket"`
}

type xmlBucket struct {
	Name         string
	CreationDate string
	BucketRegion string
}

func s3ListBuckets(w http.ResponseWriter, r *http.Request, p cloud.S3) error {
	var res listBucketsResult
	in := &s3.ListBucketsInput{}
	for {
		out, err := p.ListBuckets(r.Context(), in)
		if err != nil {
			return err
		}
		if out.Owner != nil {
			res.Owner.ID = aws.ToString(out.Owner.ID)
		}
		for _, b := range out.Buckets {
			res.Buckets = append(res.Buckets, xmlBucket{Name: aws.ToString(b.Name), CreationDate: isoTime(b.CreationDate), BucketRegion: aws.ToString(b.BucketRegion)})
		}
		if aws.ToString(out.ContinuationToken) == "" {
			break
		}
		in.ContinuationToken = out.ContinuationToken
	}
	writeS3XML(w, http.StatusOK, res)
	return nil
}

func s3GetObject(w http.ResponseWriter, r *http.Request, p cloud.S3, bucket, key string) error {
	ctx := r.Context()
	if r.Method == http.MethodHead {
		out, err := p.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
		if err != nil {
			return err
		}
		objectHeaders(w, aws.ToInt64(out.ContentLength), out.ETag, out.LastModified, out.ContentType)
		w.WriteHeader(http.StatusOK)
		return nil
	}
	out, err := p.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		return err
	}
	defer out.Body.Close()
	objectHeaders(w, aws.ToInt64(out.ContentLength), out.ETag, out.LastModified, out.ContentType)
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, out.Body)
	return nil
}

func objectHeaders(w http.ResponseWriter, size int64, etag *string, modified *time.Time, contentType *string) {
	h := w.Header()
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	h.Set("ETag", aws.ToString(etag))
	if modified != nil {
		h.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	h.Set("Content-Type", aws.ToString(contentType))
}

func isoTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func writeS3XML(w http.ResponseWriter, status int, v any) {
	body, err := xml.Marshal(v)
	if err != nil {
		writeS3Error(w, nil, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(body)
}

type xmlError struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string
	Message   string
	RequestID string `xml:"RequestId"`
}

// s3Status is the HTTP status of S3's error codes; 400 for the others.
var s3Status = map[string]int{
	"NoSuchBucket": 404, "NoSuchKey": 404, "NoSuchUpload": 404, "NotFound": 404,
	"AccessDenied": 403, "Forbidden": 403,
	"PermanentRedirect": 301, "MovedPermanently": 301,
	"BucketAlreadyExists": 409, "BucketAlreadyOwnedByYou": 409, "BucketNotEmpty": 409,
	"MethodNotAllowed": 405, "NotImplemented": 501, "EntityTooLarge": 400,
	"SlowDown": 503, "ServiceUnavailable": 503, "InternalError": 500,
}

func writeS3APIError(w http.ResponseWriter, r *http.Request, err error) {
	var api smithy.APIError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeS3Error(w, r, http.StatusBadRequest, "EntityTooLarge", fmt.Sprintf("Your proposed upload exceeds the maximum allowed size (%d bytes).", tooBig.Limit))
	case errors.As(err, &api):
		status, ok := s3Status[api.ErrorCode()]
		if !ok {
			status = http.StatusBadRequest
			if api.ErrorFault() == smithy.FaultServer {
				status = http.StatusInternalServerError
			}
		}
		writeS3Error(w, r, status, api.ErrorCode(), api.ErrorMessage())
	default:
		writeS3Error(w, r, http.StatusInternalServerError, "InternalError", err.Error())
	}
}

// writeS3Error answers with S3's error document; a HEAD's error has no
// body, as S3's has not.
func writeS3Error(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	if r != nil && r.Method == http.MethodHead {
		w.WriteHeader(status)
		return
	}
	body, _ := xml.Marshal(xmlError{Code: code, Message: msg, RequestID: "simulator"})
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(body)
}

func apiErr(code, format string, args ...any) error {
	return &smithy.GenericAPIError{Code: code, Message: fmt.Sprintf(format, args...), Fault: smithy.FaultClient}
}
