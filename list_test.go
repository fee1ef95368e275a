package mcplive_test

// Tests of the sync rules (DESIGN.md "Sync rules", issue 3): one test per
// rule, each written to fail when the rule is broken. The realistic peer is
// the go-sdk server (internal/mcptest); the scripted server
// (internal/scripted) is used where a rule needs what go-sdk will not do:
// exact bursts, held or failing list calls, list_changed without the flag.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/listpos"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/mcplive/mcplive/internal/scripted"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	liveNotifyTools     = "notifications/tools/list_changed"
	liveNotifyPrompts   = "notifications/prompts/list_changed"
	liveNotifyResources = "notifications/resources/list_changed"
)

var livePageSizes = []int{1, 7}

// liveSDKKinds puts and removes items of each kind on a go-sdk server. put
// adds an item, or replaces the one with the same key (a new description
// makes it a changed item).
type liveSDKKind struct {
	name   string
	key    func(i int) string
	put    func(s *mcp.Server, key, desc string)
	remove func(s *mcp.Server, keys ...string)
}

var liveSDKKinds = []liveSDKKind{
	{
		name: "tools",
		key:  func(i int) string { return fmt.Sprintf("tool%02d", i) },
		put: func(s *mcp.Server, key, desc string) {
			tool := mcptest.Tool(key)
			tool.Description = desc
			s.AddTool(tool, mcptest.EchoHandler(key))
		},
		remove: func(s *mcp.Server, keys ...string) { s.RemoveTools(keys...) },
	},
	{
		name: "prompts",
		key:  func(i int) string { return fmt.Sprintf("prompt%02d", i) },
		put: func(s *mcp.Server, key, desc string) {
			p, h := mcptest.Prompt(key)
			p.Description = desc
			s.AddPrompt(p, h)
		},
		remove: func(s *mcp.Server, keys ...string) { s.RemovePrompts(keys...) },
	},
	{
		name: "resources",
		key:  func(i int) string { return fmt.Sprintf("file:///res/r%02d", i) },
		put: func(s *mcp.Server, key, desc string) {
			r, h := mcptest.Resource(key, func() string { return "text of " + key })
			r.Description = desc
			s.AddResource(r, h)
		},
		remove: func(s *mcp.Server, keys ...string) { s.RemoveResources(keys...) },
	},
	{
		name: "resourceTemplates",
		key:  func(i int) string { return fmt.Sprintf("file:///tpl/t%02d/{name}", i) },
		put: func(s *mcp.Server, key, desc string) {
			tpl, h := mcptest.Template(key)
			tpl.Description = desc
			s.AddResourceTemplate(tpl, h)
		},
		remove: func(s *mcp.Server, keys ...string) { s.RemoveResourceTemplates(keys...) },
	},
}

// liveSizes: how many items of each kind the go-sdk tests start with (not
// multiples of 7, so the last page is partial at page size 7).
var liveSizes = map[string]int{"tools": 23, "prompts": 9, "resources": 16, "resourceTemplates": 8}

func liveSDKSetup(s *mcp.Server) {
	for _, k := range liveSDKKinds {
		for i := 0; i < liveSizes[k.name]; i++ {
			k.put(s, k.key(i), "v1")
		}
	}
}

func liveInitialKeys(k liveSDKKind) []string {
	keys := make([]string, liveSizes[k.name])
	for i := range keys {
		keys[i] = k.key(i)
	}
	return keys
}

// Rule: every offered kind is fully synced (all pages) before Connect
// returns; a kind the server does not offer is "unsupported".
func TestLiveConnectSyncsEveryPageFirst(t *testing.T) {
	t.Parallel()
	for _, ps := range livePageSizes {
		t.Run(fmt.Sprintf("pageSize=%d", ps), func(t *testing.T) {
			t.Parallel()
			srv := mcptest.New(t, &mcptest.Options{PageSize: ps, Setup: liveSDKSetup})
			c := liveConnect(t, srv.URL, nil)
			if got := c.State(); got != mcplive.StateReady {
				t.Errorf("state after Connect: %s, want ready", got)
			}
			// No waiting: the lists must be complete when Connect returns.
			liveCheckSnap(t, c.Tools().Snapshot(), liveInitialKeys(liveSDKKinds[0]))
			liveCheckSnap(t, c.Prompts().Snapshot(), liveInitialKeys(liveSDKKinds[1]))
			liveCheckSnap(t, c.Resources().Snapshot(), liveInitialKeys(liveSDKKinds[2]))
			liveCheckSnap(t, c.ResourceTemplates().Snapshot(), liveInitialKeys(liveSDKKinds[3]))
		})
	}
	t.Run("unsupported", func(t *testing.T) {
		t.Parallel()
		srv := liveScripted(t, `{"tools":{}}`, 1)
		srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"), scripted.Tool("c"))
		c := liveConnect(t, srv.URL, nil)
		liveCheckSnap(t, c.Tools().Snapshot(), []string{"a", "b", "c"})
		if n := srv.Count("tools/list"); n != 3 {
			t.Errorf("tools/list requests: %d, want 3 (one per page)", n)
		}
		for _, s := range []mcplive.Status{c.Prompts().Snapshot().Status, c.Resources().Snapshot().Status, c.ResourceTemplates().Snapshot().Status} {
			if s != mcplive.StatusUnsupported {
				t.Errorf("status of a kind not offered: %s, want unsupported", s)
			}
		}
		if n := srv.Count("prompts/list") + srv.Count("resources/list") + srv.Count("resources/templates/list"); n != 0 {
			t.Errorf("%d list requests for kinds the server does not offer", n)
		}
	})
}

func liveCheckSnap[T mcplive.Item](t *testing.T, s mcplive.Snapshot[T], keys []string) {
	t.Helper()
	if s.Status != mcplive.StatusReady || s.Err != nil || s.Version != 1 || !liveSameKeys(liveKeys(s.Items), keys) {
		t.Errorf("snapshot: got %s, want {status ready, version 1, items %v}", liveDescribe(s), keys)
	}
}

// Rule: list_changed → re-list every page → one Update with the right diff
// (added, removed, changed, keyed by name/uri/uriTemplate) → version + 1 →
// every subscriber called once per update, in order. Against go-sdk, every
// kind changed at run time, at page sizes 1 and 7.
func TestLiveListChangedAppliesDiff(t *testing.T) {
	t.Parallel()
	for _, ps := range livePageSizes {
		t.Run(fmt.Sprintf("pageSize=%d", ps), func(t *testing.T) {
			t.Parallel()
			srv := mcptest.New(t, &mcptest.Options{PageSize: ps, Setup: liveSDKSetup})
			c := liveConnect(t, srv.URL, nil)
			liveRuntimeSteps(t, srv, liveSDKKinds[0], c.Tools())
			liveRuntimeSteps(t, srv, liveSDKKinds[1], c.Prompts())
			liveRuntimeSteps(t, srv, liveSDKKinds[2], c.Resources())
			liveRuntimeSteps(t, srv, liveSDKKinds[3], c.ResourceTemplates())
		})
	}
}

// liveRuntimeSteps adds, changes and removes items of one kind, one server
// change at a time, and checks that each gives exactly one update, with the
// exact diff, to each of two subscribers.
func liveRuntimeSteps[T mcplive.Item](t *testing.T, srv *mcptest.Server, k liveSDKKind, l *mcplive.List[T]) {
	t.Helper()
	// Two subscribers, each called once per update, in the order they
	// subscribed.
	var orderMu sync.Mutex
	var order []int
	t.Cleanup(l.Subscribe(func(mcplive.Update[T]) { orderMu.Lock(); order = append(order, 1); orderMu.Unlock() }))
	r1 := liveRecord(t, l)
	t.Cleanup(l.Subscribe(func(mcplive.Update[T]) { orderMu.Lock(); order = append(order, 2); orderMu.Unlock() }))
	r2 := liveRecord(t, l) // last: once it has an update, all four have
	keys := liveInitialKeys(k)
	v := l.Snapshot().Version
	added, changed := k.key(90), k.key(3)
	steps := []struct {
		name                    string
		do                      func()
		keys                    []string
		added, removed, changed []string
	}{
		{"add", func() { k.put(srv.S, added, "new") }, append(slices.Clone(keys), added), []string{added}, nil, nil},
		{"change", func() { k.put(srv.S, changed, "v2") }, append(slices.Clone(keys), added), nil, nil, []string{changed}},
		{"remove", func() { k.remove(srv.S, keys[0], added) }, keys[1:], nil, []string{keys[0], added}, nil},
	}
	for i, st := range steps {
		st.do()
		v++
		u := r1.at(t, i)
		liveCheckUpdate(t, u, v, st.keys, st.added, st.removed, st.changed)
		if st.name == "change" {
			if d := liveDesc(u.Changed[0]); d != "v2" {
				t.Errorf("%s: Changed holds the old version (description %q), want the new one", k.name, d)
			}
			if d := liveDescs(u.Items)[changed]; d != "v2" {
				t.Errorf("%s: Items hold the old version of the changed item (description %q)", k.name, d)
			}
		}
		if got := l.Snapshot(); got.Version != v {
			t.Errorf("%s: Snapshot().Version %d after update %d, want %d", k.name, got.Version, i, v)
		}
	}
	r2.at(t, len(steps)-1)
	a1, a2 := r1.all(), r2.all()
	if len(a1) != len(steps) || len(a2) != len(steps) {
		t.Fatalf("%s: %d and %d updates for %d changes:\n%s\n%s", k.name, len(a1), len(a2), len(steps), liveDescribeAll(a1), liveDescribeAll(a2))
	}
	orderMu.Lock()
	if want := []int{1, 2, 1, 2, 1, 2}; !slices.Equal(order, want) {
		t.Errorf("%s: subscribers called in the order %v, want %v", k.name, order, want)
	}
	orderMu.Unlock()
	for i := range a1 {
		if a1[i].Version != a2[i].Version || !slices.Equal(liveKeys(a1[i].Items), liveKeys(a2[i].Items)) {
			t.Errorf("%s: the two subscribers saw different updates #%d: %s vs %s", k.name, i,
				liveDescribe(a1[i].Snapshot), liveDescribe(a2[i].Snapshot))
		}
	}
}

// liveScriptedKinds ties each kind to its scripted item constructor and
// notification.
type liveScriptedKind struct {
	kind   string
	item   func(key string, desc ...string) json.RawMessage
	notify string
}

var liveScriptedKinds = []liveScriptedKind{
	{scripted.Tools, scripted.Tool, liveNotifyTools},
	{scripted.Prompts, scripted.Prompt, liveNotifyPrompts},
	{scripted.Resources, func(k string, d ...string) json.RawMessage { return scripted.Resource("file:///"+k, d...) }, liveNotifyResources},
	{scripted.ResourceTemplates, func(k string, d ...string) json.RawMessage { return scripted.Template("file:///"+k+"/{x}", d...) }, liveNotifyResources},
}

// Same rule, with several additions, removals and changes made atomically
// and announced once: one update carries the whole diff. Also a pure
// reordering (applied, version + 1, empty diff) and an emptied list.
func TestLiveListChangedOneUpdatePerChange(t *testing.T) {
	t.Parallel()
	for _, ps := range livePageSizes {
		t.Run(fmt.Sprintf("pageSize=%d", ps), func(t *testing.T) {
			t.Parallel()
			srv := liveScripted(t, "", ps)
			for _, k := range liveScriptedKinds {
				var items []json.RawMessage
				for i := 0; i < 10; i++ {
					items = append(items, k.item(fmt.Sprintf("k%d", i), "v1"))
				}
				srv.Set(k.kind, items...)
			}
			c := liveConnect(t, srv.URL, nil)
			liveScriptedSteps(t, c, srv, liveScriptedKinds[0], c.Tools())
			liveScriptedSteps(t, c, srv, liveScriptedKinds[1], c.Prompts())
			liveScriptedSteps(t, c, srv, liveScriptedKinds[2], c.Resources())
			liveScriptedSteps(t, c, srv, liveScriptedKinds[3], c.ResourceTemplates())
		})
	}
}

func liveScriptedSteps[T mcplive.Item](t *testing.T, c *mcplive.Client, srv *scripted.Server, k liveScriptedKind, l *mcplive.List[T]) {
	t.Helper()
	// A walk of this list may still run, started by the previous kind's
	// resources/list_changed; it could read the list half before, half
	// after the change below (offset cursors), and give an extra update.
	// Refresh waits until it is over.
	if err := c.Refresh(liveCtx(t), l.Kind()); err != nil {
		t.Fatal(err)
	}
	rec := liveRecord(t, l)
	key := func(n string) string { return scripted.Key(k.item(n)) }
	keys := func(ns ...string) []string {
		out := make([]string, len(ns))
		for i, n := range ns {
			out[i] = key(n)
		}
		return out
	}
	v := l.Snapshot().Version

	// Remove k2 and k5, change k3 and k7, add n1 n2 n3: one change.
	var next []json.RawMessage
	for i := 0; i < 10; i++ {
		switch i {
		case 2, 5:
		case 3, 7:
			next = append(next, k.item(fmt.Sprintf("k%d", i), "v2"))
		default:
			next = append(next, k.item(fmt.Sprintf("k%d", i), "v1"))
		}
	}
	srv.Set(k.kind, append(next, k.item("n1"), k.item("n2"), k.item("n3"))...)
	srv.Notify(k.notify, nil)
	u := rec.at(t, 0)
	v++
	want := keys("k0", "k1", "k3", "k4", "k6", "k7", "k8", "k9", "n1", "n2", "n3")
	liveCheckUpdate(t, u, v, want, keys("n1", "n2", "n3"), keys("k2", "k5"), keys("k3", "k7"))
	if got := liveKeys(u.Items); !slices.Equal(got, want) {
		t.Errorf("%s: items in server order: got %v, want %v", k.kind, got, want)
	}

	// A pure reordering: applied, version + 1, empty diff.
	srv.Update(k.kind, func(items []json.RawMessage) []json.RawMessage { slices.Reverse(items); return items })
	srv.Notify(k.notify, nil)
	u = rec.at(t, 1)
	v++
	slices.Reverse(want)
	liveCheckUpdate(t, u, v, want, nil, nil, nil)
	if got := liveKeys(u.Items); !slices.Equal(got, want) {
		t.Errorf("%s: reordered items: got %v, want %v", k.kind, got, want)
	}

	// Emptied.
	srv.Set(k.kind)
	srv.Notify(k.notify, nil)
	u = rec.at(t, 2)
	v++
	liveCheckUpdate(t, u, v, nil, nil, want, nil)
}

// Rule: single flight. A burst of notifications that arrives while a
// re-list is in flight schedules exactly one more re-list, and that one
// sees the change the first one missed.
func TestLiveBurstDuringRelistCostsOneMore(t *testing.T) {
	t.Parallel()
	const burst = 1000
	srv := liveScripted(t, "", 2)
	srv.Set(scripted.Tools, scripted.Tool("a", "v1"), scripted.Tool("b"), scripted.Tool("c"), scripted.Tool("d"), scripted.Tool("e"))
	routed := newLiveCounter()
	allRouted := make(chan struct{})
	held := make(chan struct{})
	var hold atomic.Bool
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "tools/list" && r.Cursor() == "" && hold.CompareAndSwap(true, false) {
			close(held)
			select { // answer the first page only once the whole burst has been handled
			case <-allRouted:
			case <-r.Done:
			}
		}
		return nil
	}
	o := liveOptions()
	o.OnNotification = func(method string, _ json.RawMessage) {
		if method == liveNotifyTools {
			routed.add()
		}
	}
	walks := liveCountWalks(t, srv.URL, o)
	c := liveConnect(t, srv.URL, o)
	walks0, lists0 := walks.of(mcplive.KindTools), srv.Count("tools/list")

	// The first notification starts a walk whose first page is taken now,
	// with a@v1, and held. Then a changes, and 999 more notifications come
	// while the walk is in flight.
	hold.Store(true)
	srv.Notify(liveNotifyTools, nil)
	liveRecv(t, held, "first page request")
	srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage {
		items[0] = scripted.Tool("a", "v2")
		return items
	})
	srv.Burst(liveNotifyTools, nil, burst-1)
	routed.await(t, burst, "notifications handled") // each one in turn: no budget for the whole burst
	close(allRouted)

	liveWait(t, c.Tools(), "a@v2", func(s mcplive.Snapshot[mcplive.Tool]) bool { return liveDescs(s.Items)["a"] == "v2" })
	// Refresh is a barrier: it returns after a walk that started after it.
	if err := c.Refresh(liveCtx(t), mcplive.KindTools); err != nil {
		t.Fatal(err)
	}
	if n := walks.of(mcplive.KindTools) - walks0; n != 3 {
		t.Errorf("walks: %d for a burst of %d during one walk, then a Refresh; want 3 (the walk, exactly one more, the Refresh)", n, burst)
	}
	if n := srv.Count("tools/list") - lists0; n != 3*3 {
		t.Errorf("tools/list requests: %d, want 9 (3 walks of 3 pages)", n)
	}
	if n := srv.MaxInFlight("tools/list"); n != 1 {
		t.Errorf("tools/list requests in flight at once: %d, want 1", n)
	}
}

// Rule: single flight, under a real burst: 1000 notifications back-to-back
// cost one walk at most after the last of them is handled, never two walks
// at once, and the list ends equal to the server's. How many walks the
// burst itself overlaps is up to the machine: on an idle one its 1000
// notifications are handled within a walk or two (at most two re-lists
// after the first, as TestLiveBurstDuringRelistCostsOneMore proves with the
// walk held); a busy one handles them more slowly, and each walk that ends
// meanwhile is followed by one more.
func TestLiveBurstCostsOneWalkAfterIt(t *testing.T) {
	t.Parallel()
	const burst = 1000
	srv := liveScripted(t, "", 2)
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"), scripted.Tool("c"))
	routed := newLiveCounter()
	var connected atomic.Bool
	var walksAtLast atomic.Uint64 // walks written when the last notification had been handled
	o := liveOptions()
	walks := liveCountWalks(t, srv.URL, o)
	o.OnNotification = func(method string, _ json.RawMessage) { // after the client's own handling
		if connected.Load() && method == liveNotifyTools {
			walksAtLast.Store(walks.of(mcplive.KindTools))
			routed.add()
		}
	}
	c := liveConnect(t, srv.URL, o)
	connected.Store(true)
	walks0 := walks.of(mcplive.KindTools)

	srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage { return append(items, scripted.Tool("z")) })
	srv.Burst(liveNotifyTools, nil, burst)
	routed.await(t, burst, "notifications handled")
	liveWait(t, c.Tools(), "with z", liveHasKeys[mcplive.Tool]([]string{"a", "b", "c", "z"}))
	// Every trigger has happened; a walk may still be running: its first
	// page is written, its count is in. Walks are counted when their first
	// page is written: one that had started when the last notification was
	// handled may have written it since, so 2 may be counted after it (that
	// walk, then the one more the notifications asked for during it).
	n, last := walks.of(mcplive.KindTools)-walks0, walksAtLast.Load()-walks0
	if n > last+2 {
		t.Errorf("walks: %d for a burst of %d, %d of them written after its last notification was handled; want at most 2 (the walk under way, one more)", n, burst, n-last)
	}
	t.Logf("%d walks for a burst of %d (%d written by the time its last notification was handled)", n, burst, last)
	if n := srv.MaxInFlight("tools/list"); n != 1 {
		t.Errorf("tools/list requests in flight at once: %d, want 1", n)
	}
}

// Rule: an older result never overwrites a newer one. The server answers
// list calls after random delays and every version of the list is newer
// than the one before: the versions a subscriber sees must never go back.
func TestLiveOlderResultNeverOverwritesNewer(t *testing.T) {
	t.Parallel()
	const rounds = 200
	srv := liveScripted(t, "", 0)
	srv.Set(scripted.Tools, scripted.Tool("gen-000"))
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "tools/list" {
			// The server's own slowness, not a synchronization of the test.
			select {
			case <-time.After(time.Duration(rand.IntN(500)) * time.Microsecond):
			case <-r.Done:
			}
		}
		return nil
	}
	c := liveConnect(t, srv.URL, nil)
	rec := liveRecord(t, c.Tools())
	for i := 1; i <= rounds; i++ {
		srv.Set(scripted.Tools, scripted.Tool(fmt.Sprintf("gen-%03d", i)))
		srv.Notify(liveNotifyTools, nil)
		if i%50 == 0 {
			_ = c.Refresh(liveCtx(t), mcplive.KindTools) // refreshes join the same single flight
		}
	}
	final := fmt.Sprintf("gen-%03d", rounds)
	liveWait(t, c.Tools(), "final", liveHasKeys[mcplive.Tool]([]string{final}))
	last := ""
	for _, u := range rec.all() {
		k := liveKeys(u.Items)
		if len(k) != 1 || k[0] < last {
			t.Fatalf("an older list replaced a newer one: %v after %q; updates %s", k, last, liveDescribeAll(rec.all()))
		}
		last = k[0]
	}
	if n := srv.MaxInFlight("tools/list"); n != 1 {
		t.Errorf("tools/list requests in flight at once: %d, want 1", n)
	}
}

// Rule: resources/list_changed re-lists resources and resource templates.
func TestLiveResourcesListChangedRelistsTemplates(t *testing.T) {
	t.Parallel()
	for _, ps := range livePageSizes {
		t.Run(fmt.Sprintf("pageSize=%d", ps), func(t *testing.T) {
			t.Parallel()
			srv := mcptest.New(t, &mcptest.Options{PageSize: ps, Setup: liveSDKSetup})
			c := liveConnect(t, srv.URL, nil)
			tk, rk := liveSDKKinds[3], liveSDKKinds[2]
			// A template alone changes: go-sdk announces it with
			// resources/list_changed, the only notification there is.
			tk.put(srv.S, tk.key(50), "new")
			liveWait(t, c.ResourceTemplates(), "with the new template",
				liveHasKeys[mcplive.ResourceTemplate](append(liveInitialKeys(tk), tk.key(50))))
			tk.remove(srv.S, tk.key(0))
			liveWait(t, c.ResourceTemplates(), "without template 0",
				liveHasKeys[mcplive.ResourceTemplate](append(liveInitialKeys(tk)[1:], tk.key(50))))
			if v := c.Resources().Snapshot().Version; v != 1 {
				t.Errorf("resources version %d: the resources did not change", v)
			}
			rk.remove(srv.S, rk.key(1))
			liveWait(t, c.Resources(), "without resource 1",
				liveHasKeys[mcplive.Resource](slices.Delete(liveInitialKeys(rk), 1, 2)))
		})
	}
	t.Run("both walked", func(t *testing.T) {
		t.Parallel()
		srv := liveScripted(t, "", 1)
		srv.Set(scripted.Resources, scripted.Resource("file:///a"), scripted.Resource("file:///b"))
		srv.Set(scripted.ResourceTemplates, scripted.Template("file:///t/{x}"))
		o := liveOptions()
		walks := liveCountWalks(t, srv.URL, o)
		c := liveConnect(t, srv.URL, o)
		r0, t0 := walks.of(mcplive.KindResources), walks.of(mcplive.KindResourceTemplates)
		// Both lists change, so that each walk is seen to have applied
		// before the Refresh (which would otherwise share a walk the
		// notification asked for and that had not started yet).
		srv.Set(scripted.Resources, scripted.Resource("file:///a"), scripted.Resource("file:///b"), scripted.Resource("file:///c"))
		srv.Set(scripted.ResourceTemplates, scripted.Template("file:///t/{x}"), scripted.Template("file:///u/{x}"))
		srv.Notify(liveNotifyResources, nil)
		liveWait(t, c.ResourceTemplates(), "two templates", liveHasKeys[mcplive.ResourceTemplate]([]string{"file:///t/{x}", "file:///u/{x}"}))
		liveWait(t, c.Resources(), "three resources", liveHasKeys[mcplive.Resource]([]string{"file:///a", "file:///b", "file:///c"}))
		if err := c.Refresh(liveCtx(t), mcplive.KindResources); err != nil {
			t.Fatal(err)
		}
		if r, tp := walks.of(mcplive.KindResources)-r0, walks.of(mcplive.KindResourceTemplates)-t0; r != 2 || tp != 1 {
			t.Errorf("walks after one resources/list_changed and a Refresh of resources: resources %d (want 2), templates %d (want 1)", r, tp)
		}
	})
}

// Rule: list_changed is honoured for an offered kind even when the server
// did not declare listChanged.
func TestLiveListChangedWithoutFlag(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, `{"tools":{},"prompts":{},"resources":{}}`, 1)
	for _, k := range liveScriptedKinds {
		srv.Set(k.kind, k.item("k1"))
	}
	c := liveConnect(t, srv.URL, nil)
	for _, k := range liveScriptedKinds {
		srv.Set(k.kind, k.item("k1"), k.item("k2"))
		srv.Notify(k.notify, nil)
	}
	key := func(k liveScriptedKind, n string) string { return scripted.Key(k.item(n)) }
	two := func(k liveScriptedKind) []string { return []string{key(k, "k1"), key(k, "k2")} }
	liveWait(t, c.Tools(), "two tools", liveHasKeys[mcplive.Tool](two(liveScriptedKinds[0])))
	liveWait(t, c.Prompts(), "two prompts", liveHasKeys[mcplive.Prompt](two(liveScriptedKinds[1])))
	liveWait(t, c.Resources(), "two resources", liveHasKeys[mcplive.Resource](two(liveScriptedKinds[2])))
	liveWait(t, c.ResourceTemplates(), "two templates", liveHasKeys[mcplive.ResourceTemplate](two(liveScriptedKinds[3])))
}

// Rule: a list_changed for a kind the server does not offer is logged and
// ignored: no request, no update, the list stays "unsupported".
func TestLiveListChangedForKindNotOffered(t *testing.T) {
	t.Parallel()
	onlyIn(t, "legacy")
	srv := liveScripted(t, `{"tools":{"listChanged":true}}`, 0)
	srv.Set(scripted.Tools, scripted.Tool("a"))
	var logs liveLog
	o := liveOptions()
	o.Logger = logs.Logger()
	c := liveConnect(t, srv.URL, o)
	pr, rr, tr := liveRecord(t, c.Prompts()), liveRecord(t, c.Resources()), liveRecord(t, c.ResourceTemplates())
	srv.Notify(liveNotifyPrompts, nil)
	srv.Notify(liveNotifyResources, nil)
	// Notifications are handled in order: once the tools change is in,
	// the two before it have been handled.
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"))
	srv.Notify(liveNotifyTools, nil)
	liveWait(t, c.Tools(), "two tools", liveHasKeys[mcplive.Tool]([]string{"a", "b"}))
	// And one more change, so that any update queued for the other lists
	// before it has been delivered.
	srv.Set(scripted.Tools, scripted.Tool("a"))
	srv.Notify(liveNotifyTools, nil)
	liveWait(t, c.Tools(), "one tool", liveHasKeys[mcplive.Tool]([]string{"a"}))

	for _, m := range []string{"prompts/list", "resources/list", "resources/templates/list"} {
		if n := srv.Count(m); n != 0 {
			t.Errorf("%d %s requests to a server that does not offer it", n, m)
		}
	}
	for name, got := range map[string]struct {
		s mcplive.Status
		e error
		n int
	}{
		"prompts":           {c.Prompts().Snapshot().Status, c.Prompts().Snapshot().Err, len(pr.all())},
		"resources":         {c.Resources().Snapshot().Status, c.Resources().Snapshot().Err, len(rr.all())},
		"resourceTemplates": {c.ResourceTemplates().Snapshot().Status, c.ResourceTemplates().Snapshot().Err, len(tr.all())},
	} {
		if got.s != mcplive.StatusUnsupported || got.e != nil || got.n != 0 {
			t.Errorf("%s: status %s, err %v, %d updates; want unsupported, nil, 0", name, got.s, got.e, got.n)
		}
	}
	for _, m := range []string{liveNotifyPrompts, liveNotifyResources} {
		if len(logs.find(m)) != 1 {
			t.Errorf("want one log record about the ignored %s; log: %v", m, logs.find())
		}
	}
}

// Rule: a re-list reads each page while the next one is requested; an item
// that fails on one page fails the walk with its own error, once the next
// page has been asked for and before any page after it is, and applies
// nothing of it.
func TestLiveBadItemEndsWalkAtNextPage(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 1)
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"), scripted.Tool("c"), scripted.Tool("d"))
	c := liveConnect(t, srv.URL, nil)
	n0 := srv.Count("tools/list")
	// Page 2 of 4 holds a tool without a name.
	srv.Set(scripted.Tools, scripted.Tool("a"), json.RawMessage(`{"description":"no name","inputSchema":{"type":"object"}}`), scripted.Tool("c"), scripted.Tool("d"))
	err := c.Refresh(liveCtx(t), mcplive.KindTools)
	if !errors.Is(err, mcplive.ErrProtocol) || !strings.Contains(err.Error(), "item 1 has no name") {
		t.Fatalf("Refresh over a nameless tool on page 2: %v; want ErrProtocol naming item 1", err)
	}
	if n := srv.Count("tools/list") - n0; n != 3 {
		t.Errorf("tools/list requests: %d, want 3 (page 3 asked for while page 2 was read; page 4 never)", n)
	}
	if s := c.Tools().Snapshot(); s.Status != mcplive.StatusError || !slices.Equal(liveKeys(s.Items), []string{"a", "b", "c", "d"}) {
		t.Errorf("after the failed walk: %s; want the items before it, status error", liveDescribe(s))
	}
}

// Rule: a failed re-list keeps the last items and sets status "error" with
// the error; the next notification, or a Refresh, retries and recovers. A
// walk that fails on a later page applies nothing of it.
func TestLiveFailedRelistKeepsItems(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 1)
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"), scripted.Tool("c"))
	var failing atomic.Bool
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "tools/list" && r.Cursor() != "" && failing.Load() {
			return errors.New("boom on a later page")
		}
		return nil
	}
	c := liveConnect(t, srv.URL, nil)
	rec := liveRecord(t, c.Tools())
	abc := []string{"a", "b", "c"}

	// A notification whose re-list fails.
	failing.Store(true)
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"), scripted.Tool("c"), scripted.Tool("d"))
	srv.Notify(liveNotifyTools, nil)
	u := rec.at(t, 0)
	liveCheckFailed(t, u, 1, abc)

	// The next notification retries and recovers.
	failing.Store(false)
	srv.Notify(liveNotifyTools, nil)
	u = rec.at(t, 1)
	liveCheckUpdate(t, u, 2, []string{"a", "b", "c", "d"}, []string{"d"}, nil, nil)

	// A Refresh that fails reports the error and keeps the items...
	failing.Store(true)
	srv.Set(scripted.Tools, scripted.Tool("b"), scripted.Tool("c"), scripted.Tool("d"))
	if err := c.Refresh(liveCtx(t), mcplive.KindTools); err == nil {
		t.Errorf("Refresh of a failing list: nil error")
	}
	liveCheckFailed(t, rec.at(t, 2), 2, []string{"a", "b", "c", "d"})
	// ...and the next Refresh recovers.
	failing.Store(false)
	if err := c.Refresh(liveCtx(t), mcplive.KindTools); err != nil {
		t.Errorf("Refresh after the server recovered: %v", err)
	}
	liveCheckUpdate(t, rec.at(t, 3), 3, []string{"b", "c", "d"}, nil, []string{"a"}, nil)
	if s := c.Tools().Snapshot(); s.Status != mcplive.StatusReady || s.Err != nil {
		t.Errorf("after recovery: %s", liveDescribe(s))
	}
}

func liveCheckFailed[T mcplive.Item](t *testing.T, u mcplive.Update[T], version uint64, keys []string) {
	t.Helper()
	var rpcErr *mcplive.RPCError
	if u.Status != mcplive.StatusError || !errors.As(u.Err, &rpcErr) || !strings.Contains(u.Err.Error(), "boom") {
		t.Errorf("failed re-list: status %s, err %v; want error with the server's error", u.Status, u.Err)
	}
	if u.Version != version || !slices.Equal(liveKeys(u.Items), keys) || len(u.Added)+len(u.Removed)+len(u.Changed) != 0 {
		t.Errorf("failed re-list changed the items: %s, want version %d items %v", liveDescribeAll([]mcplive.Update[T]{u}), version, keys)
	}
}

// Rule: a re-list that returns the same content applies nothing: no
// version bump, no subscriber call.
func TestLiveSameContentNoUpdate(t *testing.T) {
	t.Parallel()
	for _, ps := range livePageSizes {
		t.Run(fmt.Sprintf("pageSize=%d", ps), func(t *testing.T) {
			t.Parallel()
			srv := liveScripted(t, "", ps)
			for _, k := range liveScriptedKinds {
				var items []json.RawMessage
				for i := 0; i < 9; i++ {
					items = append(items, k.item(fmt.Sprintf("k%d", i)))
				}
				srv.Set(k.kind, items...)
			}
			routed := make(chan string, 3)
			o := liveOptions()
			o.OnNotification = func(m string, _ json.RawMessage) { // after the client's own handling
				if !strings.HasSuffix(m, "/list_changed") {
					return // a listen stream's acknowledgment (2026-07-28)
				}
				select {
				case routed <- m:
				default:
				}
			}
			walks := liveCountWalks(t, srv.URL, o)
			c := liveConnect(t, srv.URL, o)
			tr, pr, rr, mr := liveRecord(t, c.Tools()), liveRecord(t, c.Prompts()), liveRecord(t, c.Resources()), liveRecord(t, c.ResourceTemplates())
			w0 := walks.of(mcplive.KindTools)
			for _, m := range []string{liveNotifyTools, liveNotifyPrompts, liveNotifyResources} {
				srv.Notify(m, nil)
				liveRecv(t, routed, m)
			}
			// Refresh returns after a walk that started after it. The
			// notification's walk may not have started when the first one
			// comes (the two then share a walk); the second walks again.
			for i := 0; i < 2; i++ {
				if err := c.Refresh(liveCtx(t), ""); err != nil {
					t.Fatal(err)
				}
			}
			if w := walks.of(mcplive.KindTools) - w0; w < 2 || w > 3 {
				t.Fatalf("tools walks: %d, want 2 or 3 (the notification's, shared or not with the first Refresh, and the Refreshes')", w)
			}
			// Now a real change of each list: it must be the first update.
			for _, k := range liveScriptedKinds {
				srv.Update(k.kind, func(items []json.RawMessage) []json.RawMessage { return append(items, k.item("new")) })
				srv.Notify(k.notify, nil)
			}
			liveFirstIsNew(t, tr, liveScriptedKinds[0])
			liveFirstIsNew(t, pr, liveScriptedKinds[1])
			liveFirstIsNew(t, rr, liveScriptedKinds[2])
			liveFirstIsNew(t, mr, liveScriptedKinds[3])
		})
	}
}

func liveFirstIsNew[T mcplive.Item](t *testing.T, rec *liveRec[T], k liveScriptedKind) {
	t.Helper()
	u := rec.at(t, 0)
	key := scripted.Key(k.item("new"))
	if u.Version != 2 || len(u.Added) != 1 || u.Added[0].Key() != key {
		t.Errorf("%s: first update after re-lists of unchanged content: %s; want the addition of %s at version 2",
			k.kind, liveDescribeAll(rec.all()), key)
	}
}

// Rule: Refresh(kind) goes through the same single-flight path: it never
// runs a walk of its own beside one in flight, it joins the queue, and it
// returns only after a walk that started after it was called.
func TestLiveRefreshSingleFlight(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 2)
	srv.Set(scripted.Tools, scripted.Tool("a", "v1"), scripted.Tool("b", "v1"), scripted.Tool("c"), scripted.Tool("d"), scripted.Tool("e"))
	var hold atomic.Bool
	held, release := make(chan struct{}), make(chan struct{})
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "tools/list" && r.Cursor() == "" && hold.CompareAndSwap(true, false) {
			close(held)
			select {
			case <-release:
			case <-r.Done:
			}
		}
		return nil
	}
	o := liveOptions()
	walks := liveCountWalks(t, srv.URL, o)
	c := liveConnect(t, srv.URL, o)
	w0, n0 := walks.of(mcplive.KindTools), srv.Count("tools/list")

	// A change the server does not announce: Refresh must see it.
	srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage { items[0] = scripted.Tool("a", "v2"); return items })
	if err := c.Refresh(liveCtx(t), mcplive.KindTools); err != nil {
		t.Fatal(err)
	}
	if d := liveDescs(c.Tools().Snapshot().Items)["a"]; d != "v2" {
		t.Errorf("after Refresh: a@%s, want a@v2", d)
	}

	// Refreshes while a walk is held: they wait for it, then share one walk
	// that sees what changed meanwhile.
	hold.Store(true)
	srv.Notify(liveNotifyTools, nil)
	liveRecv(t, held, "held walk")
	g0 := mcplive.RefreshTriggers(c, mcplive.KindTools)
	const n = 8
	var wg sync.WaitGroup
	started := make(chan struct{}, n)
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started <- struct{}{}
			errs <- c.Refresh(context.Background(), mcplive.KindTools)
		}()
	}
	for i := 0; i < n; i++ {
		liveRecv(t, started, "refresh started")
	}
	// Every Refresh has asked the syncer (a goroutine may be late between
	// "started" and its call on a loaded machine, and a call that comes
	// once the next walk has begun rightly asks for one more).
	liveUntil(t, "the 8 Refreshes asked the syncer", func() bool { return mcplive.RefreshTriggers(c, mcplive.KindTools) >= g0+n })
	srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage { items[1] = scripted.Tool("b", "v2"); return items })
	close(release)
	wg.Wait()
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Errorf("Refresh: %v", err)
		}
	}
	if d := liveDescs(c.Tools().Snapshot().Items)["b"]; d != "v2" {
		t.Errorf("after the Refreshes returned: b@%s, want b@v2", d)
	}
	if m := srv.MaxInFlight("tools/list"); m != 1 {
		t.Errorf("tools/list requests in flight at once: %d, want 1", m)
	}
	// Every request the server got belongs to a walk of 3 pages, and the
	// Refreshes shared walks: the first one's, the held one, the one the
	// 8 Refreshes share, and one more for those whose call came only once
	// that walk had started.
	if w, reqs := walks.of(mcplive.KindTools)-w0, srv.Count("tools/list")-n0; w < 3 || w > 4 || uint64(reqs) != 3*w {
		t.Errorf("%d tools/list requests in %d walks, want 3 or 4 walks of 3 pages: something lists outside the single flight", reqs, w)
	}

	// A kind the server does not offer, and a kind that does not exist.
	srv2 := liveScripted(t, `{"tools":{}}`, 0)
	c2 := liveConnect(t, srv2.URL, nil)
	if err := c2.Refresh(liveCtx(t), mcplive.KindPrompts); !errors.Is(err, mcplive.ErrUnsupported) {
		t.Errorf("Refresh of a kind not offered: %v, want ErrUnsupported", err)
	}
	if err := c2.Refresh(liveCtx(t), mcplive.Kind("widgets")); err == nil {
		t.Errorf("Refresh of an unknown kind: nil error")
	}
}

// Subscribe delivers the updates applied after it, never one applied
// before (which the subscriber's Snapshot already holds: applying its diff
// again would duplicate items). Likewise WatchState.
func TestLiveSubscribeGetsOnlyLaterUpdates(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 0)
	srv.Set(scripted.Tools, scripted.Tool("a"))
	srv.Set(scripted.Prompts, scripted.Prompt("p"))
	c := liveConnect(t, srv.URL, nil)

	// Hold the event goroutine in a tools subscriber, so that the prompts
	// update below is applied but not yet delivered.
	entered, unblock := make(chan struct{}), make(chan struct{})
	release := sync.OnceFunc(func() { close(unblock) })
	defer release() // on failure too: Close waits for the event goroutine
	var once sync.Once
	stop := c.Tools().Subscribe(func(mcplive.Update[mcplive.Tool]) {
		once.Do(func() { close(entered); <-unblock })
	})
	defer stop()
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"))
	srv.Notify(liveNotifyTools, nil)
	liveRecv(t, entered, "tools update delivered")

	srv.Set(scripted.Prompts, scripted.Prompt("p"), scripted.Prompt("q"))
	if err := c.Refresh(liveCtx(t), mcplive.KindPrompts); err != nil {
		t.Fatal(err)
	}
	snap := c.Prompts().Snapshot()
	if snap.Version != 2 {
		t.Fatalf("prompts after Refresh: %s, want version 2", liveDescribe(snap))
	}
	// And a reconnect: its state changes are queued too.
	srv.DropConns()
	for {
		err := c.Ping(liveCtx(t)) // waits while reconnecting
		if err == nil {
			break
		}
		if !errors.Is(err, mcplive.ErrClosed) { // the dead session, before the drop was noticed
			t.Fatal(err)
		}
	}
	rec := liveRecord(t, c.Prompts()) // subscribes after version 2 was applied
	states := liveWatchStates(t, c)
	release()

	srv.Set(scripted.Prompts, scripted.Prompt("q"))
	srv.Notify(liveNotifyPrompts, nil)
	u := rec.at(t, 0)
	if u.Version != 3 || len(u.Removed) != 1 || u.Removed[0].Key() != "p" {
		t.Errorf("first update after subscribing at version 2: %s; want version 3 removing p", liveDescribeAll(rec.all()))
	}
	c.Close()
	states.await(t, mcplive.StateClosed) // not the "ready" of the connect
}

// The diff of every update, for random lists: added, removed and changed
// exactly as computed here from the two lists, items in the server's
// order, version + 1 per applied change (a pure reordering included).
func TestLiveDiffRandomLists(t *testing.T) {
	t.Parallel()
	for _, ps := range livePageSizes {
		t.Run(fmt.Sprintf("pageSize=%d", ps), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(ps), 42))
			srv := liveScripted(t, "", ps)
			c := liveConnect(t, srv.URL, nil)
			rec := liveRecord(t, c.Tools())
			prev := map[string]string{}
			var prevOrder []string
			v := c.Tools().Snapshot().Version
			for round := 0; round < 60; round++ {
				cur := map[string]string{}
				var order []string
				for _, i := range rng.Perm(30)[:rng.IntN(20)] {
					k := fmt.Sprintf("t%02d", i)
					cur[k] = fmt.Sprintf("d%d", rng.IntN(3))
					order = append(order, k)
				}
				same := len(cur) == len(prev)
				for k, d := range cur {
					same = same && prev[k] == d
				}
				if same && slices.Equal(order, prevOrder) {
					continue // no change: nothing to expect
				}
				var added, removed, changed []string
				for k, d := range cur {
					if old, ok := prev[k]; !ok {
						added = append(added, k)
					} else if old != d {
						changed = append(changed, k)
					}
				}
				for k := range prev {
					if _, ok := cur[k]; !ok {
						removed = append(removed, k)
					}
				}
				items := make([]json.RawMessage, len(order))
				for i, k := range order {
					items[i] = scripted.Tool(k, cur[k])
				}
				next := len(rec.all())
				srv.Set(scripted.Tools, items...)
				srv.Notify(liveNotifyTools, nil)
				v++
				u := rec.at(t, next)
				liveCheckUpdate(t, u, v, order, added, removed, changed)
				if !slices.Equal(liveKeys(u.Items), order) {
					t.Fatalf("round %d: items %v, want the server's order %v", round, liveKeys(u.Items), order)
				}
				for _, it := range u.Items {
					if liveDesc(it) != cur[it.Key()] {
						t.Fatalf("round %d: %s has %q, want %q", round, it.Key(), liveDesc(it), cur[it.Key()])
					}
				}
				prev, prevOrder = cur, order
			}
		})
	}
}

// The positions a re-list hands on (listpos, which the wasm binding's
// positional messages are read from) give the new list from the last one
// and the update's Added and Changed, and RemovedAt its Removed: a change,
// an addition and a removal over a real walk of several pages, with both
// item forms.
func TestLivePositionsOfAWalk(t *testing.T) {
	t.Parallel()
	for _, raw := range []bool{false, true} {
		t.Run(fmt.Sprint("raw=", raw), func(t *testing.T) {
			t.Parallel()
			srv := liveScripted(t, `{"tools":{"listChanged":true}}`, 3)
			var tools []json.RawMessage
			for i := range 10 {
				tools = append(tools, scripted.Tool(fmt.Sprint("t", i)))
			}
			srv.Set(scripted.Tools, tools...)
			o := liveOptions()
			o.RawItems = raw
			c := liveConnect(t, srv.URL, o)
			before := c.Tools().View()
			ups := make(chan mcplive.ViewUpdate, 4)
			defer c.Tools().WatchView(func(u mcplive.ViewUpdate) { ups <- u })()
			srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage {
				items[4] = scripted.Tool("t4", "changed")
				items = slices.Delete(items, 7, 8)
				return append(items[:2], append([]json.RawMessage{scripted.Tool("new")}, items[2:]...)...)
			})
			srv.Notify(liveNotifyTools, nil)
			var u mcplive.ViewUpdate
			select {
			case u = <-ups:
			case <-time.After(time.Minute):
				t.Fatal("no update")
			}
			p, ok := listpos.Of(&u)
			if !ok || u.Version != before.Version+1 {
				t.Fatalf("update v%d (before v%d): positions known %v", u.Version, before.Version, ok)
			}
			if want := []int{0, 2, -1, 1, 2, 2, -1, 1, 5, 2, 8, 2}; !slices.Equal(p.Runs, want) {
				t.Errorf("runs %v, want %v", p.Runs, want)
			}
			if !slices.Equal(p.RemovedAt, []int{7}) || u.Removed.Key(0) != "t7" {
				t.Errorf("removedAt %v, removed %v", p.RemovedAt, u.Removed)
			}
			same := func(a, b mcplive.RawMessage) bool { return len(a) == len(b) && &a[0] == &b[0] }
			i, a, ch := 0, 0, 0
			for r := 0; r < len(p.Runs); r += 2 {
				x, n := p.Runs[r], p.Runs[r+1]
				for k := range n {
					got := u.Items.RawJSON(i)
					switch {
					case x >= 0 && same(before.Items.RawJSON(x+k), got):
					case x < 0 && a < u.Added.Len() && same(u.Added.RawJSON(a), got):
						a++
					case x < 0 && ch < u.Changed.Len() && same(u.Changed.RawJSON(ch), got):
						ch++
					default:
						t.Fatalf("item %d (%s) is not what runs %v say", i, u.Items.Key(i), p.Runs)
					}
					i++
				}
			}
			if i != u.Items.Len() || a != u.Added.Len() || ch != u.Changed.Len() {
				t.Errorf("runs %v give %d items (%d added, %d changed) of %d (%d, %d)", p.Runs, i, a, ch, u.Items.Len(), u.Added.Len(), u.Changed.Len())
			}
		})
	}
}
