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
// where the wasm/ binding exposes it to JavaScript. Its one use of
// syscall/js is the fetch twin of the HTTP round trip (http_js.go), as
// coder/websocket's own browser build; under js it does not import
// net/http (see Header).
// Caveats under WebAssembly: WebSocket pings do not exist in browsers, so a
// dead connection is found by the heartbeat (Options.HeartbeatInterval: MCP
// ping, or server/discover in 2026-07-28); a dial that times out may leave
// the browser's socket to close by itself; close codes are limited to 1000
// and 4000–4999; Streamable HTTP goes through fetch (http_js.go) and is
// subject to CORS.
//
// # The path of one list_changed
//
// Each layer calls only the one below it (or, for the pages, the session
// below it); nothing goes back up.
//
//  1. websocket.go (or http.go): the Conn's Read returns the message.
//  2. jsonrpc.go: rpcConn.readLoop checks the envelope (parseEnvelope, in
//     jsonscan.go), stamps the notification's arrival and queues it; the
//     dispatcher goroutine hands it, in arrival order, to the session.
//  3. feed.go: Session.handleNotification looks the method up in
//     notificationHandlers; onListChanged turns it into an invalidation of
//     the kinds the kind registry (kinds.go) ties to it, checks that the
//     server offers them, and hands it to the session's change feed. In
//     2026-07-28 the same notification arrives on the subscriptions/listen
//     stream (listen.go) and takes the same path.
//  4. sync.go: the Client's feed (Client.listChanged) triggers the syncer of
//     each kind: single flight, one more walk for triggers during a walk;
//     the walk lists every page on the current session (walk.go: following
//     nextCursor, guarding against repeated cursors and endless walks,
//     decoding only new or changed items) and applies the result unless a
//     newer session has taken over.
//  5. list.go: List.apply swaps the items, computes the diff and queues one
//     Update for the subscribers on the client's event goroutine.
//  6. wasm/lists.go: the binding's watcher encodes the change (keys, added
//     and changed items' raw JSON, removed keys, cause, latency) and hands
//     it to JS in one crossing (the list hook, wasm/hooks.go).
//  7. js/src/lists.js: the hook (set up in js/src/client.js) applies the
//     message: a new frozen items array that reuses the objects of
//     unchanged items.
//  8. js/src/store.js: the store's set calls every subscriber.
package mcplive
