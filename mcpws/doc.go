// Package mcpws serves MCP servers of the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) over WebSocket, and connects go-sdk
// clients to such endpoints.
//
// WebSocket is not (yet) a transport of the MCP specification. This package
// follows the convention of the official TypeScript SDK's WebSocket client:
//
//   - the subprotocol is "mcp";
//   - every JSON-RPC message travels in its own UTF-8 text frame;
//   - batches (a JSON array) and binary frames are protocol errors.
//
// [Handler] is an HTTP handler ([net/http.Handler]) that accepts WebSocket connections and
// gives each its own [mcp.ServerSession], on an [mcp.Server] that a factory
// function returns per connection (so per-connection state such as a login
// or a role is easy). [ClientTransport] dials such an endpoint for a go-sdk
// [mcp.Client]; [Transport] wraps a WebSocket connection you accepted or
// dialed yourself.
//
// # Close codes
//
// Browsers let a page send only the close codes 1000 and 3000–4999, and some
// WebSocket clients handle nothing else well, so this package closes only
// with [websocket.StatusNormalClosure] (1000) or a code of the private range,
// built as 4000 plus the matching standard code: [StatusProtocolError] (4002),
// [StatusUnsupportedData] (4003), [StatusMessageTooBig] (4009) and
// [StatusInternalError] (4011). The close reason says what went wrong.
// (A peer that breaks the WebSocket framing itself is still closed by
// github.com/coder/websocket with its standard code, e.g. 1002.)
//
// # Security
//
// Browsers let any page open a WebSocket to any host, with the user's
// cookies; the Origin header is the only defence. [Handler] accepts the
// request's own origin and the origins matched by
// [HandlerOptions.OriginPatterns], answers 403 Forbidden to every other
// origin, and accepts requests without an Origin header (they do not come
// from a browser page). Browsers cannot set headers on a WebSocket:
// credentials travel in the URL (read it in the server factory) or in a
// subprotocol.
package mcpws
