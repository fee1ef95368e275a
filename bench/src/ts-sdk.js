// The official TypeScript SDK client as a browser app ships it: Client and
// WebSocketClientTransport (plus the notification schema that a
// re-list-on-every-notification app registers a handler for). run.mjs bundles
// each src/ts-sdk*.js with esbuild (minified) into dist/ and measures its
// brotli size; every bundle exports Client, Transport and ListChanged.
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { WebSocketClientTransport as Transport } from "@modelcontextprotocol/sdk/client/websocket.js";
export { ToolListChangedNotificationSchema as ListChanged } from "@modelcontextprotocol/sdk/types.js";
