package sim

import (
	"regexp"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// ec2Filters is a validated list of EC2 describe filters. Within a filter
// any value may match (with * and ? wildcards); every filter must match.
type ec2Filters []ec2types.Filter

// newEC2Filters checks that every filter is tag:<key>, tag-key, or one of
// supported, and rejects the others as EC2 does.
func newEC2Filters(filters []ec2types.Filter, supported ...string) (ec2Filters, error) {
	for _, f := range filters {
		name := aws.ToString(f.Name)
		if strings.HasPrefix(name, "tag:") || name == "tag-key" {
			continue
		}
		known := false
		for _, s := range supported {
			known = known || s == name
		}
		if !known {
			return nil, ec2Error("InvalidParameterValue", "The filter '%s' is invalid", name)
		}
	}
	return ec2Filters(filters), nil
}

// ec2Filters is newEC2Filters for EC2 describe call op: while a nofilters
// fault strikes the call, the filters are checked and then ignored.
func (t *txn) ec2Filters(op string, filters []ec2types.Filter, supported ...string) (ec2Filters, error) {
	fs, err := newEC2Filters(filters, supported...)
	if err != nil {
		return nil, err
	}
	for _, f := range t.st.Faults {
		if f.Kind == FaultNoFilters && (f.Operation == "" || f.Operation == op) && f.inRegion(t.region) {
			return nil, nil
		}
	}
	return fs, nil
}

// match tells whether a resource with tags and the given filterable fields
// passes every filter.
func (fs ec2Filters) match(tags map[string]string, fields map[string][]string) bool {
	for _, f := range fs {
		name := aws.ToString(f.Name)
		var have []string
		switch {
		case strings.HasPrefix(name, "tag:"):
			if v, ok := tags[strings.TrimPrefix(name, "tag:")]; ok {
				have = []string{v}
			}
		case name == "tag-key":
			for k := range tags {
				have = append(have, k)
			}
		default:
			have = fields[name]
		}
		if !anyGlob(f.Values, have) {
			return false
		}
	}
	return true
}

func anyGlob(patterns, values []string) bool {
	for _, p := range patterns {
		re := globRegexp(p)
		for _, v := range values {
			if re.MatchString(v) {
				return true
			}
		}
	}
	return false
}

// globRegexp compiles an EC2 filter value, where * matches any run of
// characters and ? any one character.
func globRegexp(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// idSet is the set of ids a describe call asked for; empty means all.
type idSet map[string]bool

func newIDSet(ids []string) idSet {
	s := idSet{}
	for _, id := range ids {
		s[id] = true
	}
	return s
}

func (s idSet) has(id string) bool { return len(s) == 0 || s[id] }

// missing returns the first requested id that is not among found.
func (s idSet) missing(found func(id string) bool) (string, bool) {
	ids := make([]string, 0, len(s))
	for id := range s {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if !found(id) {
			return id, true
		}
	}
	return "", false
}

// sortedKeys returns the keys of m in order: describe calls list resources
// by id so that results are stable.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
