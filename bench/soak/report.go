package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is what a soak run did and found.
type Report struct {
	Seed       uint64
	Ops, Lanes int // operations asked for (clean-up included), clusters' lanes
	Kills      int
	Operations int   // operations the server holds at the end
	Clusters   int   // cluster records at the end
	Resent     int64 // requests sent again after getting no answer
	Resubmits  int   // requests sent again, with their key, after a restart
	Wall       time.Duration
	Kinds      map[string]*kindCount
	Calls      map[string]map[string]int // the simulator's call counters
	Buckets    []string                  // the buckets kept
	Findings   []finding                 // broken invariants
	Failures   []finding                 // what went wrong besides
	Dir        string                    // the run's directory, kept when it failed
	Faults     string                    // the faults, in words
}

// kindCount is what became of the operations of one kind.
type kindCount struct {
	Asked, Succeeded, Failed, Refused, Lost, Stuck, Retried int
}

func (r *Report) kind(k string) *kindCount {
	if r.Kinds[k] == nil {
		r.Kinds[k] = &kindCount{}
	}
	return r.Kinds[k]
}

// Count is how many findings break invariant inv.
func (r *Report) Count(inv string) int {
	n := 0
	for _, f := range r.Findings {
		if f.invariant == inv {
			n++
		}
	}
	return n
}

// Failed tells whether an invariant broke or the run went wrong.
func (r *Report) Failed() bool { return len(r.Findings) > 0 || len(r.Failures) > 0 }

// createCalls are the calls that make what the soak asks for, shown
// against the operations that asked: a call failed by an injected fault
// and made again is counted twice, so more calls than resources is no
// duplicate; the world's resources are what the check counts.
var createCalls = []struct{ service, op, asked string }{
	{"sagemaker", "CreateCluster", "createCluster"},
	{"eks", "CreateCluster", "createCluster"},
	{"ec2", "CreateVpc", "createCluster"},
	{"ec2", "CreateNatGateway", "createCluster"},
	{"iam", "CreateRole", ""},
	{"s3", "CreateBucket", "addStorage S3"},
	{"fsx", "CreateFileSystem", "addStorage FSX"},
	{"helm", "Install", ""},
	{"kubernetes", "create hyperpodpytorchjobs", "submitTrainingJob"},
	{"kubernetes", "create deployments", "deployEndpoint"},
}

// Print writes the summary.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "soak: seed %d, %d operations on %d clusters' lanes and the clean-up, %d kills, %s\n", r.Seed, r.Ops, r.Lanes, r.Kills, r.Faults)
	fmt.Fprintf(w, "wall time %s; %d requests resent after no answer, %d resubmitted with their key after a restart; %d operations and %d clusters on the server at the end\n",
		r.Wall.Round(time.Second), r.Resent, r.Resubmits, r.Operations, r.Clusters)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "operation\tasked\tsucceeded\tfailed\trefused\tlost\tstuck\tretried\t")
	total := kindCount{}
	for _, k := range slices.Sorted(maps.Keys(r.Kinds)) {
		c := r.Kinds[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", k, c.Asked, c.Succeeded, c.Failed, c.Refused, c.Lost, c.Stuck, c.Retried)
		total.Asked += c.Asked
		total.Succeeded += c.Succeeded
		total.Failed += c.Failed
		total.Refused += c.Refused
		total.Lost += c.Lost
		total.Stuck += c.Stuck
		total.Retried += c.Retried
	}
	fmt.Fprintf(tw, "all\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", total.Asked, total.Succeeded, total.Failed, total.Refused, total.Lost, total.Stuck, total.Retried)
	tw.Flush()

	var calls []string
	for _, c := range createCalls {
		n := r.Calls[c.service][c.op]
		if c.asked == "" {
			calls = append(calls, fmt.Sprintf("%s %s %d", c.service, c.op, n))
			continue
		}
		asked := 0
		if k := r.Kinds[c.asked]; k != nil {
			asked = k.Succeeded
		}
		calls = append(calls, fmt.Sprintf("%s %s %d (for %d %s)", c.service, c.op, n, asked, c.asked))
	}
	fmt.Fprintf(w, "create calls, failed ones included: %s\n", strings.Join(calls, "; "))
	var perService []string
	all := 0
	for _, svc := range slices.Sorted(maps.Keys(r.Calls)) {
		n := 0
		for _, c := range r.Calls[svc] {
			n += c
		}
		all += n
		perService = append(perService, fmt.Sprintf("%s %d", svc, n))
	}
	fmt.Fprintf(w, "calls to the simulated services: %d (%s)\n", all, strings.Join(perService, ", "))
	fmt.Fprintf(w, "buckets kept: %s\n", orNone(r.Buckets))
	var counts []string
	for _, inv := range invariants {
		counts = append(counts, fmt.Sprintf("%s %d", inv, r.Count(inv)))
	}
	fmt.Fprintf(w, "invariants: %s\n", strings.Join(counts, ", "))
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %s: %s\n", strings.ToUpper(f.invariant), f.what)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "  %s: %s\n", f.invariant, f.what)
	}
	if r.Dir != "" {
		fmt.Fprintf(w, "the data directory and the server's log are in %s\n", r.Dir)
	}
	if r.Failed() {
		fmt.Fprintln(w, "FAIL")
	} else {
		fmt.Fprintln(w, "PASS")
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
