package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/resolvers/server"
)

// The fan-out benchmark runs the server in this process and its subscribers
// in a child process (this test binary again, as TestFanoutSubscribers), so
// that each side has its own file descriptors and the server's memory is
// measured alone. Each round stores eventsPerRound records, 10 ms apart;
// latency is the time a subscriber read an event minus the event's own
// timestamp.
const (
	fanoutChildEnv = "INSTANTSTART_FANOUT_CHILD"
	eventsPerRound = 10
	fanoutQuery    = `subscription($since: String) { events(since: $since) { time action } }`
)

func BenchmarkFanout(b *testing.B) {
	for _, n := range []int{1000, 5000, 10000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) { benchmarkFanout(b, n) })
	}
}

func benchmarkFanout(b *testing.B, n int) {
	srv := startServer(b, server.Config{Limits: server.Limits{MaxConnectionsPerToken: n + 16}})
	heapBefore := serverMemory()
	child := exec.Command(os.Args[0], "-test.run=^TestFanoutSubscribers$", "-test.v")
	child.Env = append(os.Environ(), fanoutChildEnv+"=1",
		"FANOUT_URL=ws://"+srv.Addr()+"/graphql", "FANOUT_TOKEN="+adminSecret,
		"FANOUT_N="+strconv.Itoa(n), "FANOUT_SINCE="+store.Cursor(srv.Store().LastSequence()))
	stdin, _ := child.StdinPipe()
	stdout, _ := child.StdoutPipe()
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		b.Fatal(err)
	}
	defer child.Wait()
	defer stdin.Close()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 64<<20) // a round's latencies are one line
	expect := func(prefix string) string {
		for lines.Scan() {
			if rest, ok := strings.CutPrefix(lines.Text(), prefix); ok {
				return rest
			}
		}
		b.Fatalf("the subscribers' process ended before %q", prefix)
		return ""
	}
	expect("READY")
	deadline := time.Now().Add(2 * time.Minute)
	for srv.Store().Subscribers() < n {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d subscriptions reached the store", srv.Store().Subscribers(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	perSubscriber := float64(serverMemory()-heapBefore) / float64(n)

	writes0, messages0 := srv.WebSocketWrites()
	var lat []time.Duration
	var delivered int
	var elapsed time.Duration
	round := 0
	for b.Loop() {
		round++
		start := time.Now()
		for i := range eventsPerRound {
			putRecord(b, srv, "widget", fmt.Sprintf("w-%d-%d", round, i), map[string]int{"n": i})
			time.Sleep(10 * time.Millisecond) // paced as the peer publishes, not waiting for a result
		}
		fmt.Fprintln(stdin, "ROUND")
		var res fanoutRound
		if err := json.Unmarshal([]byte(expect("ROUND ")), &res); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		delivered += res.Messages
		lat = append(lat, res.Latencies...)
		if res.Messages != n*eventsPerRound {
			b.Fatalf("round %d delivered %d of %d messages", round, res.Messages, n*eventsPerRound)
		}
	}
	writes, messages := srv.WebSocketWrites()
	b.ReportMetric(float64(messages-messages0)/float64(writes-writes0), "msgs/write")
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(delivered)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(perSubscriber, "bytes/subscriber")
}

// serverMemory is this process's heap and stacks in use after a collection.
func serverMemory() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

type fanoutRound struct {
	Messages  int
	Latencies []time.Duration
}

// TestFanoutSubscribers is the subscribers' side of BenchmarkFanout; it
// does nothing unless the benchmark started it.
func TestFanoutSubscribers(t *testing.T) {
	if os.Getenv(fanoutChildEnv) == "" {
		t.Skip("run by BenchmarkFanout")
	}
	n, _ := strconv.Atoi(os.Getenv("FANOUT_N"))
	sub, _ := json.Marshal(map[string]any{"query": fanoutQuery, "variables": map[string]any{"since": os.Getenv("FANOUT_SINCE")}})
	var (
		mu   sync.Mutex
		lat  []time.Duration
		got  atomic.Int64
		wg   sync.WaitGroup
		errs atomic.Int64
		// progress wakes the round's wait when a message arrives.
		progress = make(chan struct{}, 1)
	)
	conns := make([]*websocket.Conn, n)
	dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: time.Minute}
	var dialed sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i := range n {
		dialed.Add(1)
		sem <- struct{}{}
		go func() {
			defer dialed.Done()
			defer func() { <-sem }()
			c, _, err := dialer.Dial(os.Getenv("FANOUT_URL"), http.Header{"Authorization": {"Bearer " + os.Getenv("FANOUT_TOKEN")}})
			if err != nil {
				errs.Add(1)
				fmt.Fprintln(os.Stderr, "dial:", err)
				return
			}
			c.WriteMessage(websocket.TextMessage, []byte(`{"type":"connection_init"}`))
			if _, ack, err := c.ReadMessage(); err != nil || !bytes.Contains(ack, []byte("connection_ack")) {
				errs.Add(1)
				fmt.Fprintln(os.Stderr, "init:", err, string(ack))
				return
			}
			c.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, `{"id":"1","type":"subscribe","payload":%s}`, sub))
			conns[i] = c
		}()
	}
	dialed.Wait()
	if errs.Load() > 0 {
		t.Fatalf("%d subscribers could not connect", errs.Load())
	}
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				_, raw, err := c.ReadMessage()
				if err != nil {
					return
				}
				now := time.Now()
				if bytes.Contains(raw, []byte(`"type":"ping"`)) {
					c.WriteMessage(websocket.TextMessage, []byte(`{"type":"pong"}`))
					continue
				}
				i := bytes.Index(raw, []byte(`"time":"`))
				if i < 0 {
					continue
				}
				rest := raw[i+len(`"time":"`):]
				at, err := time.Parse(time.RFC3339Nano, string(rest[:bytes.IndexByte(rest, '"')]))
				if err != nil {
					continue
				}
				mu.Lock()
				lat = append(lat, now.Sub(at))
				mu.Unlock()
				got.Add(1)
				select {
				case progress <- struct{}{}:
				default:
				}
			}
		}()
	}
	fmt.Println("READY")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		want := int64(n * eventsPerRound)
		timeout := time.After(2 * time.Minute)
	wait: // a round short of messages is reported as such below
		for got.Load() < want {
			select {
			case <-progress:
			case <-timeout:
				break wait
			}
		}
		mu.Lock()
		out, _ := json.Marshal(fanoutRound{Messages: int(got.Load()), Latencies: lat})
		lat = nil
		got.Store(0)
		mu.Unlock()
		fmt.Printf("ROUND %s\n", out)
	}
	for _, c := range conns {
		c.Close()
	}
	wg.Wait()
}
