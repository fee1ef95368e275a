//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"strconv"
	"sync"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
)

// client is one open mcplive.Client and what JS holds of it: its hooks,
// the watchers that feed them, its resource subscriptions.
type client struct {
	id    int
	c     *mcplive.Client
	hooks *hooks

	mu      sync.Mutex
	closed  bool
	stops   []func()
	resyncs map[mcplive.Kind]func(mcplive.Cause) // send a list to JS again (lists.go)
	subs    map[int]func(context.Context) error
	nextSub int
}

func newClient(id int, c *mcplive.Client, h *hooks) *client {
	return &client{id: id, c: c, hooks: h, subs: map[int]func(context.Context) error{}}
}

// watch starts forwarding the lists and the connection state to the hooks.
// Each list's current state is sent first (synchronously, before the
// connect Promise resolves), so JS has every store's first value at once.
func (cl *client) watch() {
	stops := make([]func(), 0, len(mcplive.Kinds)+1)
	resyncs := make(map[mcplive.Kind]func(mcplive.Cause), len(mcplive.Kinds))
	for _, k := range mcplive.Kinds {
		if l := cl.c.List(k); l != nil {
			stop, resync := watchList(cl.hooks, l)
			stops = append(stops, stop)
			resyncs[k] = resync
		}
	}
	stops = append(stops, cl.c.WatchState(cl.sendState))
	cl.sendState(cl.c.State())
	cl.mu.Lock()
	cl.stops, cl.resyncs = stops, resyncs
	cl.mu.Unlock()
}

func (cl *client) sendState(s mcplive.State) {
	defer recoverHook("status")
	var b []byte
	if s == mcplive.State("ready") {
		b = info(cl.c)
	}
	cl.hooks.status(s, b)
}

// close closes the client and stops every watcher; JS drops its side.
func (cl *client) close() error {
	cl.mu.Lock()
	if cl.closed {
		cl.mu.Unlock()
		return nil
	}
	cl.closed = true
	stops := cl.stops
	cl.stops = nil
	cl.subs = map[int]func(context.Context) error{}
	cl.mu.Unlock()

	err := cl.c.Close()
	for _, stop := range stops {
		stop()
	}
	if cl.hooks.releaseFetch != nil {
		cl.hooks.releaseFetch()
	}
	return err
}

// info is what JS shows as serverInfo, capabilities, protocolVersion and
// instructions, as JSON: {"serverInfo", "capabilities" (as the server sent
// them; {} when absent), "protocolVersion", "instructions"}, and in the
// 2026-07-28 era "discover", the server/discover result the catalog cache
// keeps (Options.Prior). Written by hand, without encoding/json (see
// readOptions).
func info(c *mcplive.Client) []byte {
	r := c.InitializeResult()
	var b bytes.Buffer
	b.WriteString(`{"serverInfo":`)
	si, _ := r.ServerInfo.MarshalJSON()
	b.Write(si)
	b.WriteString(`,"capabilities":`)
	if caps := c.Capabilities(); len(caps) > 0 {
		b.Write(caps)
	} else {
		b.WriteString(`{}`)
	}
	b.WriteString(`,"protocolVersion":`)
	writeString(&b, r.ProtocolVersion)
	b.WriteString(`,"instructions":`)
	writeString(&b, r.Instructions)
	if r.ProtocolVersion == mcplive.ModernVersion && len(r.Raw) > 0 {
		b.WriteString(`,"discover":`)
		b.Write(r.Raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// subscribe subscribes to a resource; JS gets the subscription id, and
// hooks.updated(id, uri) on every notifications/resources/updated for it.
func (cl *client) subscribe(ctx context.Context, uri string) (any, error) {
	cl.mu.Lock()
	cl.nextSub++
	id := cl.nextSub
	cl.mu.Unlock()
	unsub, err := cl.c.SubscribeResource(ctx, uri, func(uri string) {
		defer recoverHook("updated")
		cl.hooks.updated(id, uri)
	})
	if err != nil {
		return nil, err
	}
	cl.mu.Lock()
	closed := cl.closed
	if !closed {
		cl.subs[id] = unsub
	}
	cl.mu.Unlock()
	if closed {
		unsub(context.Background())
		return nil, printf.Errorf("%s: %w (the client is closed)", methods.Subscribe, mcplive.ErrClosed)
	}
	return strconv.Itoa(id), nil
}

func (cl *client) unsubscribe(ctx context.Context, id int) error {
	cl.mu.Lock()
	unsub := cl.subs[id]
	delete(cl.subs, id)
	cl.mu.Unlock()
	if unsub == nil {
		return nil
	}
	return unsub(ctx)
}
