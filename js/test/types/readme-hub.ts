// Type test of README.md's hub snippet (readme_test.go checks that this file
// ends with it, verbatim).

import { createHub } from "mcplive";

const hub = createHub({ clientInfo: { name: "my-agent", version: "1.0.0" } });
await hub.add("code", "https://code.example.com/mcp");
await hub.add("docs", "ws://127.0.0.1:9000/mcp");

hub.tools.subscribe(({ items }) => console.log(items.map((t) => t.name))); // "code__search", "docs__read", …
const tools = hub.toolsFor("anthropic"); // or "openai-chat", "openai-responses", "ai-sdk"
await hub.callTool("code__search", { q: "mcp" }); // routed to the server "code"
