// The TypeScript SDK 1.x client over Streamable HTTP: Client and
// StreamableHTTPClientTransport (see ts-sdk.js).
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { StreamableHTTPClientTransport as Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { ToolListChangedNotificationSchema as ListChanged } from "@modelcontextprotocol/sdk/types.js";
