package mcplive_test

// Helpers of the live-list tests (list_test.go, reconnect_test.go) and
// benchmarks (list_bench_test.go). Their names start with "live" so they
// cannot collide with the helpers of the package's other test files.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/scripted"
)

// liveDeadline bounds the wait for one event of these tests (an update, a
// state change, a call's answer); see waitLimit. Reaching it is a failure (a
// list that never converges, a call that never returns), never a measure of
// speed. A wait for many events restarts it at each one.
const liveDeadline = waitLimit

// liveHeartbeatTimeout is the HeartbeatTimeout of the tests whose server
// goes silent: the timer they wait for. The healthy pings of those tests
// (every 10 ms) must come back within it too, so it leaves a loaded machine
// ample room for a round trip.
const liveHeartbeatTimeout = 2 * time.Second

// liveOptions: fast reconnects, no heartbeat unless a test asks for one.
func liveOptions() *mcplive.Options {
	return &mcplive.Options{
		Reconnect:         mcplive.ReconnectOptions{InitialDelay: 5 * time.Millisecond, MaxDelay: 50 * time.Millisecond},
		RequestTimeout:    liveDeadline,
		HeartbeatInterval: -1,
		RawItems:          rawItemsRun(),
	}
}

// liveConnect connects and closes the client when the test ends.
func liveConnect(t testing.TB, url string, o *mcplive.Options) *mcplive.Client {
	t.Helper()
	if o == nil {
		o = liveOptions()
	}
	// Connect is a batch of work (initialize, then every page of every
	// list): no budget but the test's; each request has its RequestTimeout.
	c, err := mcplive.Connect(testCtx(t), url, eraOptions(o))
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// liveScripted starts a scripted server and closes it when the test ends
// (after the clients, which were connected later: cleanups run in reverse).
func liveScripted(t testing.TB, caps string, pageSize int) *scripted.Server {
	t.Helper()
	s, err := scripted.New(caps, pageSize)
	if err != nil {
		t.Fatal(err)
	}
	if testEra == "modern" {
		s.Modern(scripted.ModernOptions{})
	}
	t.Cleanup(s.Close)
	return s
}

// liveRec records every update a list publishes, in order.
type liveRec[T mcplive.Item] struct {
	mu   sync.Mutex
	ups  []mcplive.Update[T]
	wake chan struct{}
}

func liveRecord[T mcplive.Item](t testing.TB, l *mcplive.List[T]) *liveRec[T] {
	r := &liveRec[T]{wake: make(chan struct{}, 1)}
	stop := l.Subscribe(func(u mcplive.Update[T]) {
		r.mu.Lock()
		r.ups = append(r.ups, u)
		r.mu.Unlock()
		select {
		case r.wake <- struct{}{}:
		default:
		}
	})
	t.Cleanup(stop)
	return r
}

// all returns the updates recorded so far.
func (r *liveRec[T]) all() []mcplive.Update[T] {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ups)
}

// at waits for the i-th update (from 0) and returns it. Each update on
// the way may take up to liveDeadline.
func (r *liveRec[T]) at(t testing.TB, i int) mcplive.Update[T] {
	t.Helper()
	timer := time.NewTimer(liveDeadline)
	defer timer.Stop()
	last := -1
	for {
		r.mu.Lock()
		if len(r.ups) > i {
			u := r.ups[i]
			r.mu.Unlock()
			return u
		}
		n := len(r.ups)
		r.mu.Unlock()
		if n > last {
			last = n
			timer.Reset(liveDeadline)
		}
		select {
		case <-r.wake:
		case <-timer.C:
			t.Fatalf("update #%d never came (%d so far, none for %v: %s)", i, n, liveDeadline, liveDescribeAll(r.all()))
		}
	}
}

// liveWait waits until pred holds for l's snapshot and returns it. It
// fails when the list stays still for liveDeadline, or when the test's own
// deadline (testCtx) comes while it keeps changing: the list may go through
// many updates first (a burst, a restart), each its own event.
func liveWait[T mcplive.Item](t testing.TB, l *mcplive.List[T], what string, pred func(mcplive.Snapshot[T]) bool) mcplive.Snapshot[T] {
	t.Helper()
	wake := make(chan struct{}, 1)
	stop := l.Subscribe(func(mcplive.Update[T]) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer stop()
	ctx := testCtx(t)
	timer := time.NewTimer(liveDeadline)
	defer timer.Stop()
	for {
		s := l.Snapshot()
		if pred(s) {
			return s
		}
		select {
		case <-wake:
			timer.Reset(liveDeadline)
		case <-timer.C:
			t.Fatalf("%s %s: not reached, and no update for %v; last snapshot: %s", l.Kind(), what, liveDeadline, liveDescribe(s))
		case <-ctx.Done():
			t.Fatalf("%s %s: not reached before the test's deadline; last snapshot: %s", l.Kind(), what, liveDescribe(s))
		}
	}
}

// liveHasKeys is a liveWait predicate: status ready and exactly keys, in
// any order.
func liveHasKeys[T mcplive.Item](keys []string) func(mcplive.Snapshot[T]) bool {
	want := slices.Sorted(slices.Values(keys))
	return func(s mcplive.Snapshot[T]) bool {
		return s.Status == mcplive.StatusReady && slices.Equal(slices.Sorted(slices.Values(liveKeys(s.Items))), want)
	}
}

// liveStates records the client's state changes.
type liveStates struct {
	mu     sync.Mutex
	states []mcplive.State
	wake   chan struct{}
}

func liveWatchStates(t testing.TB, c *mcplive.Client) *liveStates {
	r := &liveStates{wake: make(chan struct{}, 1)}
	stop := c.WatchState(func(s mcplive.State) {
		r.mu.Lock()
		r.states = append(r.states, s)
		r.mu.Unlock()
		select {
		case r.wake <- struct{}{}:
		default:
		}
	})
	t.Cleanup(stop)
	return r
}

func (r *liveStates) all() []mcplive.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.states)
}

// await waits until the recorded states are exactly want, each state
// change up to liveDeadline.
func (r *liveStates) await(t testing.TB, want ...mcplive.State) {
	t.Helper()
	timer := time.NewTimer(liveDeadline)
	defer timer.Stop()
	last := -1
	for {
		got := r.all()
		if slices.Equal(got, want) {
			return
		}
		if len(got) >= len(want) {
			t.Fatalf("states: got %v, want %v", got, want)
		}
		if len(got) > last {
			last = len(got)
			timer.Reset(liveDeadline)
		}
		select {
		case <-r.wake:
		case <-timer.C:
			t.Fatalf("states: got %v, want %v (no change for %v)", got, want, liveDeadline)
		}
	}
}

// liveLog keeps every record logged through its Logger.
type liveLog struct {
	mu   sync.Mutex
	recs []string
}

func (l *liveLog) Logger() *slog.Logger { return slog.New(l) }

func (l *liveLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *liveLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *liveLog) WithGroup(string) slog.Handler            { return l }
func (l *liveLog) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	l.mu.Lock()
	l.recs = append(l.recs, b.String())
	l.mu.Unlock()
	return nil
}

// find returns the records containing every one of parts.
func (l *liveLog) find(parts ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.recs {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(r, p)
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

func liveKeys[T mcplive.Item](items []T) []string {
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = it.Key()
	}
	return keys
}

// liveDesc returns an item's description, read from its raw JSON.
func liveDesc[T mcplive.Item](it T) string {
	var v struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(it.RawJSON(), &v)
	return v.Description
}

// liveDescs maps each item's key to its description.
func liveDescs[T mcplive.Item](items []T) map[string]string {
	m := make(map[string]string, len(items))
	for _, it := range items {
		m[it.Key()] = liveDesc(it)
	}
	return m
}

func liveDescribe[T mcplive.Item](s mcplive.Snapshot[T]) string {
	return fmt.Sprintf("{status %s, err %v, version %d, items %v}", s.Status, s.Err, s.Version, liveKeys(s.Items))
}

func liveDescribeAll[T mcplive.Item](ups []mcplive.Update[T]) string {
	parts := make([]string, len(ups))
	for i, u := range ups {
		parts[i] = fmt.Sprintf("%s+%v-%v~%v", liveDescribe(u.Snapshot), liveKeys(u.Added), liveKeys(u.Removed), liveKeys(u.Changed))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// liveSameKeys reports whether two key lists hold the same keys, in any
// order.
func liveSameKeys(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// liveCheckUpdate checks one update: status ready, no error, the version,
// the items (by key, any order) and the exact diff (by key, any order).
func liveCheckUpdate[T mcplive.Item](t testing.TB, u mcplive.Update[T], version uint64, items, added, removed, changed []string) {
	t.Helper()
	ok := u.Status == mcplive.StatusReady && u.Err == nil && u.Version == version &&
		liveSameKeys(liveKeys(u.Items), items) && liveSameKeys(liveKeys(u.Added), added) &&
		liveSameKeys(liveKeys(u.Removed), removed) && liveSameKeys(liveKeys(u.Changed), changed)
	if !ok {
		t.Fatalf("update: got %s\nwant {status ready, version %d, items %v} +%v -%v ~%v",
			liveDescribeAll([]mcplive.Update[T]{u}), version, items, added, removed, changed)
	}
}

// liveCtx is testCtx: a call's own bound is its RequestTimeout.
func liveCtx(t testing.TB) context.Context { return testCtx(t) }

// liveCounter counts events delivered by a callback (notifications
// handled, for example) so that a test can wait for the n-th one without a
// budget for all n: only each next event is bounded, by liveDeadline.
type liveCounter struct {
	n    atomic.Int64
	wake chan struct{}
}

func newLiveCounter() *liveCounter { return &liveCounter{wake: make(chan struct{}, 1)} }

// add counts one event; it never blocks.
func (c *liveCounter) add() {
	c.n.Add(1)
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// await waits until n events have been counted.
func (c *liveCounter) await(t testing.TB, n int64, what string) {
	t.Helper()
	timer := time.NewTimer(liveDeadline)
	defer timer.Stop()
	for last := c.n.Load(); last < n; {
		select {
		case <-c.wake:
			if got := c.n.Load(); got > last {
				last = got
				timer.Reset(liveDeadline)
			}
		case <-timer.C:
			t.Fatalf("%s: %d of %d, then none for %v", what, last, n, liveDeadline)
		}
	}
}

// liveRecv waits for a value on ch.
func liveRecv[V any](t testing.TB, ch <-chan V, what string) V {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(liveDeadline):
		t.Fatalf("%s: never happened", what)
		panic("unreachable")
	}
}

// liveOpenings returns a predicate that reports whether a request is its
// connection's opening (initialize, or the first server/discover in
// 2026-07-28), for hooks that silence everything after it.
func liveOpenings() func(*scripted.Request) bool {
	var mu sync.Mutex
	seen := map[int]bool{}
	return func(r *scripted.Request) bool {
		if r.Method != openingMethod() {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		first := !seen[r.Conn]
		seen[r.Conn] = true
		return first
	}
}

// liveWalks counts the list walks of a client (every page of one list) as
// its connection shows them: a walk's first page is the one request of the
// list's method without a cursor. A walk is counted when the client writes
// that request, a little after the client starts it.
type liveWalks struct {
	mu sync.Mutex
	n  map[string]uint64 // by method
}

// liveListMethods is the list method of each kind.
var liveListMethods = map[mcplive.Kind]string{
	mcplive.KindTools:             "tools/list",
	mcplive.KindPrompts:           "prompts/list",
	mcplive.KindResources:         "resources/list",
	mcplive.KindResourceTemplates: "resources/templates/list",
}

// liveCountWalks sets o.Transport to url's transport, with connections that
// count the client's walks.
func liveCountWalks(t testing.TB, url string, o *mcplive.Options) *liveWalks {
	t.Helper()
	tr, err := mcplive.NewTransport(url, o)
	if err != nil {
		t.Fatal(err)
	}
	w := &liveWalks{n: map[string]uint64{}}
	o.Transport = liveTransport(func(ctx context.Context) (mcplive.Conn, error) {
		conn, err := tr.Connect(ctx)
		if err != nil {
			return nil, err
		}
		return &liveWalkConn{Conn: conn, walks: w}, nil
	})
	return w
}

// of returns how many walks of kind the client has started so far.
func (w *liveWalks) of(kind mcplive.Kind) uint64 {
	m, ok := liveListMethods[kind]
	if !ok {
		panic("liveWalks: no list method for kind " + string(kind))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n[m]
}

// liveTransport is a Transport of a function.
type liveTransport func(context.Context) (mcplive.Conn, error)

func (f liveTransport) Connect(ctx context.Context) (mcplive.Conn, error) { return f(ctx) }

// liveWalkConn counts the first pages of list walks it writes.
type liveWalkConn struct {
	mcplive.Conn
	walks *liveWalks
}

func (c *liveWalkConn) Write(ctx context.Context, msg []byte) error {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Cursor *string `json:"cursor"`
		} `json:"params"`
	}
	// Only a list request is decoded: the benchmarks count walks too.
	if bytes.Contains(msg, []byte(`/list"`)) && json.Unmarshal(msg, &m) == nil && m.ID != nil && strings.HasSuffix(m.Method, "/list") && m.Params.Cursor == nil {
		c.walks.mu.Lock()
		c.walks.n[m.Method]++
		c.walks.mu.Unlock()
	}
	return c.Conn.Write(ctx, msg)
}

// liveUntil waits until cond holds, looking again every millisecond, for
// as long as the test may run (testCtx): for a state that no callback
// announces (a syncer's count of triggers).
func liveUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	ctx := testCtx(t)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("%s: not by the test's deadline", what)
		}
	}
}
