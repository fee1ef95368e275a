// The TypeScript SDK v2 client (@modelcontextprotocol/client), the one that
// speaks 2026-07-28, over Streamable HTTP (see ts-sdk.js). v2 registers
// notification handlers by method name.
export { Client, StreamableHTTPClientTransport as Transport } from "@modelcontextprotocol/client";
export const ListChanged = "notifications/tools/list_changed";
