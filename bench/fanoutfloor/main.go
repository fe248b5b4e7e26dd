// Command fanoutfloor is the least work a server can do for the fan-out load
// generator (../shared/bench/fanout): it acknowledges each graphql-transport-ws
// subscriber and, on any POST to /graphql, writes the same ten pre-rendered
// "next" messages, stamped with one time, to every subscriber in a single
// write each, from one goroutine per core. There is no GraphQL, no event log
// and no per-event work.
//
// Run the generator against it in the same run as the servers it compares,
// with the same counts: the latency it reports is what the generator itself
// costs on the machine (reading and decoding the messages), a floor no server
// can go below under that load.
//
//	go run ./bench/fanoutfloor -listen 127.0.0.1:3199
//	fanout -url http://127.0.0.1:3199/graphql -n 10000 -events 10
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"runtime"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

type floor struct {
	mu   sync.Mutex
	subs []*websocket.Conn
}

func main() {
	listen := flag.String("listen", "127.0.0.1:3199", "address to serve on")
	events := flag.Int("events", 10, "messages each subscriber gets per trigger")
	flag.Parse()
	f := &floor{}
	upgrader := websocket.Upgrader{
		Subprotocols: []string{"graphql-transport-ws"},
		CheckOrigin:  func(*http.Request) bool { return true },
	}
	http.HandleFunc("/graphql", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.Header().Set("content-type", "application/json")
			fmt.Fprint(w, `{"data":{"publish":true}}`)
			go f.fire(*events)
			return
		}
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		f.serve(c)
	})
	log.Fatal(http.ListenAndServe(*listen, nil))
}

// serve acknowledges connection_init, takes the subscribe message and keeps
// reading (pongs, complete) until the client goes.
func (f *floor) serve(c *websocket.Conn) {
	defer c.Close()
	if _, _, err := c.ReadMessage(); err != nil {
		return
	}
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"connection_ack"}`)); err != nil {
		return
	}
	if _, _, err := c.ReadMessage(); err != nil {
		return
	}
	f.mu.Lock()
	f.subs = append(f.subs, c)
	f.mu.Unlock()
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			return
		}
	}
}

// fire writes n messages to every subscriber, in one write each.
func (f *floor) fire(n int) {
	f.mu.Lock()
	subs := f.subs
	f.subs = nil
	f.mu.Unlock()
	at := time.Now().UTC().Format(time.RFC3339Nano)
	var frames []byte
	for range n {
		msg := fmt.Sprintf(`{"id":"1","type":"next","payload":{"data":{"events":{"at":%q,"kind":"OPERATION_UPDATED"}}}}`, at)
		frames = append(frames, 0x81, byte(len(msg))) // a final text frame; msg is under 126 bytes
		frames = append(frames, msg...)
	}
	work := make(chan *websocket.Conn)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				c.NetConn().Write(frames)
			}
		}()
	}
	for _, c := range subs {
		work <- c
	}
	close(work)
	wg.Wait()
}
