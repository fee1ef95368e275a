//go:build js && wasm

package main

import (
	"runtime"
	"sync"

	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/printf"
	"github.com/mcplive/mcplive/internal/wire"
)

// hooks are the JS functions a client reports to. Go calls them
// synchronously and in order; a hook that throws is logged, never fatal.
type hooks struct {
	listFn, statusFn, logFn, notificationFn, updatedFn safejs.Value
	beforeDialFn, afterDialFn                          safejs.Value
	tokenFn                                            safejs.Value // Streamable HTTP: auth.go
	fetchFn                                            safejs.Value // Streamable HTTP: auth.go
	releaseFetch                                       func()       // forgets fetchFn (the client closed)
	elicitFn                                           safejs.Value // elicit.go
	diagFn                                             safejs.Value // logger.go

	// listBuf is the JS Uint8Array that list messages cross in (see list).
	listMu  sync.Mutex
	listBuf safejs.Value
	listCap int
}

func newHooks(obj safejs.Value) *hooks {
	get := func(name string) safejs.Value {
		if obj.Type() != safejs.TypeObject {
			return safejs.Undefined()
		}
		v, err := obj.Get(name)
		if err != nil {
			return safejs.Undefined()
		}
		return v
	}
	return &hooks{
		listFn:         get("list"),
		statusFn:       get("status"),
		logFn:          get("log"),
		notificationFn: get("notification"),
		updatedFn:      get("updated"),
		beforeDialFn:   get("beforeDial"),
		afterDialFn:    get("afterDial"),
		tokenFn:        get("token"),
		fetchFn:        get("fetch"),
		elicitFn:       get("elicit"),
		diagFn:         get("diag"),
	}
}

// maxListBuf caps the Uint8Array a client keeps for its list messages: a
// bigger message (a whole long list) gets one of its own.
const maxListBuf = 1 << 20

// list hands one list message (JSON) to JS: one crossing per change. The
// bytes are copied into a Uint8Array that the client keeps (JS decodes
// list(bytes, length) with TextDecoder), not passed as a string: a string
// argument costs wasm_exec.js a decode, an entry in its table of values
// (hashing the whole string) and Go a copy and a finalizer.
func (h *hooks) list(msg []byte) {
	h.listMu.Lock()
	defer h.listMu.Unlock()
	buf := h.listBuf
	if len(msg) > h.listCap {
		n := max(len(msg), 2*h.listCap, 4096)
		u, err := uint8Array(n)
		if err != nil {
			consoleError("mcplive: cannot make a Uint8Array: " + err.Error())
			return
		}
		buf = u
		if n <= maxListBuf {
			h.listBuf, h.listCap = u, n
		}
	}
	if _, err := safejs.CopyBytesToJS(buf, msg); err != nil {
		consoleError("mcplive: cannot copy a list message to JS: " + err.Error())
		return
	}
	invoke(h.listFn, buf, len(msg))
}

// uint8Array makes a JS Uint8Array of n bytes.
func uint8Array(n int) (safejs.Value, error) {
	ctor, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return safejs.Undefined(), err
	}
	return ctor.New(n)
}

// status reports a connection state; info is the server's latest
// initialize result when the state is "ready", else nil.
func (h *hooks) status(state mcplive.State, info []byte) {
	if info == nil {
		invoke(h.statusFn, string(state))
		return
	}
	invoke(h.statusFn, string(state), string(info))
}

func (h *hooks) log(m mcplive.LogMessage) {
	defer recoverHook("log")
	b, err := wire.Marshal(m)
	if err != nil {
		return
	}
	invoke(h.logFn, string(b))
}

func (h *hooks) notification(method string, params mcplive.RawMessage) {
	defer recoverHook("notification")
	if len(params) == 0 {
		invoke(h.notificationFn, method)
		return
	}
	invoke(h.notificationFn, method, string(params))
}

func (h *hooks) updated(sub int, uri string) { invoke(h.updatedFn, sub, uri) }

// beforeDial runs right before a dial (see failFast); its result goes back
// to afterDial once the dial returned.
func (h *hooks) beforeDial() safejs.Value {
	if h.beforeDialFn.Type() != safejs.TypeFunction {
		return safejs.Undefined()
	}
	v, err := h.beforeDialFn.Invoke()
	if err != nil {
		consoleError("mcplive: a JS callback threw: " + err.Error())
		return safejs.Undefined()
	}
	return v
}

func (h *hooks) afterDial(token safejs.Value) { invoke(h.afterDialFn, token) }

// recoverHook keeps a panic in a callback that the root package runs on
// its own goroutine from killing the runtime.
func recoverHook(name string) {
	if p := recover(); p != nil {
		reportPanic(name, p)
	}
}

// reportPanic logs a recovered panic with its stack to the console and
// returns the error that rejects the caller's Promise.
func reportPanic(name string, p any) error {
	err := printf.Errorf("internal error in %s (please report it at https://github.com/mcplive/mcplive/issues): %v", name, p)
	consoleError(err.Error() + "\n" + string(stack()))
	return err
}

// stack is runtime/debug.Stack, without runtime/debug (which links fmt
// and os into the wasm).
func stack() []byte {
	buf := make([]byte, 1024)
	for {
		n := runtime.Stack(buf, false)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// consoleError reports to the JS console; it is how a recovered panic or a
// throwing hook gets noticed.
func consoleError(msg string) {
	console, err := safejs.Global().Get("console")
	if err != nil {
		return
	}
	console.Call("error", msg)
}

// invoke calls a JS function value, logging (never panicking) when it throws.
func invoke(fn safejs.Value, args ...any) {
	if fn.Type() != safejs.TypeFunction {
		return
	}
	if _, err := fn.Invoke(args...); err != nil {
		consoleError("mcplive: a JS callback threw: " + err.Error())
	}
}

// invokeWithDone calls fn(done, args...), where done is a one-shot JS
// callback through which JS hands back one string once the app's async
// callback settled (auth.go's token, elicit.go's answer): it returns what
// fn returned and the channel that string arrives on. The Go side waits on
// the channel, never blocking the JS event loop. If fn throws, done is
// released and the error returned.
func invokeWithDone(fn safejs.Value, args ...any) (safejs.Value, <-chan string, error) {
	ch := make(chan string, 1)
	var done safejs.Func
	done, err := safejs.FuncOf(func(_ safejs.Value, a []safejs.Value) any {
		done.Release()
		r, _ := argString(a, 0)
		ch <- r
		return nil
	})
	if err != nil {
		return safejs.Undefined(), nil, err
	}
	ret, err := fn.Invoke(append([]any{done}, args...)...)
	if err != nil {
		done.Release()
		return safejs.Undefined(), nil, err
	}
	return ret, ch, nil
}
