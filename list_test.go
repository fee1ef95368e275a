package mcplive_test

// Tests of the sync rules (DESIGN.md "Sync rules", issue 3): one test per
// rule, each written to fail when the rule is broken. The realistic peer is
// the go-sdk server (internal/mcptest); the scripted server
// (internal/scripted) is used where a rule needs what go-sdk will not do:
// exact bursts, held or failing list calls, list_changed without the flag.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/mcplive/mcplive"
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

// Every update says why its walk ran; a notification's carries the time
// from the notification's arrival to the update.
func TestUpdateCause(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 2)
	srv.Set(scripted.Tools, scripted.Tool("a"))
	c := liveConnect(t, srv.URL, nil)
	if s := c.Tools().Snapshot(); s.Version != 1 || s.Status != mcplive.StatusReady {
		t.Fatalf("after Connect: %s", liveDescribe(s))
	}
	rec := liveRecord(t, c.Tools())

	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"))
	srv.Notify("notifications/tools/list_changed", nil)
	u := rec.at(t, 0)
	if u.Cause != mcplive.CauseNotification || u.Latency <= 0 || u.Version != 2 {
		t.Errorf("after a notification: cause %q, latency %v, version %d; want notification, > 0, 2", u.Cause, u.Latency, u.Version)
	}

	srv.Set(scripted.Tools, scripted.Tool("b"))
	assertNoErr(t, c.Refresh(testCtx(t), mcplive.KindTools), "Refresh")
	u = rec.at(t, 1)
	if u.Cause != mcplive.CauseRefresh || u.Latency != 0 || u.Version != 3 {
		t.Errorf("after Refresh: cause %q, latency %v, version %d; want refresh, 0, 3", u.Cause, u.Latency, u.Version)
	}

	srv.Set(scripted.Tools, scripted.Tool("c"))
	srv.DropConns()
	snap := liveWait(t, c.Tools(), "the list after the reconnect", liveHasKeys[mcplive.Tool]([]string{"c"}))
	ups := rec.all()
	last := ups[len(ups)-1]
	if last.Version != snap.Version || last.Cause != mcplive.CauseReconnect {
		t.Errorf("after a reconnect: cause %q of version %d; want reconnect", last.Cause, last.Version)
	}
}
