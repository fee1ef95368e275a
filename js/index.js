// mcplive: an MCP client for web apps, browser-based agents and Node, written in
// Go and compiled to WebAssembly. It keeps reactive stores of a server's tools,
// prompts, resources and resource templates in sync over Streamable HTTP
// (http://, https://) or a WebSocket (ws://, wss://), in MCP 2025-11-25 and
// 2026-07-28. See index.d.ts for the API.
export { connect, open } from "./src/connect.js";
export { createHub, memoryApprovals, localStorageApprovals, toolResultFor } from "./src/hub.js";
export { viaBridge } from "./src/bridge.js";
