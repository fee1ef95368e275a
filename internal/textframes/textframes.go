//go:build js

// Package textframes holds the JS functions through which the WebSocket
// connections of a js/wasm program read and send their text messages: the
// wasm binding (package main in wasm/, frames.go) sets them, once, before
// the first connect; package mcplive (websocket_js.go) hands them to every
// connection it dials afterwards. Undefined (the zero js.Value): none, and
// messages come and go as JS strings.
package textframes

import "syscall/js"

var (
	// Reader is a JS function (MessageEvent, addr, cap) → number |
	// undefined that encodes the UTF-8 bytes of a text message into this
	// program's memory at addr (TextEncoder.encodeInto) when they fit in
	// cap bytes and returns their count, returns -n (n > cap) when they
	// need up to n bytes, and returns undefined for any other message: a
	// message then reaches Go as one encode and one copy, instead of a JS
	// string that wasm_exec.js enters in its table of values (hashing it
	// whole) and Go decodes and copies twice. The npm package's loader
	// sets one. It takes effect only with a coder/websocket that has
	// Conn.SetTextReader (the copy that wasm/modfile.sh patches); with
	// upstream's, messages come as strings.
	Reader js.Value

	// Writer is a JS function (WebSocket, addr, len) → undefined that
	// decodes the len UTF-8 bytes at addr in this program's memory
	// (TextDecoder) and sends them with WebSocket.send: a message then
	// leaves Go as one decode, instead of a Go string copied from the
	// message that wasm_exec.js decodes and enters in its table of values,
	// with a finalizer to take it out again. The npm package's loader sets
	// one. It takes effect only with a coder/websocket that has
	// Conn.SetTextWriter (wasm/modfile.sh).
	Writer js.Value
)
