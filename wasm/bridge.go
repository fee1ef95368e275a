//go:build js && wasm

package main

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/printf"
)

// globalName is where main leaves the API for the JS loader.
const globalName = "__mcplive"

// bridge is the one API object of this runtime: the open clients and the
// cancel functions of requests in flight, by the ids JS gave them.
type bridge struct {
	mu       sync.Mutex
	clients  map[int]*client
	inflight map[int]context.CancelFunc
}

var theBridge = &bridge{clients: map[int]*client{}, inflight: map[int]context.CancelFunc{}}

// export is one function of the API object.
type export struct {
	name string
	fn   func(b *bridge, args []safejs.Value) any
}

// exports are the API object's functions. Test builds add one (debug.go).
var exports = []export{
	{"connect", (*bridge).connect},
	{"call", (*bridge).call},
	{"abort", (*bridge).abort},
	{"close", (*bridge).close},
	{"textFrames", (*bridge).textFrames},
}

// register puts the API object on global. Its functions live as long as the
// runtime: they are the entry points, not per-client resources.
func register(global safejs.Value) error {
	obj, err := newObject()
	if err != nil {
		return err
	}
	for _, e := range exports {
		fn := e.fn
		f, err := exportFunc(e.name, func(args []safejs.Value) any { return fn(theBridge, args) })
		if err != nil {
			return err
		}
		if err := obj.Set(e.name, f); err != nil {
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

// connect(url, options, hooks, requestID, clientID) → Promise<string>,
// the server's info as JSON. JS chooses the client's id, so it can act on
// every hook call from the first one on (a resync, a close).
func (b *bridge) connect(args []safejs.Value) any {
	url, _ := argString(args, 0)
	optsValue := arg(args, 1)
	hooks := newHooks(arg(args, 2))
	reqID, _ := argInt(args, 3)
	id, _ := argInt(args, 4)
	b.mu.Lock()
	taken := b.clients[id] != nil
	b.mu.Unlock()
	if id <= 0 || taken {
		return rejected(printf.Errorf("connect: %w: client id %d is not new", errArgs, id))
	}

	opts, headers, err := parseOptions(optsValue)
	if err != nil {
		return rejected(printf.Errorf("connect: %w: options: %v", errArgs, err))
	}
	t, err := mcplive.NewTransport(url, opts)
	if err != nil {
		return rejected(err)
	}
	configureHTTP(t, headers, hooks)
	opts.Transport = wrapTransport(t, hooks)
	opts.OnNotification = hooks.notification
	opts.OnLog = hooks.log
	opts.OnElicit = hooks.onElicit()
	opts.Logger = hooks.logger()

	ctx, cancel := b.begin(reqID, context.Background())
	return promise("connect", func() (any, error) {
		defer b.end(reqID)
		c, err := mcplive.Connect(ctx, url, opts)
		cancel() // it bounds only the connecting
		if errors.Is(err, mcplive.ErrDial) {
			_, ws := t.(*mcplive.WebSocketTransport)
			err = dialError(shownURL(url), ws, opts.DialTimeout, err)
		}
		if err != nil {
			if hooks.releaseFetch != nil {
				hooks.releaseFetch()
			}
			return nil, err
		}
		cl := newClient(id, c, hooks)
		b.mu.Lock()
		b.clients[id] = cl
		b.mu.Unlock()
		cl.watch()
		return string(info(c)), nil
	})
}

// call(clientID, requestID, op, argsJSON, timeoutMs, onProgress?) →
// Promise<string|undefined>: runs ops[op] (timeoutMs 0: the client's
// request timeout).
func (b *bridge) call(args []safejs.Value) any {
	id, _ := argInt(args, 0)
	reqID, _ := argInt(args, 1)
	name, _ := argString(args, 2)
	argsJSON, _ := argString(args, 3)
	timeoutMs, _ := argFloat(args, 4)
	onProgress := arg(args, 5)

	o, ok := opNamed(name)
	if !ok {
		return rejected(printf.Errorf("%w: unknown operation %q", errArgs, name))
	}
	b.mu.Lock()
	cl := b.clients[id]
	b.mu.Unlock()
	if cl == nil {
		return rejected(printf.Errorf("%s: %w (the client is closed)", o.method, mcplive.ErrClosed))
	}
	ctx, cancel := b.begin(reqID, context.Background())
	return promise(name, func() (any, error) {
		defer b.end(reqID)
		defer cancel()
		cctx := ctx
		if timeoutMs > 0 {
			var stop context.CancelFunc
			cctx, stop = context.WithTimeout(ctx, ms(timeoutMs))
			defer stop()
		}
		v, err := o.run(&call{ctx: cctx, cl: cl, method: o.method, raw: []byte(argsJSON), onProgress: onProgress})
		switch {
		case err == nil:
		case ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded):
			// The call's own timeoutMs: the root package reports the
			// context's deadline, as Go words it.
			err = timeoutError(o.method, ms(timeoutMs))
		case !strings.HasPrefix(jsMessage(err), o.method):
			err = printf.Errorf("%s: %w", o.method, err) // say which call failed
		}
		return v, err
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
