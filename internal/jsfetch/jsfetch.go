//go:build js && wasm

// Package jsfetch holds the JavaScript fetch functions that apps give for
// their servers (the JS fetch option), by id. A transport's headers carry
// only strings, so the binding (wasm/) registers the function here and
// names it in the pseudo-header Header; the Streamable HTTP transport's
// browser twin (http_js.go) calls it instead of the global fetch.
package jsfetch

import (
	"strconv"
	"sync/atomic"
	"syscall/js"
)

// Header is the pseudo-header that names a registered fetch; it never
// travels (http_js.go takes it out, as it does js.fetch:credentials).
const Header = "js.fetch:fn"

// fns is a JavaScript Map of id → function: a Go map of js.Value would
// cost the wasm more than this whole feature.
var (
	fns  = js.Global().Get("Map").New()
	next atomic.Uint64
)

// Register keeps fn until release is called, and returns its id.
func Register(fn js.Value) (id string, release func()) {
	id = strconv.FormatUint(next.Add(1), 10)
	fns.Call("set", id, fn)
	return id, func() { fns.Call("delete", id) }
}

// Get returns the function registered as id.
func Get(id string) (js.Value, bool) {
	fn := fns.Call("get", id)
	return fn, fn.Type() == js.TypeFunction
}
