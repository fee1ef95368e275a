// The official TypeScript SDK client as a browser app ships it: Client and
// WebSocketClientTransport (plus the notification schema that a
// re-list-on-every-notification app registers a handler for). run.mjs bundles
// this file with esbuild (minified) into dist/ts-sdk.js and measures its
// brotli size.
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
export { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
