//go:build js && wasm

// Command wasm is the JavaScript binding of mcplive, built into
// js/mcplive.wasm. It holds no protocol logic: it hands the root package's
// live client to JS through github.com/hack-pad/safejs.
//
// main registers one object, globalThis.__mcplive, which the npm package's
// loader takes (and deletes) right after starting the Go program. One Go
// runtime serves every client of a JS realm.
//
//	connect(url, optionsJSON, hooks, requestID, clientID) → Promise<string>  // server info
//	call(clientID, requestID, op, argsJSON, timeoutMs, onProgress?) → Promise<string|undefined>
//	abort(requestID)                                      // cancels that request's context
//	close(clientID) → Promise<undefined>
//
// JS chooses the client id before connecting, so every hook call can be
// acted on, even one that comes before connect resolves. An operation is
// one entry of the ops table (ops.go), with its own arguments type. A
// rejection carries an error description as JSON ({name, message, code?,
// data?}, worded for JS: errors.go) that JS turns into an Error.
//
// hooks is an object of JS functions that Go calls synchronously, in order:
// list(json) once per applied list change (one crossing per change, never
// one per item), status(state, infoJSON), log(json),
// notification(method, paramsJSON), updated(subscriptionID, uri), and
// beforeDial() / afterDial(token) around each dial (dial.go), and, when the
// app passed a token callback, token(refusedJSON?) → Promise<string> before
// each Streamable HTTP request (auth.go; Go awaits it on its own goroutine).
//
// Test builds (-tags mcplivetest) add debugPanic (debug.go).
//
// Caveats of the wasm build:
//   - A Go panic that escapes kills the runtime for the whole page, so every
//     exported function and every goroutine started here recovers: the panic
//     becomes a rejected Promise and a console error.
//   - JS functions that Go exports must never block: each starts a goroutine
//     and returns a Promise at once.
//   - A Go timer becomes a JS setTimeout that stays scheduled after the timer
//     is stopped; the JS loader unrefs those (in Node) while no client is
//     open, so that a closed client lets Node exit.
package main

import (
	"github.com/hack-pad/safejs"
)

func main() {
	// The loader starts the program with GOGC=25 (js/src/loader.js: a
	// collection at +25% of the live heap instead of +100%, since a wasm
	// linear memory never shrinks), in its environment rather than with
	// runtime/debug.SetGCPercent here: runtime/debug links fmt and os.
	if err := register(safejs.Global()); err != nil {
		consoleError("mcplive: cannot register the JS API: " + err.Error())
		return
	}
	select {} // serve JS calls until the page goes away
}
