// Type test of docs/hub.md's first snippet (readme_test.go checks that this
// file ends with it, verbatim). What the snippet takes as given: the app's
// token source and its render functions.
declare function getToken(): Promise<string>;
declare function render(items: readonly unknown[]): void;
declare function renderStatus(servers: readonly unknown[]): void;

import { createHub, localStorageApprovals } from "mcplive";

const hub = createHub({ clientInfo: { name: "my-agent", version: "1.0.0" }, approvals: localStorageApprovals() });
await hub.add("code", "wss://code.example.com/mcp");
await hub.add("docs", "https://docs.example.com/mcp", { token: () => getToken() });

hub.tools.subscribe(({ items, status }) => render(items));   // items: { ...tool, name: "code__search", serverName: "search", server: "code", fingerprint, approval, stale }
hub.servers.subscribe((servers) => renderStatus(servers));   // [{ id, url, status, error, serverInfo, protocolVersion, auth }]
hub.on("change", ({ kind, server, added, removed, changed }) => {
  for (const { item, fields } of changed) console.log(item.name, "changed:", fields);   // e.g. ["description"]
});

await hub.callTool("code__search", { q: "mcp" });
hub.resolve("code__search");                 // { server: "code", name: "search" }
await hub.readResource("docs://readme", { server: "docs" });
await hub.remove("docs");                    // its items leave in one change per kind
