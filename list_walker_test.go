package mcplive_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/listpos"
	"github.com/mcplive/mcplive/internal/scripted"
)

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

// Lists kept from an earlier run (Options.Seeds, the JS catalog cache) and
// the revision a server spoke last time (Options.RevisionHint).

// A fresh seed stands for the first walk of its kind; a stale one, and a
// kind without a seed, are walked; a notification walks the seeded kind.
func TestSeedFreshListNotWalked(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{TTLMs: 60000, CacheScope: "public"}, 0)
	o := modernOptions()
	now := time.Now()
	o.Seeds = []mcplive.Seed{
		{Kind: mcplive.KindTools, Items: json.RawMessage(`[{"name":"a","inputSchema":{"type":"object"}},{"name":"kept","inputSchema":{"type":"object"}}]`), TTL: time.Minute, Scope: "public", Received: now.Add(-time.Second)},
		{Kind: mcplive.KindPrompts, Items: json.RawMessage(`[{"name":"old"}]`), TTL: time.Second, Scope: "public", Received: now.Add(-time.Hour)},
	}
	c := liveConnect(t, srv.URL, o)
	assertEqual(t, srv.Count("tools/list"), 0, "tools/list requests (a fresh seed)")
	assertEqual(t, srv.Count("prompts/list"), 1, "prompts/list requests (a stale seed)")
	s := c.Tools().Snapshot()
	if !liveSameKeys(liveKeys(s.Items), []string{"a", "kept"}) || s.Status != mcplive.StatusReady {
		t.Fatalf("tools from the seed: %s", liveDescribe(s))
	}
	if s.Cache == nil || s.Cache.TTL != time.Minute || s.Cache.Received.UnixMilli() != now.Add(-time.Second).UnixMilli() {
		t.Errorf("cache hint of the seeded list: %+v", s.Cache)
	}
	if p := c.Prompts().Snapshot(); !liveSameKeys(liveKeys(p.Items), []string{"p"}) {
		t.Fatalf("prompts (walked): %s", liveDescribe(p))
	}
	srv.Notify("notifications/tools/list_changed", nil)
	liveWait(t, c.Tools(), "the walked tools after a notification", liveHasKeys[mcplive.Tool]([]string{"a", "b"}))
	assertEqual(t, srv.Count("tools/list"), 1, "tools/list requests after the notification")
}

// A re-opened listen stream invalidates a seeded list at once: it is walked.
func TestSeedInvalidatedByANewListenStream(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{TTLMs: 60000, CacheScope: "public"}, 0)
	o := modernOptions()
	o.Seeds = []mcplive.Seed{{Kind: mcplive.KindTools, Items: json.RawMessage(`[{"name":"kept","inputSchema":{"type":"object"}}]`), TTL: time.Minute, Scope: "public", Received: time.Now()}}
	c := liveConnect(t, srv.URL, o)
	assertEqual(t, srv.Count("tools/list"), 0, "tools/list requests (a fresh seed)")
	srv.EndListens(true)
	liveWait(t, c.Tools(), "the walked tools after a new listen stream", liveHasKeys[mcplive.Tool]([]string{"a", "b"}))
}

// A seed that does not read is walked, with a warning; a seed with a TTL
// of 0 is never fresh.
func TestSeedBadOrZeroTTLWalked(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{TTLMs: 60000, CacheScope: "public"}, 0)
	o := modernOptions()
	o.Seeds = []mcplive.Seed{
		{Kind: mcplive.KindTools, Items: json.RawMessage(`[{"name":"a"},{"nam`), TTL: time.Minute, Received: time.Now()},
		{Kind: mcplive.KindPrompts, Items: json.RawMessage(`[{"name":"old"}]`), TTL: 0, Received: time.Now()},
	}
	c := liveConnect(t, srv.URL, o)
	assertEqual(t, srv.Count("tools/list"), 1, "tools/list requests (a bad seed)")
	assertEqual(t, srv.Count("prompts/list"), 1, "prompts/list requests (a TTL of 0)")
	if s := c.Tools().Snapshot(); !liveSameKeys(liveKeys(s.Items), []string{"a", "b"}) {
		t.Fatalf("tools: %s", liveDescribe(s))
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
