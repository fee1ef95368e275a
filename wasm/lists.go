//go:build js && wasm

package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/mcplive/mcplive"
)

// causeResync is the cause of a full message the binding sends again
// because JS found that an update did not fit what it holds.
const causeResync mcplive.Cause = "resync"

// listMsg is one list change as JS receives it, in one hook call: the new
// order as keys, the items JS does not have yet (added, and the new
// versions of changed ones) and the keys that went away. JS rebuilds its
// frozen items array from keys, reusing its objects for every key not in
// added or changed: unchanged items keep their identity.
//
// A status-only change has no Keys (JS keeps its items). A full message
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
	Cause   mcplive.Cause
	Latency time.Duration // sent as latencyMs when Cause is "notification"
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
		msg := listMsg{Kind: l.Kind(), Version: u.Version, Status: u.Status, Error: describe(u.Err), Live: u.Live, Cache: u.Cache}
		if u.Version != sent {
			msg.Keys, msg.Added, msg.Changed, msg.Removed = u.Items, u.Added, u.Changed, u.Removed
			msg.Cause, msg.Latency = u.Cause, u.Latency
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
		e, err := json.Marshal(m.Error)
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
	if m.Keys == nil {
		b.WriteString(`,"keys":null}`)
		return b.Bytes()
	}
	writeKeys(&b, "keys", m.Keys)
	writeRaws(&b, "added", m.Added)
	writeRaws(&b, "changed", m.Changed)
	if size(m.Removed) > 0 {
		writeKeys(&b, "removed", m.Removed)
	}
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
	n := 256
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

// writeString writes s as a JSON string.
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
