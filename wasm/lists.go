//go:build js && wasm

package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/mcplive/mcplive"
)

// listMsg is one list change as JS receives it, in one hook call: the new
// order as keys, the items JS does not have yet (added, and the new
// versions of changed ones) and the keys that went away. JS rebuilds its
// frozen items array from keys, reusing its objects for every key not in
// added or changed: unchanged items keep their identity.
//
// A status-only change has keys null (JS keeps its items). A full message
// (the first one of each list) carries every item in added and is not a
// change event.
type listMsg struct {
	Kind    mcplive.Kind      `json:"kind"`
	Version uint64            `json:"version"`
	Status  mcplive.Status    `json:"status"`
	Error   *errorInfo        `json:"error"`
	Full    bool              `json:"full,omitempty"`
	Keys    []string          `json:"keys"` // null: status only; [] an empty list
	Added   []json.RawMessage `json:"added,omitempty"`
	Changed []json.RawMessage `json:"changed,omitempty"`
	Removed []string          `json:"removed,omitempty"`
}

// watchList forwards every update of l to h.list and returns the function
// that stops it and the one that sends a full message again (when JS found
// that an update did not fit what it holds). It sends l's current snapshot
// first.
//
// Subscribe comes before Snapshot so no change falls between them; an
// update that the snapshot already holds (its version is not newer and it
// carries a diff) is then skipped, so JS applies each change exactly once.
func watchList[T mcplive.Item](h *hooks, l *mcplive.List[T]) (stop, resync func()) {
	var (
		mu      sync.Mutex
		started bool
		sent    uint64 // version JS has
	)
	cancel := l.Subscribe(func(u mcplive.Update[T]) {
		defer recoverHook("list")
		mu.Lock()
		defer mu.Unlock()
		hasDiff := len(u.Added)+len(u.Removed)+len(u.Changed) > 0
		if !started || u.Version < sent || (u.Version == sent && hasDiff) {
			return
		}
		msg := listMsg{Kind: l.Kind(), Version: u.Version, Status: u.Status, Error: describe(u.Err)}
		if u.Version != sent {
			msg.Keys = keys(u.Items)
			msg.Added = raws(u.Added)
			msg.Changed = raws(u.Changed)
			for _, it := range u.Removed {
				msg.Removed = append(msg.Removed, it.Key())
			}
		}
		sent = u.Version
		send(h, &msg)
	})

	resync = func() {
		mu.Lock()
		defer mu.Unlock()
		snap := l.Snapshot()
		started, sent = true, snap.Version
		send(h, &listMsg{
			Kind: l.Kind(), Version: snap.Version, Status: snap.Status, Error: describe(snap.Err),
			Full: true, Keys: keys(snap.Items), Added: raws(snap.Items),
		})
	}
	resync()
	return cancel, resync
}

func send(h *hooks, msg *listMsg) {
	b, err := msg.encode()
	if err != nil {
		consoleError("mcplive: cannot encode a list update: " + err.Error())
		return
	}
	h.list(b)
}

// encode writes msg as JSON, as json.Marshal would, but copies the items'
// raw JSON as it is: it was validated when the page was read, and
// json.Marshal would scan every byte of it again (slow in wasm, and a full
// list can be megabytes).
func (m *listMsg) encode() ([]byte, error) {
	var b bytes.Buffer
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
			return nil, err
		}
		b.Write(e)
	}
	if m.Full {
		b.WriteString(`,"full":true`)
	}
	b.WriteString(`,"keys":`)
	if m.Keys == nil {
		b.WriteString("null")
	} else {
		b.WriteByte('[')
		for i, k := range m.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(&b, k)
		}
		b.WriteByte(']')
	}
	writeRaws(&b, "added", m.Added)
	writeRaws(&b, "changed", m.Changed)
	if len(m.Removed) > 0 {
		b.WriteString(`,"removed":[`)
		for i, k := range m.Removed {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(&b, k)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeRaws(b *bytes.Buffer, name string, raws []json.RawMessage) {
	if len(raws) == 0 {
		return
	}
	b.WriteString(`,"` + name + `":[`)
	for i, r := range raws {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(r)
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

func keys[T mcplive.Item](items []T) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Key()
	}
	return out
}

// raws returns each item's JSON as the server sent it, so fields this
// code does not know reach JS intact.
func raws[T mcplive.Item](items []T) []json.RawMessage {
	if len(items) == 0 {
		return nil
	}
	out := make([]json.RawMessage, len(items))
	for i, it := range items {
		raw := it.RawJSON()
		if len(raw) == 0 {
			raw, _ = json.Marshal(it)
		}
		out[i] = raw
	}
	return out
}
