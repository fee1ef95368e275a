package mcplive_test

// Benchmarks of the live lists (issue 3), run with
//
//	go test -run '^$' -bench Live -benchmem
//
// (a) BenchmarkLiveChangeLatency: one added tool, from the server's change
// to the client's list holding it: median and p99.
// (b) BenchmarkLiveBurst: 1000 changes, each announced by its own
// list_changed: tools/list walks per burst and the time until the client's
// list equals the server's final one.
// (c) BenchmarkLive10kNotifyToSnapshot: 10,000 tools in pages of 100, from
// the notification's arrival to the applied snapshot.
//
// (a) and (b) run the Client side by side with a naive client built on
// Session that re-lists on every notification (each re-list in its own
// goroutine, the newest notification's result wins) and report the naive
// client's numbers as multiples of the Client's ("x-…" metrics). They use the
// scripted server, which sends each list_changed at once (go-sdk's server
// waits 10 ms for more changes before it sends one, which would swamp the
// client's share).

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/mcplive/mcplive/internal/scripted"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// liveBenchChange is one tools list a client made visible, and when.
type liveBenchChange struct {
	at    time.Time
	tools []mcplive.Tool
}

// liveBenchClient is a client under measure: every list it applies goes to
// changes; walks counts its tools/list walks.
type liveBenchClient struct {
	changes chan liveBenchChange
	walks   func() uint64
}

// liveBenchLive is the Client of this package.
func liveBenchLive(b *testing.B, url string) *liveBenchClient {
	o := liveOptions()
	o.RequestTimeout = time.Minute
	walks := liveCountWalks(b, url, o)
	c := liveConnect(b, url, o)
	bc := &liveBenchClient{changes: make(chan liveBenchChange, 1<<14), walks: func() uint64 { return walks.of(mcplive.KindTools) }}
	b.Cleanup(c.Tools().Subscribe(func(u mcplive.Update[mcplive.Tool]) {
		bc.changes <- liveBenchChange{time.Now(), u.Items}
	}))
	return bc
}

// liveBenchNaive is the naive client: a Session whose notification handler
// re-lists the tools on every tools/list_changed, each walk in its own
// goroutine (the handler must not block); a walk's result is kept only if
// no walk of a later notification has been kept already.
func liveBenchNaive(b *testing.B, url string) *liveBenchClient {
	ctx, cancel := context.WithCancel(context.Background())
	var (
		sess    atomic.Pointer[mcplive.Session]
		started atomic.Uint64
		wg      sync.WaitGroup
		mu      sync.Mutex
		applied uint64
	)
	bc := &liveBenchClient{changes: make(chan liveBenchChange, 1<<14), walks: started.Load}
	o := &mcplive.Options{HeartbeatInterval: -1, RequestTimeout: time.Minute}
	o.OnNotification = func(method string, _ json.RawMessage) {
		s := sess.Load()
		if method != liveNotifyTools || s == nil {
			return
		}
		seq := started.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			tools, err := s.ListTools(ctx)
			if err != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if seq > applied {
				applied = seq
				bc.changes <- liveBenchChange{time.Now(), tools}
			}
		}()
	}
	s, err := mcplive.NewSession(ctx, &mcplive.WebSocketTransport{URL: url}, eraOptions(o))
	if err != nil {
		cancel()
		b.Fatal(err)
	}
	sess.Store(s)
	b.Cleanup(func() {
		cancel()
		s.Close()
		wg.Wait()
	})
	return bc
}

// await reads the client's changes until one satisfies ok; it returns the
// time that change was made visible.
func (bc *liveBenchClient) await(b *testing.B, what string, ok func([]mcplive.Tool) bool) time.Time {
	timer := time.NewTimer(liveDeadline)
	defer timer.Stop()
	for {
		select {
		case ch := <-bc.changes:
			if ok(ch.tools) {
				return ch.at
			}
		case <-timer.C:
			b.Fatalf("%s: never seen", what)
		}
	}
}

func liveHasDesc(key, desc string) func([]mcplive.Tool) bool {
	return func(tools []mcplive.Tool) bool {
		for _, t := range tools {
			if t.Name == key {
				return t.Description == desc
			}
		}
		return false
	}
}

// livePercentile returns the p-th percentile (0 < p ≤ 1) of sorted ds.
func livePercentile(ds []time.Duration, p float64) time.Duration {
	i := int(float64(len(ds))*p+0.5) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

func liveMicros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// liveBenchClients are the two clients (a) and (b) compare, in the order
// they run: the Client first, so the naive run can report ratios to it.
var liveBenchClients = []struct {
	name string
	dial func(*testing.B, string) *liveBenchClient
}{
	{"client=mcplive", liveBenchLive},
	{"client=naive", liveBenchNaive},
}

// liveBenchServer is a scripted server with 20 tools in one page.
func liveBenchServer(b *testing.B) *scripted.Server {
	srv := liveScripted(b, "", 0)
	var tools []json.RawMessage
	for i := 0; i < 20; i++ {
		tools = append(tools, scripted.Tool(fmt.Sprintf("tool%02d", i)))
	}
	srv.Set(scripted.Tools, tools...)
	return srv
}

// (a) One tool added (and the one added before removed, so the list keeps
// its size) and announced: time until the client's list has it.
func BenchmarkLiveChangeLatency(b *testing.B) {
	var base struct{ p50, p99 time.Duration }
	for _, cl := range liveBenchClients {
		b.Run(cl.name, func(b *testing.B) {
			srv := liveBenchServer(b)
			c := cl.dial(b, srv.URL)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				key := fmt.Sprintf("added%07d", i)
				t0 := time.Now()
				srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage {
					return append(items[:20], scripted.Tool(key, "new"))
				})
				srv.Notify(liveNotifyTools, nil)
				lat = append(lat, c.await(b, key, liveHasDesc(key, "new")).Sub(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			p50, p99 := livePercentile(lat, 0.5), livePercentile(lat, 0.99)
			b.ReportMetric(liveMicros(p50), "p50-µs")
			b.ReportMetric(liveMicros(p99), "p99-µs")
			if cl.name == "client=mcplive" {
				base.p50, base.p99 = p50, p99
			} else if base.p50 > 0 {
				b.ReportMetric(float64(p50)/float64(base.p50), "x-p50")
				b.ReportMetric(float64(p99)/float64(base.p99), "x-p99")
			}
		})
	}
}

// (b) A burst of 1000 changes to one tool, each announced by its own
// list_changed as the server makes it ("spread"), or all made first and
// then announced by 1000 list_changed back-to-back ("back-to-back"):
// tools/list walks per burst, and the time from the first change until the
// client's list equals the server's final one.
func BenchmarkLiveBurst(b *testing.B) {
	const burst = 1000
	for _, mode := range []string{"spread", "back-to-back"} {
		var base struct {
			walks float64
			final time.Duration
		}
		for _, cl := range liveBenchClients {
			b.Run("burst="+mode+"/"+cl.name, func(b *testing.B) {
				srv := liveBenchServer(b)
				c := cl.dial(b, srv.URL)
				finals := make([]time.Duration, 0, b.N)
				w0 := c.walks()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					for j := 0; j < burst; j++ {
						desc := fmt.Sprintf("%d-%d", i, j)
						srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage {
							items[0] = scripted.Tool("tool00", desc)
							return items
						})
						if mode == "spread" {
							srv.Notify(liveNotifyTools, nil)
						}
					}
					if mode == "back-to-back" {
						srv.Burst(liveNotifyTools, nil, burst)
					}
					finals = append(finals, c.await(b, "final", liveHasDesc("tool00", fmt.Sprintf("%d-%d", i, burst-1))).Sub(t0))
				}
				b.StopTimer()
				// A walk may still be running for the last notifications: it
				// was counted when it started.
				walks := float64(c.walks()-w0) / float64(b.N)
				slices.Sort(finals)
				p50 := livePercentile(finals, 0.5)
				b.ReportMetric(walks, "walks/burst")
				b.ReportMetric(float64(p50)/float64(time.Millisecond), "p50-ms-to-final")
				if cl.name == "client=mcplive" {
					base.walks, base.final = walks, p50
				} else if base.walks > 0 {
					b.ReportMetric(walks/base.walks, "x-walks")
					b.ReportMetric(float64(p50)/float64(base.final), "x-time")
				}
			})
		}
	}
}

// (c) 10,000 tools in pages of 100: from the arrival of the list_changed
// for one added tool to the applied snapshot holding it (a walk of 100
// pages, the diff of 10,000 items, the swap). Against go-sdk (its server
// work included) and the scripted server (mostly the client's work).
func BenchmarkLive10kNotifyToSnapshot(b *testing.B) {
	const n, page = 10_000, 100
	for _, server := range []string{"go-sdk", "scripted"} {
		b.Run("server="+server, func(b *testing.B) {
			var add func(i int)
			var url string
			switch server {
			case "go-sdk":
				srv := mcptest.New(b, &mcptest.Options{PageSize: page, Setup: func(s *mcp.Server) { mcptest.AddTools(s, "tool", n) }})
				url = srv.URL
				add = func(i int) {
					name := fmt.Sprintf("added%07d", i)
					srv.S.AddTool(mcptest.Tool(name), mcptest.EchoHandler(name))
				}
			default:
				srv := liveScripted(b, "", page)
				tools := make([]json.RawMessage, n)
				for i := range tools {
					tools[i] = scripted.Tool(fmt.Sprintf("tool%d", i), "tool")
				}
				srv.Set(scripted.Tools, tools...)
				url = srv.URL
				add = func(i int) {
					srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage {
						return append(items, scripted.Tool(fmt.Sprintf("added%07d", i)))
					})
					srv.Notify(liveNotifyTools, nil)
				}
			}
			var notified atomic.Int64 // arrival of the last tools/list_changed, UnixNano
			o := liveOptions()
			o.RequestTimeout = time.Minute
			o.OnNotification = func(method string, _ json.RawMessage) {
				if method == liveNotifyTools {
					notified.Store(time.Now().UnixNano())
				}
			}
			c := liveConnect(b, url, o)
			if got := len(c.Tools().Snapshot().Items); got != n {
				b.Fatalf("%d tools after Connect, want %d", got, n)
			}
			applied := make(chan struct {
				name string
				at   time.Time
			}, 16)
			b.Cleanup(c.Tools().Subscribe(func(u mcplive.Update[mcplive.Tool]) {
				for _, t := range u.Added {
					applied <- struct {
						name string
						at   time.Time
					}{t.Name, time.Now()}
				}
			}))
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				name := fmt.Sprintf("added%07d", i)
				add(i)
				for {
					a := liveRecv(b, applied, name)
					if a.name == name {
						lat = append(lat, a.at.Sub(time.Unix(0, notified.Load())))
						break
					}
				}
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(livePercentile(lat, 0.5))/float64(time.Millisecond), "p50-ms")
			b.ReportMetric(float64(livePercentile(lat, 0.99))/float64(time.Millisecond), "p99-ms")
		})
	}
}
