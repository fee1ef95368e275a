//go:build js && wasm

package main

import (
	"bytes"
	"strconv"
	"sync"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/listpos"
	"github.com/mcplive/mcplive/internal/wire"
)

// causeResync is the cause of a full message the binding sends again
// because JS found that an update did not fit what it holds.
const causeResync mcplive.Cause = "resync"

// listMsg is one list change as JS receives it, in one hook call: the
// items JS does not have yet (added, and the new versions of changed ones)
// and the new order, which JS rebuilds its frozen items array from,
// reusing its objects for every other item: unchanged items keep their
// identity. The order comes in one of two forms:
//
//   - Seq (with Base, the version JS must hold): positions, not keys. The
//     new items as runs of the items JS holds (x ≥ 0, then a count: items
//     x to x+count-1) and fresh items (-k-1: item k of Added then
//     Changed), and the positions of the removed items (RemovedAt). A
//     change of one item of 10,000 is a few numbers: JS parses and copies
//     no keys, and nobody hashes them.
//     Read from the positions the walk knew (listpos, seqFrom).
//   - Keys (with Removed): every key in order, which JS looks up in a map
//     of what it holds. When Seq cannot say it (see seqFrom; an update
//     whose positions the walk did not know: a tools list that left tools
//     out), and in full messages.
//
// A status-only change has neither (JS keeps its items). A full message
// (the first one of each list, and a resync) carries every item in Added;
// the first one is not a change event.
type listMsg struct {
	Kind    mcplive.Kind
	Version uint64
	Status  mcplive.Status
	Error   *errorInfo
	Live    bool
	Cache   *mcplive.CacheHint // sent as ttlMs, cacheScope, receivedAt
	Full    bool
	Keys    mcplive.Entries // nil: status only
	Added   mcplive.Entries
	Changed mcplive.Entries
	Removed mcplive.Entries // only their keys are sent
	// The positional form (instead of Keys and Removed; see above).
	Base      uint64
	Seq       []int
	RemovedAt []int
	Cause     mcplive.Cause
	Latency   time.Duration // sent as latencyMs when Cause is "notification"
}

// watchList forwards every update of l to h.list and returns the function
// that stops it and the one that sends l's whole list again, as a full
// message with the given cause (CauseInitial, first; causeResync when JS
// found that an update did not fit what it holds). It sends l's current
// state first.
//
// WatchView comes before View so no change falls between them; an update
// that the first message already holds (its version is not newer and it
// carries a diff) is then skipped, so JS applies each change exactly once.
func watchList(h *hooks, l mcplive.ListView) (stop func(), again func(mcplive.Cause)) {
	var (
		mu      sync.Mutex
		started bool
		sent    uint64 // version JS has
	)
	stop = l.WatchView(func(u mcplive.ViewUpdate) {
		defer recoverHook("list")
		mu.Lock()
		defer mu.Unlock()
		hasDiff := size(u.Added)+size(u.Removed)+size(u.Changed) > 0
		if !started || u.Version < sent || (u.Version == sent && hasDiff) {
			return
		}
		msg := listMsg{Kind: l.Kind(), Version: u.Version, Status: u.Status, Live: u.Live, Cache: u.Cache}
		if u.Err != nil {
			msg.Error = describe(u.Err)
		}
		if u.Version != sent {
			msg.Added, msg.Changed = u.Added, u.Changed
			msg.Cause, msg.Latency = u.Cause, u.Latency
			// The diff of an update is against the version before it:
			// the positional form only when that is the one JS holds.
			ok := false
			if u.Version == sent+1 {
				msg.Base = sent
				if p, known := listpos.Of(&u); known {
					if msg.Seq, ok = seqFrom(p.Runs, u.Items, u.Added, u.Changed); ok {
						msg.RemovedAt = p.RemovedAt
					}
				}
			}
			if !ok { // seqFrom left Seq nil
				msg.Keys, msg.Removed = u.Items, u.Removed
			}
		}
		sent = u.Version
		send(h, &msg)
	})

	again = func(cause mcplive.Cause) {
		mu.Lock()
		defer mu.Unlock()
		v := l.View()
		started, sent = true, v.Version
		send(h, &listMsg{
			Kind: l.Kind(), Version: v.Version, Status: v.Status, Error: describe(v.Err), Live: v.Live, Cache: v.Cache,
			Full: true, Keys: v.Items, Added: v.Items, Cause: cause,
		})
	}
	again(mcplive.CauseInitial)
	return stop, again
}

func send(h *hooks, msg *listMsg) {
	h.list(msg.encode())
}

// receivedAt is when the walk behind c ended, in ms since the epoch (0: unknown).
func receivedAt(c *mcplive.CacheHint) int64 {
	if c == nil || c.Received.IsZero() {
		return 0
	}
	return c.Received.UnixMilli()
}

func size(e mcplive.Entries) int {
	if e == nil {
		return 0
	}
	return e.Len()
}

// encode writes msg as JSON by hand: the items' raw JSON is copied as it
// is (it was validated when the page was read, and json.Marshal would scan
// every byte of it again: slow in wasm, and a full list can be megabytes),
// and Entries need no slice of their own.
func (m *listMsg) encode() []byte {
	var b bytes.Buffer
	b.Grow(m.sizeHint())
	b.WriteString(`{"kind":`)
	writeString(&b, string(m.Kind))
	b.WriteString(`,"version":`)
	b.WriteString(strconv.FormatUint(m.Version, 10))
	b.WriteString(`,"status":`)
	writeString(&b, string(m.Status))
	b.WriteString(`,"error":`)
	if m.Error == nil {
		b.WriteString("null")
	} else {
		e, err := wire.Marshal(m.Error)
		if err != nil {
			e = []byte(`{"name":"Error","message":"mcplive: an error that cannot be encoded"}`)
		}
		b.Write(e)
	}
	b.WriteString(`,"live":`)
	b.WriteString(strconv.FormatBool(m.Live))
	// The caching hints of the last walk (2026-07-28): null when the
	// server sent none.
	ttl, scope, received := "null", "null", "null"
	if c := m.Cache; c != nil {
		if c.HasTTL {
			ttl = strconv.FormatInt(c.TTL.Milliseconds(), 10)
		}
		if c.Scope == "public" || c.Scope == "private" {
			scope = `"` + c.Scope + `"`
		}
		if ms := receivedAt(c); ms != 0 {
			received = strconv.FormatInt(ms, 10)
		}
	}
	for _, s := range [...]string{`,"ttlMs":`, ttl, `,"cacheScope":`, scope, `,"receivedAt":`, received} {
		b.WriteString(s)
	}
	if m.Full {
		b.WriteString(`,"full":true`)
	}
	switch {
	case m.Seq != nil:
		b.WriteString(`,"base":`)
		b.WriteString(strconv.FormatUint(m.Base, 10))
		writeInts(&b, "seq", m.Seq)
		if len(m.RemovedAt) > 0 {
			writeInts(&b, "removedAt", m.RemovedAt)
		}
	case m.Keys == nil:
		b.WriteString(`,"keys":null}`)
		return b.Bytes()
	default:
		writeKeys(&b, "keys", m.Keys)
		if size(m.Removed) > 0 {
			writeKeys(&b, "removed", m.Removed)
		}
	}
	writeRaws(&b, "added", m.Added)
	writeRaws(&b, "changed", m.Changed)
	b.WriteString(`,"cause":`)
	writeString(&b, string(m.Cause))
	b.WriteString(`,"latencyMs":`)
	if m.Cause == mcplive.CauseNotification {
		b.WriteString(strconv.FormatFloat(float64(m.Latency)/float64(time.Millisecond), 'f', 3, 64))
	} else {
		b.WriteString("null")
	}
	b.WriteByte('}')
	return b.Bytes()
}

// sizeHint is about the length of m's JSON: its items' raw JSON, their
// keys and some room for the rest, so that encode allocates once.
func (m *listMsg) sizeHint() int {
	n := 256 + 8*(len(m.Seq)+len(m.RemovedAt))
	for _, e := range []mcplive.Entries{m.Keys, m.Removed} {
		for i := range size(e) {
			n += len(e.Key(i)) + 3
		}
	}
	for _, e := range []mcplive.Entries{m.Added, m.Changed} {
		for i := range size(e) {
			n += len(e.RawJSON(i)) + 1
		}
	}
	return n
}

// writeName writes ,"name":[ without building the string.
func writeName(b *bytes.Buffer, name string) {
	b.WriteString(`,"`)
	b.WriteString(name)
	b.WriteString(`":[`)
}

func writeKeys(b *bytes.Buffer, name string, e mcplive.Entries) {
	writeName(b, name)
	for i := range size(e) {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, e.Key(i))
	}
	b.WriteByte(']')
}

func writeInts(b *bytes.Buffer, name string, v []int) {
	writeName(b, name)
	var num [20]byte
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(strconv.AppendInt(num[:0], int64(x), 10))
	}
	b.WriteByte(']')
}

func writeRaws(b *bytes.Buffer, name string, e mcplive.Entries) {
	if size(e) == 0 {
		return
	}
	writeName(b, name)
	for i := range e.Len() {
		if i > 0 {
			b.WriteByte(',')
		}
		if raw := e.RawJSON(i); len(raw) > 0 {
			b.Write(raw)
		} else {
			b.WriteString("{}") // every item from a server has its JSON; never here
		}
	}
	b.WriteByte(']')
}

// writeString writes s as a JSON string for JS's JSON.parse, the only reader
// of what it writes: the least escaping JSON allows, on the path of every
// item's key. (internal/jsontext's WriteString writes what
// json.Marshal writes, for servers: it also escapes <, >, &, U+2028 and
// U+2029 and replaces invalid UTF-8, which the TextDecoder that hands this
// text to JS does anyway.)
func writeString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// seqFrom says the positional form of an update (see listMsg) from the
// positions the walk knew (listpos): its runs of the items JS holds as
// they are, and each fresh item as its place in added then changed (the
// same item in memory). A changed item that is not fresh is one of the
// runs (a list that repeats a key): skipped. ok is false, and seq nil, when
// a fresh item is neither (a repeated key's item, which the diff leaves
// out): the message then carries the keys.
func seqFrom(runs []int, cur, added, changed mcplive.Entries) (seq []int, ok bool) {
	seq = make([]int, 0, max(len(runs), 8))
	nAdded, nChanged := size(added), size(changed)
	i, a, c := 0, 0, 0 // the next items of cur, added and changed
	for r := 0; r+1 < len(runs); r += 2 {
		x, n := runs[r], runs[r+1]
		if x >= 0 {
			seq = append(seq, x, n)
			i += n
			continue
		}
		for ; n > 0; n, i = n-1, i+1 {
			raw := cur.RawJSON(i)
			if a < nAdded && sameItem(added.RawJSON(a), raw) {
				seq = append(seq, -a-1)
				a++
				continue
			}
			for c < nChanged && !sameItem(changed.RawJSON(c), raw) {
				c++
			}
			if c == nChanged {
				return nil, false
			}
			seq = append(seq, -(nAdded+c)-1)
			c++
		}
	}
	if a != nAdded {
		return nil, false
	}
	return seq, true
}

// sameItem reports whether a and b are the same raw JSON in memory.
func sameItem(a, b mcplive.RawMessage) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}
