// Package mcplive is an MCP client (spec revisions 2026-07-28 and
// 2025-11-25) that keeps live catalogs of a server's tools, prompts,
// resources and resource templates.
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
// The transport is chosen by the URL's scheme (NewTransport): http:// and
// https:// speak Streamable HTTP (HTTPTransport), the specification's
// transport for remote servers; ws:// and wss:// dial a WebSocket
// (WebSocketTransport: subprotocol "mcp", one JSON-RPC message per text
// frame), the convention of the official SDKs' WebSocket transports.
//
// The protocol revision is negotiated (Options.ProtocolVersion pins one):
// 2026-07-28 first (server/discover; list changes only on a
// subscriptions/listen stream the client opens), falling back to
// initialize and 2025-11-25 for a server of that era.
//
// The package has no cgo: it builds natively and with GOOS=js GOARCH=wasm,
// where the wasm/ binding exposes it to JavaScript. Under js it uses
// syscall/js in two files, as coder/websocket's own browser build: the
// fetch twin of the HTTP round trip (http_js.go, through internal/jsfetch)
// and the WebSocket's text-message hooks (websocket_js.go, through
// internal/textframes); it does not import net/http there (see Header).
// Caveats under WebAssembly: WebSocket pings do not exist in browsers, so a
// dead connection is found by the heartbeat (Options.HeartbeatInterval: MCP
// ping, or server/discover in 2026-07-28); a dial that times out may leave
// the browser's socket to close by itself; close codes are limited to 1000
// and 4000–4999; Streamable HTTP goes through fetch (http_js.go) and is
// subject to CORS.
//
// # Layers
//
// The module's packages from the top; each imports only those below it
// (TestLayers holds every build of the code to this diagram):
//
//	wasm/               the JavaScript binding: lists and calls handed to JS, no protocol logic
//	mcplive             this package: Client and its calls; List, its syncer, walker and diff; Session, its eras and kind registry; the transports (websocket*.go, http*.go)
//	internal/jsonrpc    JSON-RPC 2.0 without MCP: the message codec, Connection (pending calls, dispatcher), call deadlines and the clock, the fifo, the transport contract (Conn, Inbound, Outgoing, the optional interfaces)
//	internal/methods, internal/redact, internal/wire, internal/jsfetch, internal/textframes, internal/listpos  MCP's method names, the URL as errors show it, the writer handed to the binding, the browser's fetch and text frames, where a walk found the last list's items
//	internal/jsontext   JSON that knows nothing of MCP: the scanner, writer and field reader
//	internal/printf     fmt's formatting of the verbs the wasm uses, without fmt
//
// What a lower layer needs of an upper one is handed to it, never named:
// a Connection is handed the session's notification handler, its
// server-request handlers and the JSON encoder; a walk is handed the
// session it lists on. The path of one list_changed through these layers,
// function by function over each transport, is docs/architecture.md,
// generated from a real run by internal/cmd/pathtrace.
package mcplive
