// mcplive/oauth: MCP authorization (OAuth 2.1) for connect(), in browsers,
// workers and Node, on oauth4webapi. See index.d.ts.
export { oauth } from "./auth.js";
export { handleCallback } from "./browser.js";
export { OAuthError } from "./errors.js";
export { memoryStorage, sessionStorageAdapter, localStorageAdapter, indexedDBStorage } from "./storage.js";
export { clientCredentials } from "./machine.js";
