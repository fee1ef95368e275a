// mcplive: live MCP catalogs over a WebSocket. See index.d.ts for the API.
export { connect } from "./src/connect.js";
export { createHub, memoryApprovals, localStorageApprovals, toolResultFor } from "./src/hub.js";
