//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
)

// fakeEntries is Entries over a slice of raw items keyed by "name".
type fakeEntries []string

func (e fakeEntries) Len() int                         { return len(e) }
func (e fakeEntries) RawJSON(i int) mcplive.RawMessage { return mcplive.RawMessage(e[i]) }
func (e fakeEntries) Key(i int) string {
	var v struct{ Name string }
	json.Unmarshal([]byte(e[i]), &v)
	return v.Name
}

// TestListMsgEncode checks the hand-written encoder: valid JSON with the
// fields JS reads (js/src/lists.js).
func TestListMsgEncode(t *testing.T) {
	code := int64(-32603)
	odd := `{"name":"b\"q\\\n\t\r\u0001é€"}`
	cases := []struct {
		msg  listMsg
		want map[string]any
	}{
		{
			listMsg{Kind: mcplive.KindTools, Version: 3, Status: mcplive.StatusReady,
				Keys: fakeEntries{`{"name":"a"}`, odd}, Added: fakeEntries{`{"name":"a"}`}, Changed: fakeEntries{odd},
				Removed: fakeEntries{`{"name":"c"}`}, Cause: mcplive.CauseNotification, Latency: 1500 * time.Microsecond},
			map[string]any{"kind": "tools", "version": 3.0, "status": "ready", "error": nil, "live": false,
				"ttlMs": nil, "cacheScope": nil, "receivedAt": nil,
				"keys": []any{"a", "b\"q\\\n\t\r\x01é€"}, "added": []any{map[string]any{"name": "a"}},
				"changed": []any{map[string]any{"name": "b\"q\\\n\t\r\x01é€"}}, "removed": []any{"c"},
				"cause": "notification", "latencyMs": 1.5},
		},
		{
			listMsg{Kind: mcplive.KindPrompts, Status: mcplive.StatusError, Error: describe(errors.New("boom <&>"))},
			map[string]any{"kind": "prompts", "version": 0.0, "status": "error", "live": false,
				"ttlMs": nil, "cacheScope": nil, "receivedAt": nil,
				"error": map[string]any{"name": "Error", "message": "boom <&>"}, "keys": nil},
		},
		{
			listMsg{Kind: mcplive.KindResources, Status: mcplive.StatusReady, Keys: fakeEntries{}, Full: true, Cause: causeResync,
				Live: true, Cache: &mcplive.CacheHint{TTL: 90 * time.Second, HasTTL: true, Scope: "private", Received: time.UnixMilli(1764500000123)}},
			map[string]any{"kind": "resources", "version": 0.0, "status": "ready", "error": nil, "full": true, "live": true,
				"ttlMs": 90000.0, "cacheScope": "private", "receivedAt": 1764500000123.0,
				"keys": []any{}, "cause": "resync", "latencyMs": nil},
		},
		{
			listMsg{Kind: mcplive.KindResourceTemplates, Status: mcplive.StatusError,
				Error: &errorInfo{Name: "RPCError", Message: "x", Code: &code, Data: mcplive.RawMessage(`{"a":1}`)},
				// A TTL of 0 is a TTL ("stale at once"); an unknown scope is left out.
				Cache: &mcplive.CacheHint{HasTTL: true, Scope: "shared", Received: time.UnixMilli(5)}},
			map[string]any{"kind": "resourceTemplates", "version": 0.0, "status": "error", "keys": nil, "live": false,
				"ttlMs": 0.0, "cacheScope": nil, "receivedAt": 5.0,
				"error": map[string]any{"name": "RPCError", "message": "x", "code": -32603.0, "data": map[string]any{"a": 1.0}}},
		},
	}
	for _, c := range cases {
		got := c.msg.encode()
		var g map[string]any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("encode produced invalid JSON %s: %v", got, err)
		}
		if !reflect.DeepEqual(g, c.want) {
			t.Errorf("encode = %s\nwant     %v", got, c.want)
		}
	}
}

// rawItems is Entries over raw items keyed by "name" whose RawJSON is the
// same slice every time, as a list's items are.
type rawItems [][]byte

func (e rawItems) Len() int                         { return len(e) }
func (e rawItems) RawJSON(i int) mcplive.RawMessage { return e[i] }
func (e rawItems) Key(i int) string                 { return fakeEntries{string(e[i])}.Key(0) }

func items(names ...string) rawItems {
	e := make(rawItems, len(names))
	for i, n := range names {
		e[i] = []byte(`{"name":"` + n + `"}`)
	}
	return e
}

// pick returns the items of e at positions, the same slices.
func (e rawItems) pick(at ...int) rawItems {
	out := make(rawItems, len(at))
	for i, j := range at {
		out[i] = e[j]
	}
	return out
}

// applySeq is what js/src/lists.js does with seq and removedAt: the names.
func applySeq(t *testing.T, prev, fresh rawItems, seq, removedAt []int) (names, removed []string) {
	t.Helper()
	for i := 0; i < len(seq); i++ {
		if x := seq[i]; x < 0 {
			names = append(names, fresh.Key(-x-1))
		} else {
			i++
			for j := x; j < x+seq[i]; j++ {
				names = append(names, prev.Key(j))
			}
		}
	}
	for _, j := range removedAt {
		removed = append(removed, prev.Key(j))
	}
	return names, removed
}

// runsOf is the runs the walk hands on (listpos), made from scratch: each
// item of cur as its position in prev (the same memory) or decoded anew.
func runsOf(prev, cur rawItems) []int {
	runs := []int{}
	for _, raw := range cur {
		j := -1
		for k := range prev {
			if sameItem(prev[k], raw) {
				j = k
				break
			}
		}
		last := len(runs) - 2
		switch {
		case j >= 0 && last >= 0 && runs[last] >= 0 && runs[last]+runs[last+1] == j:
			runs[last+1]++
		case j >= 0:
			runs = append(runs, j, 1)
		case last >= 0 && runs[last] < 0:
			runs[last+1]++
		default:
			runs = append(runs, -1, 1)
		}
	}
	return runs
}

// removedAtOf is the positions of removed in prev (the same memory).
func removedAtOf(prev, removed rawItems) []int {
	var at []int
	for _, raw := range removed {
		for k := range prev {
			if sameItem(prev[k], raw) {
				at = append(at, k)
				break
			}
		}
	}
	return at
}

// TestSeqFromCases checks the positional form of a change against what JS
// rebuilds from it, and that it gives up (keys instead) where positions
// cannot say the change.
func TestSeqFromCases(t *testing.T) {
	many := make([]string, 1000)
	for i := range many {
		many[i] = "t" + strconv.Itoa(i)
	}
	big := items(many...)
	bumped := func(e rawItems, i int) rawItems { // item i changed: a new slice
		out := append(rawItems(nil), e...)
		out[i] = []byte(`{"name":"` + e.Key(i) + `","v":2}`)
		return out
	}
	prev := items("a", "b", "c", "d", "e")
	xy := items("x", "y")
	x, y := xy[:1], xy[1:]
	changedC := bumped(prev, 2)
	cases := []struct {
		name                    string
		prev, cur, add, chg, rm rawItems
		seq                     []int // nil: not checked, only the result
	}{
		{name: "same", prev: prev, cur: prev, seq: []int{0, 5}},
		{name: "one added at the end, one removed", prev: prev, cur: append(prev.pick(0, 1, 3, 4), x[0]), add: x[:1], rm: prev.pick(2), seq: []int{0, 2, 3, 2, -1}},
		{name: "one changed in place", prev: prev, cur: changedC, chg: changedC.pick(2), seq: []int{0, 2, -1, 3, 2}},
		{name: "added and changed", prev: prev, cur: rawItems{x[0], prev[0], prev[1], changedC[2], prev[3], y[0], prev[4]}, add: xy, chg: changedC.pick(2), seq: []int{-1, 0, 2, -3, 3, 1, -2, 4, 1}},
		{name: "moved far", prev: big, cur: append(rawItems{big[999]}, big[:999]...), seq: []int{999, 1, 0, 999}},
		{name: "reversed", prev: prev, cur: prev.pick(4, 3, 2, 1, 0), seq: []int{4, 1, 3, 1, 2, 1, 1, 1, 0, 1}},
		{name: "a repeated item", prev: prev, cur: prev.pick(0, 0, 1), rm: prev.pick(2, 3, 4), seq: []int{0, 1, 0, 2}},
		{name: "many removed", prev: big, cur: big[500:], rm: big[:500], seq: []int{500, 500}},
		{name: "to empty", prev: prev, cur: rawItems{}, rm: prev, seq: []int{}},
		{name: "from empty", prev: rawItems{}, cur: xy, add: xy, seq: []int{-1, -2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seq, ok := seqFrom(runsOf(c.prev, c.cur), c.cur, c.add, c.chg)
			if !ok {
				t.Fatal("seqFrom gave up")
			}
			removedAt := removedAtOf(c.prev, c.rm)
			if c.seq != nil && !reflect.DeepEqual(seq, c.seq) {
				t.Errorf("seq = %v, want %v", seq, c.seq)
			}
			fresh := append(append(rawItems{}, c.add...), c.chg...)
			names, removed := applySeq(t, c.prev, fresh, seq, removedAt)
			want := make([]string, c.cur.Len())
			for i := range want {
				want[i] = c.cur.Key(i)
			}
			if !reflect.DeepEqual(names, want) && !(len(names) == 0 && len(want) == 0) {
				t.Errorf("JS would hold %v, want %v", names, want)
			}
			wantRm := make([]string, c.rm.Len())
			for i := range wantRm {
				wantRm[i] = c.rm.Key(i)
			}
			if !reflect.DeepEqual(removed, wantRm) && !(len(removed) == 0 && len(wantRm) == 0) {
				t.Errorf("removed = %v, want %v", removed, wantRm)
			}
		})
	}

	// Where positions cannot say it: the keys are sent.
	equalNotSame := items("a", "b", "c", "d", "e") // equal bytes, other slices: not what a re-list reuses
	for _, c := range []struct {
		name                    string
		prev, cur, add, chg, rm rawItems
	}{
		{"an item neither of prev nor fresh", prev, equalNotSame, nil, nil, nil},
		{"an added item not in the list", prev, prev.pick(0, 1), x, nil, nil},
		{"an empty raw item", prev, rawItems{[]byte{}}, nil, nil, prev},
	} {
		if seq, ok := seqFrom(runsOf(c.prev, c.cur), c.cur, c.add, c.chg); ok || seq != nil {
			t.Errorf("%s: seqFrom did not give up", c.name)
		}
	}
}

// TestSeqFrom checks the positional form read from the positions the walk
// knew against what JS rebuilds from it, on random changes of lists with
// and without repeated keys (the root package's TestWalkAlignment checks
// the walk's runs against ones made from scratch, as here), and that it
// gives up on a fresh item that is neither added nor changed.
func TestSeqFrom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	same := func(a, b []byte) bool { return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0] }
	item := func(k, v int) []byte {
		return []byte(`{"name":"k` + strconv.Itoa(k) + `","v":` + strconv.Itoa(v) + `}`)
	}
	for n := range 5000 {
		size := r.IntN(30)
		var prev rawItems
		for i := range size {
			prev = append(prev, item(i, 0))
		}
		cur := append(rawItems{}, prev...)
		nextKey := size
		for range r.IntN(6) {
			switch op := r.IntN(4); {
			case op == 0 && len(cur) > 0: // remove
				i := r.IntN(len(cur))
				cur = append(cur[:i:i], cur[i+1:]...)
			case op == 1: // add
				i := r.IntN(len(cur) + 1)
				cur = append(cur[:i:i], append(rawItems{item(nextKey, 0)}, cur[i:]...)...)
				nextKey++
			case op == 2 && len(cur) > 0: // change
				i := r.IntN(len(cur))
				cur[i] = []byte(`{"name":"` + cur.Key(i) + `","v":` + strconv.Itoa(1+r.IntN(9)) + `}`)
			case op == 3 && len(cur) > 1: // move
				i, j := r.IntN(len(cur)), r.IntN(len(cur))
				cur[i], cur[j] = cur[j], cur[i]
			}
		}
		// The update's diff, by key, and the runs from scratch.
		inPrev := func(raw []byte) int {
			for j := range prev {
				if same(prev[j], raw) {
					return j
				}
			}
			return -1
		}
		keyIn := func(e rawItems, k string) bool {
			for i := range e {
				if e.Key(i) == k {
					return true
				}
			}
			return false
		}
		var add, chg rawItems
		runs := []int{}
		for i, raw := range cur {
			j := inPrev(raw)
			last := len(runs) - 2
			switch {
			case j >= 0 && last >= 0 && runs[last] >= 0 && runs[last]+runs[last+1] == j:
				runs[last+1]++
			case j >= 0:
				runs = append(runs, j, 1)
			case last >= 0 && runs[last] < 0:
				runs[last+1]++
			default:
				runs = append(runs, -1, 1)
			}
			switch {
			case j >= 0:
			case keyIn(prev, cur.Key(i)):
				chg = append(chg, raw)
			default:
				add = append(add, raw)
			}
		}
		got, ok := seqFrom(runs, cur, add, chg)
		if !ok {
			t.Fatalf("case %d: prev %s cur %s runs %v: seqFrom gave up", n, prev, cur, runs)
		}
		var built rawItems // what JS rebuilds, as the same memory
		fresh := append(append(rawItems{}, add...), chg...)
		for i := 0; i < len(got); i++ {
			if x := got[i]; x < 0 {
				built = append(built, fresh[-x-1])
			} else {
				i++
				built = append(built, prev[x:x+got[i]]...)
			}
		}
		rebuilt := len(built) == len(cur)
		for i := range built {
			rebuilt = rebuilt && sameItem(built[i], cur[i])
		}
		if !rebuilt {
			t.Fatalf("case %d: prev %s cur %s runs %v: seq %v rebuilds %s", n, prev, cur, runs, got, built)
		}
		if len(chg) > 0 {
			if seq, ok := seqFrom(runs, cur, add, chg[1:]); ok || seq != nil {
				t.Fatalf("case %d: seqFrom did not give up on a fresh item neither added nor changed", n)
			}
		}
	}
}

// TestListMsgEncodeSeq checks the positional form's members.
func TestListMsgEncodeSeq(t *testing.T) {
	m := listMsg{Kind: mcplive.KindTools, Version: 8, Status: mcplive.StatusReady, Base: 7, Seq: []int{0, 2, -1, 5, 1}, RemovedAt: []int{2, 3},
		Added: items("n"), Cause: mcplive.CauseRefresh}
	var g map[string]any
	if err := json.Unmarshal(m.encode(), &g); err != nil {
		t.Fatalf("invalid JSON %s: %v", m.encode(), err)
	}
	want := map[string]any{"kind": "tools", "version": 8.0, "status": "ready", "error": nil, "live": false, "ttlMs": nil, "cacheScope": nil, "receivedAt": nil,
		"base": 7.0, "seq": []any{0.0, 2.0, -1.0, 5.0, 1.0}, "removedAt": []any{2.0, 3.0}, "added": []any{map[string]any{"name": "n"}},
		"cause": "refresh", "latencyMs": nil}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("encode = %s\nwant %v", m.encode(), want)
	}
}
