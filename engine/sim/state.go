package sim

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// state is everything the world remembers. It is saved as JSON, so it holds
// plain records, not SDK types (some of which are unions JSON cannot decode).
type state struct {
	Seq      uint64                    // source of every generated id
	Draws    uint64                    `json:",omitempty"` // how many random values the world drew (see txn.draw)
	Chances  uint64                    `json:",omitempty"` // how many times faults with a probability drew (see txn.chance)
	Calls    map[string]map[string]int // service -> operation -> count
	Faults   []Fault
	FaultSeq int
	Roles    map[string]*roleRec   // by lower-case role name: IAM names are case-insensitive
	Policies map[string]*policyRec `json:",omitempty"` // customer managed policies, by lower-case name
	OIDC     map[string]*oidcRec   // by ARN
	Regions  map[string]*regionState
	Kube     *kubeState `json:",omitempty"` // the objects of the EKS clusters' Kubernetes APIs
	// Helm holds the Helm releases of the EKS clusters, by kubeClusterKey.
	Helm map[string]*helmClusterRec `json:",omitempty"`
	// Buckets holds the S3 buckets of every account and region, by name:
	// bucket names are global.
	Buckets map[string]*bucketRec `json:",omitempty"`
	// ECRTokens are the registry passwords ECR handed out, with when
	// each expires (see ecr.go).
	ECRTokens map[string]time.Time `json:",omitempty"`
	// Sessions are the role sessions STS AssumeRole made, by the access
	// key id of their temporary credentials.
	Sessions map[string]*stsSessionRec `json:",omitempty"`
}

// regionState holds the regional resources of one region.
type regionState struct {
	VPCs           map[string]*vpcRec
	Subnets        map[string]*subnetRec
	IGWs           map[string]*igwRec
	Addresses      map[string]*addressRec // by allocation id
	NATs           map[string]*natRec
	RouteTables    map[string]*routeTableRec
	SecurityGroups map[string]*sgRec
	Tags           map[string]map[string]string // EC2 tags by resource id
	EKS            map[string]*eksClusterRec    // by cluster name
	HyperPod       map[string]*hpClusterRec     // by cluster name
	// FileSystems and DataRepoAssociations are FSx's, by id.
	FileSystems          map[string]*fsxFileSystemRec `json:",omitempty"`
	DataRepoAssociations map[string]*fsxDRARec        `json:",omitempty"`
	// TrainingPlansFrom is when the region's training plans started: the
	// first time a call looked at them.
	TrainingPlansFrom *time.Time `json:",omitempty"`
	// MLflowServers are SageMaker's managed MLflow tracking servers, by
	// name (see sagemaker_mlflow.go).
	MLflowServers map[string]*mlflowServerRec `json:",omitempty"`
	// MLflowRuns are what training pods log to the region's tracking
	// servers, by tracking server ARN (see mlflow_runs.go).
	MLflowRuns map[string]*mlflowServerRuns `json:",omitempty"`
}

func newState() *state {
	st := &state{}
	st.init()
	return st
}

func decodeState(data []byte) (*state, error) {
	st := &state{}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("decode world: %w", err)
	}
	st.init()
	return st, nil
}

// init fills the maps JSON leaves nil.
func (st *state) init() {
	if st.Calls == nil {
		st.Calls = map[string]map[string]int{}
	}
	if st.Roles == nil {
		st.Roles = map[string]*roleRec{}
	}
	if st.Policies == nil {
		st.Policies = map[string]*policyRec{}
	}
	if st.OIDC == nil {
		st.OIDC = map[string]*oidcRec{}
	}
	if st.Regions == nil {
		st.Regions = map[string]*regionState{}
	}
	if st.Buckets == nil {
		st.Buckets = map[string]*bucketRec{}
	}
	for _, rs := range st.Regions {
		rs.init()
	}
}

func (rs *regionState) init() {
	if rs.VPCs == nil {
		rs.VPCs = map[string]*vpcRec{}
	}
	if rs.Subnets == nil {
		rs.Subnets = map[string]*subnetRec{}
	}
	if rs.IGWs == nil {
		rs.IGWs = map[string]*igwRec{}
	}
	if rs.Addresses == nil {
		rs.Addresses = map[string]*addressRec{}
	}
	if rs.NATs == nil {
		rs.NATs = map[string]*natRec{}
	}
	if rs.RouteTables == nil {
		rs.RouteTables = map[string]*routeTableRec{}
	}
	if rs.SecurityGroups == nil {
		rs.SecurityGroups = map[string]*sgRec{}
	}
	if rs.Tags == nil {
		rs.Tags = map[string]map[string]string{}
	}
	if rs.EKS == nil {
		rs.EKS = map[string]*eksClusterRec{}
	}
	if rs.HyperPod == nil {
		rs.HyperPod = map[string]*hpClusterRec{}
	}
	if rs.FileSystems == nil {
		rs.FileSystems = map[string]*fsxFileSystemRec{}
	}
	if rs.DataRepoAssociations == nil {
		rs.DataRepoAssociations = map[string]*fsxDRARec{}
	}
	if rs.MLflowServers == nil {
		rs.MLflowServers = map[string]*mlflowServerRec{}
	}
	for _, c := range rs.EKS {
		c.init()
	}
}

func (st *state) regionState(region string) *regionState {
	rs, ok := st.Regions[region]
	if !ok {
		rs = &regionState{}
		rs.init()
		st.Regions[region] = rs
	}
	return rs
}

func (st *state) count(service, op string) {
	ops, ok := st.Calls[service]
	if !ok {
		ops = map[string]int{}
		st.Calls[service] = ops
	}
	ops[op]++
}

// prune drops the resources that have finished disappearing by now.
func (st *state) prune(now time.Time) {
	for _, rs := range st.Regions {
		rs.prune(now)
	}
	for p, expires := range st.ECRTokens {
		if !now.Before(expires) {
			delete(st.ECRTokens, p)
		}
	}
}

// natGoneAfter is how long a deleted NAT gateway stays visible in state
// "deleted", as in EC2 (about an hour).
const natGoneAfter = time.Hour

func (rs *regionState) prune(now time.Time) {
	for name, c := range rs.EKS {
		if c.Life.phase(now) == phaseGone {
			delete(rs.SecurityGroups, c.ClusterSGID)
			delete(rs.Tags, c.ClusterSGID)
			delete(rs.EKS, name)
			continue
		}
		for an, a := range c.Addons {
			if a.Life.phase(now) == phaseGone {
				delete(c.Addons, an)
			}
		}
		c.pruneNodegroups(now)
	}
	for name, c := range rs.HyperPod {
		if c.Life.phase(now) == phaseGone {
			delete(rs.HyperPod, name)
		}
	}
	rs.pruneFSx(now)
	rs.pruneMLflow(now)
	for id, n := range rs.NATs {
		if n.Life.GoneAt != nil && now.After(n.Life.GoneAt.Add(natGoneAfter)) {
			delete(rs.NATs, id)
			delete(rs.Tags, id)
		}
	}
}

// txn is the context of one call: the world's state, the call's region and
// the time the call happened.
type txn struct {
	w      *World
	st     *state
	region string
	// service and op name the call, as counted ("eks", "CreateCluster").
	service, op string
	rs          *regionState // nil for the global services
	now         time.Time
	// afterSave runs, in order, once the call's changes are saved: it
	// tells Kubernetes watchers of what the call changed.
	afterSave []func()
}

func (t *txn) account() string { return t.w.account }

// after is the simulated moment a real latency d from now ends.
func (t *txn) after(d time.Duration) time.Time { return t.now.Add(t.w.scale(d)) }

// newID returns an EC2-style id such as "vpc-0a1b2c3d4e5f60718": a prefix
// and 17 hex digits, deterministic from the world's sequence.
func (t *txn) newID(prefix string) string {
	return fmt.Sprintf("%s-%017x", prefix, t.nextRand())
}

// nextRand advances the sequence and returns a well-mixed 64-bit value
// (splitmix64), so generated ids look random yet replay identically.
func (t *txn) nextRand() uint64 {
	t.st.Seq++
	return splitmix64(t.st.Seq)
}

// splitmix64 mixes x into a well-spread 64-bit value.
func splitmix64(x uint64) uint64 {
	z := x*0x9e3779b97f4a7c15 + 0x632be59bd9b4e5f5
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// draw returns a real latency drawn uniformly from [lo, hi], from a
// stream of its own seeded by Options.Seed, so that drawing does not change
// the ids the world generates and replays identically for a seed.
func (t *txn) draw(lo, hi time.Duration) time.Duration {
	t.st.Draws++
	v := splitmix64(t.st.Draws ^ t.w.seed*0xd1b54a32d192ed03 ^ 0x5851f42d4c957f2d)
	return lo + time.Duration(v%uint64(hi-lo+1))
}

// chance tells whether a draw falls within share p of the unit interval:
// true with probability p. It draws from a stream of its own, seeded by
// Options.Seed, apart from draw's and the ids' sequence, so that faults
// that fire by chance change neither latencies nor ids, and replay
// identically for a seed.
func (t *txn) chance(p float64) bool {
	t.st.Chances++
	v := splitmix64(t.st.Chances ^ t.w.seed*0xa0761d6478bd642f ^ 0xe7037ed1a0b428db)
	return float64(v>>11)/(1<<53) < p
}

// randString returns n characters drawn from alphabet.
func (t *txn) randString(alphabet string, n int) string {
	var b strings.Builder
	for b.Len() < n {
		v := t.nextRand()
		for i := 0; i < 10 && b.Len() < n; i++ {
			b.WriteByte(alphabet[v%uint64(len(alphabet))])
			v /= uint64(len(alphabet))
		}
	}
	return b.String()
}

const (
	upperHex   = "0123456789ABCDEF"
	lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
)

// phase is where an asynchronous resource is in its life.
type phase int

const (
	phaseCreating phase = iota
	phaseReady
	phaseFailed
	phaseDeleting
	phaseGone
)

// lifecycle records the timestamps from which an asynchronous resource's
// status is computed: nothing runs in the background.
type lifecycle struct {
	CreatedAt   time.Time
	ReadyAt     time.Time  // when creation ends, in the ready or failed state
	FailMessage string     `json:",omitempty"` // set: creation ends failed
	DeletingAt  *time.Time `json:",omitempty"`
	GoneAt      *time.Time `json:",omitempty"`
	// HeldBy is the id of the hold fault that keeps the resource creating
	// past ReadyAt, until the fault is cleared (see FaultHold).
	HeldBy string `json:",omitempty"`
}

func newLifecycle(now, readyAt time.Time) lifecycle {
	return lifecycle{CreatedAt: now, ReadyAt: readyAt}
}

func (l lifecycle) phase(now time.Time) phase {
	switch {
	case l.GoneAt != nil && !now.Before(*l.GoneAt):
		return phaseGone
	case l.DeletingAt != nil:
		return phaseDeleting
	case l.HeldBy != "", now.Before(l.ReadyAt):
		return phaseCreating
	case l.FailMessage != "":
		return phaseFailed
	default:
		return phaseReady
	}
}

// startDeleting marks the resource deleting now and gone at goneAt.
func (l *lifecycle) startDeleting(now, goneAt time.Time) {
	l.DeletingAt, l.GoneAt = &now, &goneAt
}
