package mcplive_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/scripted"
)

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

func liveFirstIsNew[T mcplive.Item](t *testing.T, rec *liveRec[T], k liveScriptedKind) {
	t.Helper()
	u := rec.at(t, 0)
	key := scripted.Key(k.item("new"))
	if u.Version != 2 || len(u.Added) != 1 || u.Added[0].Key() != key {
		t.Errorf("%s: first update after re-lists of unchanged content: %s; want the addition of %s at version 2",
			k.kind, liveDescribeAll(rec.all()), key)
	}
}
