//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
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
	resyncs map[mcplive.Kind]func()
	subs    map[int]func(context.Context) error
	nextSub int
}

func newClient(id int, c *mcplive.Client, h *hooks) *client {
	return &client{id: id, c: c, hooks: h, subs: map[int]func(context.Context) error{}}
}

// watch starts forwarding the lists and the connection state to the hooks.
// Each list's current snapshot is sent first (synchronously, before the
// connect Promise resolves), so JS has every store's first value at once.
func (cl *client) watch() {
	var stops [5]func()
	resyncs := map[mcplive.Kind]func(){}
	stops[0], resyncs[mcplive.KindTools] = watchList(cl.hooks, cl.c.Tools())
	stops[1], resyncs[mcplive.KindPrompts] = watchList(cl.hooks, cl.c.Prompts())
	stops[2], resyncs[mcplive.KindResources] = watchList(cl.hooks, cl.c.Resources())
	stops[3], resyncs[mcplive.KindResourceTemplates] = watchList(cl.hooks, cl.c.ResourceTemplates())
	stops[4] = cl.c.WatchState(cl.sendState)
	cl.sendState(cl.c.State())
	cl.mu.Lock()
	cl.stops, cl.resyncs = stops[:], resyncs
	cl.mu.Unlock()
}

func (cl *client) sendState(s mcplive.State) {
	defer recoverHook("status")
	var b []byte
	if s == mcplive.State("ready") {
		b, _ = json.Marshal(info(cl.c))
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
	return err
}

// infoJSON is what JS shows as serverInfo, capabilities, protocolVersion
// and instructions.
type infoJSON struct {
	ServerInfo      mcplive.Implementation `json:"serverInfo"`
	Capabilities    json.RawMessage        `json:"capabilities"`
	ProtocolVersion string                 `json:"protocolVersion"`
	Instructions    string                 `json:"instructions"`
}

func info(c *mcplive.Client) infoJSON {
	caps := c.Capabilities()
	if len(caps) == 0 {
		caps = json.RawMessage("{}")
	}
	return infoJSON{
		ServerInfo:      c.ServerInfo(),
		Capabilities:    caps,
		ProtocolVersion: c.ProtocolVersion(),
		Instructions:    c.Instructions(),
	}
}

// rawResult returns a result's exact JSON as a JS string.
func rawResult(raw json.RawMessage, v any) (any, error) {
	if len(raw) == 0 {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	return string(raw), nil
}

// do runs one call from JS. args is the JSON object JS built for op; every
// op accepts "timeoutMs" (0: the client's request timeout).
func (cl *client) do(ctx context.Context, op string, args []byte, onProgress safejs.Value) (any, error) {
	var a struct {
		TimeoutMs float64         `json:"timeoutMs"`
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
		Level     string          `json:"level"`
		Kind      string          `json:"kind"`
		ID        int             `json:"id"`
		Params    json.RawMessage `json:"params"`
	}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, fmt.Errorf("mcplive: %s: bad arguments: %w", op, err)
		}
	}
	if a.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(a.TimeoutMs*float64(time.Millisecond)))
		defer cancel()
	}
	c := cl.c
	switch op {
	case "callTool":
		var opts *mcplive.CallToolOptions
		if onProgress.Type() == safejs.TypeFunction {
			opts = &mcplive.CallToolOptions{OnProgress: func(p mcplive.Progress) {
				defer recoverHook("progress")
				if b, err := json.Marshal(p); err == nil {
					invoke(onProgress, string(b))
				}
			}}
		}
		var toolArgs any // nil, not a nil RawMessage: "arguments" stays out
		if len(a.Arguments) > 0 && string(a.Arguments) != "null" {
			toolArgs = a.Arguments
		}
		res, err := c.CallTool(ctx, a.Name, toolArgs, opts)
		if err != nil {
			return nil, err
		}
		return rawResult(res.Raw, res)
	case "getPrompt":
		var pa map[string]string
		if len(a.Arguments) > 0 {
			if err := json.Unmarshal(a.Arguments, &pa); err != nil {
				return nil, fmt.Errorf("mcplive: getPrompt: prompt arguments must be strings: %w", err)
			}
		}
		res, err := c.GetPrompt(ctx, a.Name, pa)
		if err != nil {
			return nil, err
		}
		return rawResult(res.Raw, res)
	case "readResource":
		res, err := c.ReadResource(ctx, a.URI)
		if err != nil {
			return nil, err
		}
		return rawResult(res.Raw, res)
	case "complete":
		var p mcplive.CompleteParams
		if err := json.Unmarshal(a.Params, &p); err != nil {
			return nil, fmt.Errorf("mcplive: complete: bad params: %w", err)
		}
		res, err := c.Complete(ctx, p)
		if err != nil {
			return nil, err
		}
		return rawResult(res.Raw, res)
	case "setLoggingLevel":
		return nil, c.SetLoggingLevel(ctx, a.Level)
	case "ping":
		return nil, c.Ping(ctx)
	case "refresh":
		return nil, c.Refresh(ctx, mcplive.Kind(a.Kind))
	case "subscribeResource":
		return cl.subscribe(ctx, a.URI)
	case "unsubscribeResource":
		return nil, cl.unsubscribe(ctx, a.ID)
	case "resync":
		cl.mu.Lock()
		resync := cl.resyncs[mcplive.Kind(a.Kind)]
		cl.mu.Unlock()
		if resync != nil {
			resync()
		}
		return nil, nil
	case "debugPanic":
		// Lets the tests check that a Go panic rejects the call and the
		// runtime lives on (see exportFunc and promise).
		panic("debugPanic: a panic on purpose")
	}
	return nil, fmt.Errorf("mcplive: unknown operation %q", op)
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
		return nil, fmt.Errorf("mcplive: subscribeResource: %w", mcplive.ErrClosed)
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
