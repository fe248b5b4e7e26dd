// Command soak runs the real server on the simulator with faults on every
// simulated service, asks it for a mix of operations through its public
// surfaces (GraphQL over HTTP and /sim), kills it with SIGKILL at random
// moments and starts it again on the same data directory, then deletes
// everything and checks that nothing was lost, made twice, left behind or
// left half-done.
//
//	go run ./bench/soak                          # 100 operations, 20 kills
//	go run ./bench/soak -ops 20 -kills 5 -seed 7 -bin ./instantstart
//
// Each cluster's lane makes a cluster (a group of two ml.g5.12xlarge),
// turns its training operator on, adds its shared bucket, downloads a
// model and puts a dataset, then asks for a random mix of training jobs,
// endpoints, endpoint and instance group scaling, FSx file systems and
// their deletion, and ends with deleteCluster with cascade; lanes of 20
// operations run side by side. Every mutation carries an idempotency key:
// a request that got no answer, and an operation followed across a
// restart, is sent again with its key and must come back as the same
// operation. An operation that FAILED with a retryable error is retried
// with retryOperation, up to 3 times. At the end every cluster still
// there is deleted with cascade (the shared buckets stay), and the run
// checks:
//
//   - lost: every operation acknowledged was followed to its end;
//   - duplicated: no idempotency key has two operations, no cluster, job,
//     endpoint or storage name two records, and the world (GET
//     /sim/resources, read after each restart and at the end) never held
//     two live resources for one (same InstantStart tags);
//   - leaked: the world (GET /sim/inventory) holds nothing it did not
//     hold before the run but the lanes' buckets and their objects, and
//     no record of a deleted cluster is live;
//   - stuck: every operation and record ended in a terminal status;
//   - failed: no operation FAILED after its retries, none was refused.
//
// It prints a summary and exits 1 when an invariant broke (2 when the run
// could not be carried out).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	var o Options
	flag.StringVar(&o.Bin, "bin", "", "the server binary (default: go build the module's main package into a temporary directory)")
	flag.IntVar(&o.Ops, "ops", 100, "how many operations the clusters' lanes ask for (20 per cluster), the final clean-up aside")
	flag.IntVar(&o.Kills, "kills", 20, "how many times to kill the server with SIGKILL and start it again")
	flag.Uint64Var(&o.Seed, "seed", 1, "seeds what the lanes ask for, when the kills land and the simulator's draws")
	flag.Float64Var(&o.Speed, "speed", 200, "the simulator's speed (--sim-speed)")
	flag.Float64Var(&o.Throttle, "throttle", 0.1, "the share of the calls to every simulated service that are throttled")
	flag.Float64Var(&o.Unavailable, "unavailable", 0.02, "the share of the calls to every simulated service that fail with ServiceUnavailable (5xx)")
	flag.DurationVar(&o.OpTimeout, "op-timeout", 10*time.Minute, "how long one operation is followed before it counts as stuck")
	flag.StringVar(&o.Dir, "dir", "", "where to keep the data directory and the server's log (default: a temporary directory, removed after a run that passes)")
	verbose := flag.Bool("v", false, "log each operation, kill and retry as it happens")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "soak: unexpected arguments %q; it takes only flags\n", flag.Args())
		os.Exit(2)
	}
	if *verbose {
		o.Log = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := Run(ctx, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: %v\n", err)
		os.Exit(2)
	}
	rep.Print(os.Stdout)
	if rep.Failed() {
		os.Exit(1)
	}
}
