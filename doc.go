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
// Each layer calls only the ones below it; what a layer needs of the one
// above (the session a walk lists on, the handler of notifications, the
// observer of progress) it is handed. Optional transport features sit
// behind interfaces (internal/jsonrpc: DescribedWriter, EntryReader,
// SessionUpdater; transport.go: paramMirror, noteSlots). From the top: list.go (the
// live lists, their syncer and walker), walk.go (a walk's pages and their
// items), session.go (the session, its change feed and the kind
// registry), internal/jsonrpc (messages, calls and their deadlines, the fifo), the
// transports (websocket*.go, http*.go), and internal/jsontext (JSON that
// knows nothing of MCP); queue.go is the subscriber registry. The steps, in call order, as TestDocPathNamesTheCode and
// TestDocPathOrder check them against the code (each names its files and,
// in parentheses, the functions it runs):
//
//  1. websocket.go (wsConn.Read), websocket_native.go (wsConn.readMessage)
//     or, in the browser, websocket_js.go (wsConn.readMessage): the
//     transport reads one message. Over Streamable HTTP: http_stream.go
//     (httpConn.follow, httpConn.readEvents, sseReader.next), http.go
//     (httpConn.enqueue, httpConn.ReadEntry); a stream re-opened without
//     an event id to resume from is a gap (entryReader), which the session
//     turns into the list_changed of every kind (session.go,
//     onEventsMissed).
//  2. internal/jsonrpc/conn.go (Connection.readLoop),
//     internal/jsonrpc/message.go (Decode, parseEnvelope),
//     internal/jsontext/scan.go (ForEachMemberWith), session.go
//     (Session.observe), internal/jsonrpc/fifo.go (Fifo.Push, Fifo.Pop),
//     internal/jsonrpc/conn.go (Connection.dispatchLoop): the envelope is checked by the JSON scanner;
//     the read loop shows the notification to the session's observer
//     (which routes a progress to its call), stamps it with its arrival
//     and queues it; the dispatcher hands it, in arrival order, to the
//     session's handler.
//  3. session.go (Session.handleNotification, Session.onListChanged,
//     kindsInvalidatedBy, specOf): the kind registry (kindTable) names the
//     kinds the notification invalidates; the session checks that the
//     server offers them and hands them to its change feed (changeFeed).
//     In 2026-07-28 the same notification arrives on the
//     subscriptions/listen stream (listen.go) and takes the same path.
//  4. list.go (Client.listChanged, syncer.trigger, syncer.loop,
//     syncer.serve, walker.run, sessionSlot.current): the Client's feed
//     triggers the syncer of each kind: single flight, one more walk for
//     triggers during a walk; the walker takes the current session and its
//     epoch from the slot it was handed.
//  5. walk.go (relist, Session.listRaw), session.go (Session.requestPage,
//     requestVia), internal/jsonrpc/conn.go (Connection.CallUnchecked,
//     Connection.exchange, Connection.write), internal/jsonrpc/message.go
//     (MarshalMessage), internal/jsontext/write.go
//     (WriteString): every page is requested; the session writes its
//     params (listParams, with the era's _meta in 2026-07-28), which write
//     themselves into the message (paramsWriter), and a transport that
//     takes the message's description (describedWriter: Streamable HTTP)
//     is handed it with its bytes.
//  6. websocket.go (wsConn.Write), websocket_native.go
//     (wsConn.writeMessage), or http.go (httpConn.WriteDescribed,
//     httpConn.writePost, httpConn.send, httpConn.sendOnce), http_native.go
//     (netRoundTripper.roundTrip): the request goes out; its response
//     comes back as in steps 1 and 2 (over Streamable HTTP on the POST's
//     own stream, http_stream.go), and internal/jsonrpc/conn.go
//     (Connection.deliver) hands
//     it to the waiting request.
//  7. internal/jsonrpc/message.go (IndexResult),
//     internal/jsontext/scan.go (SplitArrayAt),
//     walk.go (parseListPage, rawBuild.add, Session.listed): the result is
//     indexed as its message is decoded, its items array split in place;
//     only new or changed items are validated and keyed, and nothing is
//     decoded; in 2026-07-28 over Streamable HTTP the tools list goes
//     through the transport's paramMirror, http_params.go
//     (httpConn.toolsListed), which reads each new tool's x-mcp-header
//     marks once and keeps them in the item's slot (noteSlots).
//  8. list.go (sessionSlot.ifCurrent, list.apply, diff, list.publish),
//     queue.go (watchers.publish): unless a newer session has taken over,
//     the list swaps the items, computes the diff and queues one update for
//     the watchers registered now.
//  9. queue.go (Client.eventLoop, Client.safeCall, watchers.still): the
//     Client's event goroutine runs what the lists queued: their watchers
//     that are registered still, in order.
//  10. wasm/lists.go (watchList, listMsg.encode), wasm/hooks.go
//     (hooks.list): the binding's watcher (List.WatchView) encodes the
//     change (keys, added and changed items' raw JSON, removed keys, cause,
//     latency) and hands it to JS in one crossing.
//  11. js/src/lists.js (createLists, hook, apply): the hook that
//     createLists handed the binding applies the message: a new frozen
//     items array that reuses the objects of unchanged items.
//  12. js/src/store.js (set): the store calls every subscriber.
//
// Measured by TestPathTrace with internal/cmd/pathtrace (the functions of
// the root package and internal/jsontext whose coverage count grows when
// a go-sdk server adds one tool to a one-page list, watched as the binding
// watches it; add the 2 wasm and 2 JS files above): over WebSocket in
// 2025-11-25, 9 files and 87 functions; over Streamable HTTP in
// 2026-07-28, 11 files and 123 or 124 functions (whether a call context's
// Err is asked on the way depends on timing; docs/architecture.md has the
// lists and the counts before). No call goes back up: the walker takes the
// session, its epoch and the apply-if-current from the sessionSlot it is
// handed, the session hands a tools list down to the transport's
// paramMirror, and the transport is handed each message's description.
package mcplive
