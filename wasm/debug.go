//go:build js && wasm && mcplivetest

package main

import "github.com/hack-pad/safejs"

// debugPanic exists in test builds only (go build -tags mcplivetest, which
// js/test/run.js makes for the JS tests; the shipped js/mcplive.wasm has
// none of it). It lets the tests check that a Go panic rejects the call and
// the runtime lives on, both in an exported function (exportFunc) and in
// the goroutine of a call (promise).
func init() {
	exports = append(exports, export{"debugPanic", func(*bridge, []safejs.Value) any {
		panic("debugPanic: a panic on purpose")
	}})
	ops = append(ops, op{"debugPanic", "debugPanic", func(*call) (any, error) {
		panic("debugPanic: a panic on purpose")
	}})
}
