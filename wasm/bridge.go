//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
)

// globalName is where main leaves the API for the JS loader.
const globalName = "__mcplive"

// bridge is the one API object of this runtime: the open clients and the
// cancel functions of requests in flight, by the ids JS gave them.
type bridge struct {
	mu       sync.Mutex
	clients  map[int]*client
	nextID   int
	inflight map[int]context.CancelFunc
}

var theBridge = &bridge{clients: map[int]*client{}, inflight: map[int]context.CancelFunc{}}

// register puts the API object on global. Its functions live as long as the
// runtime: they are the entry points, not per-client resources.
func register(global safejs.Value) error {
	obj, err := newObject()
	if err != nil {
		return err
	}
	b := theBridge
	for name, fn := range map[string]func(args []safejs.Value) any{
		"connect": b.connect,
		"call":    b.call,
		"abort":   b.abort,
		"close":   b.close,
	} {
		f, err := exportFunc(name, fn)
		if err != nil {
			return err
		}
		if err := obj.Set(name, f); err != nil {
			return err
		}
	}
	if err := obj.Set("version", mcplive.Version); err != nil {
		return err
	}
	return global.Set(globalName, obj)
}

// exportFunc wraps fn as a JS function that never lets a panic out: a panic
// becomes a rejected Promise (every export returns one, or nothing).
func exportFunc(name string, fn func(args []safejs.Value) any) (safejs.Func, error) {
	return safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) (result any) {
		defer func() {
			if p := recover(); p != nil {
				result = rejected(reportPanic(name, p))
			}
		}()
		return fn(args)
	})
}

// connect(url, optionsJSON, hooks, requestID) → Promise<string>.
func (b *bridge) connect(args []safejs.Value) any {
	url, _ := argString(args, 0)
	optsJSON, _ := argString(args, 1)
	hooks := newHooks(arg(args, 2))
	reqID, _ := argInt(args, 3)

	opts, err := parseOptions(optsJSON)
	if err != nil {
		return rejected(fmt.Errorf("mcplive: bad options: %w", err))
	}
	opts.OnNotification = hooks.notification
	opts.OnLog = hooks.log

	ctx, cancel := b.begin(reqID, context.Background())
	return promise("connect", func() (any, error) {
		defer b.end(reqID)
		c, err := mcplive.Connect(ctx, url, opts)
		cancel() // it bounds only the connecting
		if err != nil {
			return nil, err
		}
		b.mu.Lock()
		b.nextID++
		cl := newClient(b.nextID, c, hooks)
		b.clients[cl.id] = cl
		b.mu.Unlock()
		cl.watch()
		out, err := json.Marshal(struct {
			ID   int      `json:"id"`
			Info infoJSON `json:"info"`
		}{cl.id, info(c)})
		if err != nil {
			return nil, err
		}
		return string(out), nil
	})
}

// call(clientID, requestID, op, argsJSON, onProgress?) → Promise<string|undefined>.
func (b *bridge) call(args []safejs.Value) any {
	id, _ := argInt(args, 0)
	reqID, _ := argInt(args, 1)
	op, _ := argString(args, 2)
	argsJSON, _ := argString(args, 3)
	onProgress := arg(args, 4)
	if op == "debugPanic" && id == 0 {
		// Lets the tests check that a panic in an export rejects (exportFunc).
		panic("debugPanic: a panic on purpose")
	}

	b.mu.Lock()
	cl := b.clients[id]
	b.mu.Unlock()
	if cl == nil {
		return rejected(fmt.Errorf("%s: %w", op, mcplive.ErrClosed))
	}
	ctx, cancel := b.begin(reqID, context.Background())
	return promise(op, func() (any, error) {
		defer b.end(reqID)
		defer cancel()
		return cl.do(ctx, op, []byte(argsJSON), onProgress)
	})
}

// abort(requestID) cancels the context of that request, if still in flight:
// the root package then sends notifications/cancelled.
func (b *bridge) abort(args []safejs.Value) any {
	reqID, _ := argInt(args, 0)
	b.mu.Lock()
	cancel := b.inflight[reqID]
	b.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// close(clientID) → Promise<undefined>. Closing twice is fine.
func (b *bridge) close(args []safejs.Value) any {
	id, _ := argInt(args, 0)
	b.mu.Lock()
	cl := b.clients[id]
	delete(b.clients, id)
	b.mu.Unlock()
	return promise("close", func() (any, error) {
		if cl == nil {
			return nil, nil
		}
		if err := cl.close(); err != nil && !errors.Is(err, mcplive.ErrClosed) {
			return nil, err
		}
		return nil, nil
	})
}

// begin registers a cancellable context for a request id from JS (0: none).
func (b *bridge) begin(reqID int, parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	if reqID != 0 {
		b.mu.Lock()
		b.inflight[reqID] = cancel
		b.mu.Unlock()
	}
	return ctx, cancel
}

func (b *bridge) end(reqID int) {
	if reqID != 0 {
		b.mu.Lock()
		delete(b.inflight, reqID)
		b.mu.Unlock()
	}
}
