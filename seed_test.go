package mcplive_test

// Lists kept from an earlier run (Options.Seeds, the JS catalog cache) and
// the revision a server spoke last time (Options.RevisionHint).

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/scripted"
)

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

// A legacy revision hint opens with initialize at once; a hint that is no
// longer true (the server moved on) still connects.
func TestSeedRevisionHint(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := legacyServer(t)
	srv.Set("tools", scripted.Tool("a"))
	o := liveOptions()
	o.RevisionHint = "2025-11-25"
	liveConnect(t, srv.URL, o)
	assertEqual(t, srv.Count("server/discover"), 0, "discover requests with a legacy hint")
	assertEqual(t, srv.Count("initialize"), 1, "initialize requests")

	modern := modernScripted(t, scripted.ModernOptions{}, 0)
	o = liveOptions()
	o.RevisionHint = "2025-11-25"
	c := liveConnect(t, modern.URL, o)
	assertEqual(t, c.ProtocolVersion(), mcplive.ModernVersion, "revision of a server that moved on")
}

// A cursor the server refuses (invalid params) starts the walk over from
// its first page, once; a second refusal is the walk's error.
func TestSeedRefusedCursorWalksAgain(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 2)
	srv.Set("tools", scripted.Tool("a"), scripted.Tool("b"), scripted.Tool("c"))
	var mu sync.Mutex
	refusals := 1
	srv.Hook = func(r *scripted.Request) error {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == "tools/list" && r.Cursor() != "" && refusals > 0 {
			refusals--
			return scripted.RawError(json.RawMessage(`{"code":-32602,"message":"invalid cursor"}`))
		}
		return nil
	}
	c := liveConnect(t, srv.URL, nil)
	if s := c.Tools().Snapshot(); s.Status != mcplive.StatusReady || !liveSameKeys(liveKeys(s.Items), []string{"a", "b", "c"}) {
		t.Fatalf("tools after a refused cursor: %s", liveDescribe(s))
	}
	assertEqual(t, srv.Count("tools/list"), 4, "tools/list requests (1 + the refused one, then 2 from the start)")
}

// A resources/read result that took a retry (inputResponses, requestState)
// says so, and must never be cached (caching, 2026-07-28); one that did not
// does not.
func TestSeedReadRetriedIsMarked(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{Answer: func(r *scripted.Request) json.RawMessage {
		if r.Method != "resources/read" {
			return nil
		}
		var p struct {
			URI          string  `json:"uri"`
			RequestState *string `json:"requestState"`
		}
		_ = json.Unmarshal(r.Params, &p)
		if p.URI == "mem://ask" && p.RequestState == nil {
			return json.RawMessage(`{"resultType":"input_required","requestState":"s1"}`)
		}
		return json.RawMessage(`{"resultType":"complete","ttlMs":60000,"cacheScope":"public","contents":[{"uri":"` + p.URI + `","text":"t"}]}`)
	}}, 0)
	c := liveConnect(t, srv.URL, modernOptions())
	res, err := c.ReadResource(t.Context(), "mem://ask")
	assertNoErr(t, err, "ReadResource after a retry")
	assertEqual(t, res.Retried, true, "Retried after a round")
	res, err = c.ReadResource(t.Context(), "mem://plain")
	assertNoErr(t, err, "ReadResource")
	assertEqual(t, res.Retried, false, "Retried without a round")
}
