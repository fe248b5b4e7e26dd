package cloud

import (
	"strings"
	"testing"
)

func TestBucketNameProblem(t *testing.T) {
	for name, want := range map[string]string{
		"my-bucket-1":           "",
		"a.b.c":                 "",
		"ab":                    "3 to 63",
		strings.Repeat("a", 64): "3 to 63",
		"Bad_Name":              "lower-case",
		"-leading":              "lower-case",
		"trailing.":             "lower-case",
		"my..bucket":            "two dots",
		"xn--bucket":            "starts with xn--",
		"data--ol-s3":           "ends with --ol-s3",
		"192.168.1.10":          "IP address",
	} {
		got := BucketNameProblem(name)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
}
