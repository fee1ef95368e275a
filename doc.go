// Package mcplive is an MCP client (spec revision 2025-11-25) that keeps live
// catalogs of a server's tools, prompts, resources and resource templates.
//
// MCP servers change what they offer while a client is connected and say so
// with notifications/{tools,prompts,resources}/list_changed. A Client
// answers each by re-listing every page and swapping the list atomically;
// subscribers see one Update per applied change with its diff. It
// reconnects when the connection drops and re-lists from scratch.
//
//	c, err := mcplive.Connect(ctx, "ws://127.0.0.1:8080/mcp", nil)
//	if err != nil { … }
//	defer c.Close()
//	c.Tools().Subscribe(func(u mcplive.Update[mcplive.Tool]) { … })
//	res, err := c.CallTool(ctx, "echo", map[string]any{"text": "hi"}, nil)
//
// The transport is a WebSocket (subprotocol "mcp", one JSON-RPC message per
// text frame), the convention of the official SDKs' WebSocket transports;
// WebSocket is not (yet) a transport of the MCP specification.
//
// The package has no cgo and no syscall/js: it builds natively and with
// GOOS=js GOARCH=wasm, where the wasm/ binding exposes it to JavaScript.
// Caveats under WebAssembly: WebSocket pings do not exist in browsers, so a
// dead connection is found by the MCP ping heartbeat (Options
// .HeartbeatInterval); a dial that times out may leave the browser's socket
// to close by itself; close codes are limited to 1000 and 4000–4999.
package mcplive
