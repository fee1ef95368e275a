// A server built on the official TypeScript SDK v2 (@modelcontextprotocol/server
// 2.x), served over Streamable HTTP by its own createMcpHandler on node:http,
// in the test's process: the same tools, prompt and resources as the Go test
// server where the tests need them, and a tool list the test changes at run
// time (handler.notify.toolsChanged(): the change reaches the
// subscriptions/listen streams of 2026-07-28 clients).
//
// createMcpHandler builds a fresh McpServer per request from the factory, so
// the current tool set lives here, outside any server instance.
import { createServer } from "node:http";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

/** The CORS headers a page of another origin needs for Streamable HTTP. */
const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
  // X-Api-Key: the extra header of the browser test's headers option.
  "Access-Control-Allow-Headers": "Content-Type, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID, X-Api-Key",
  "Access-Control-Expose-Headers": "Mcp-Session-Id, WWW-Authenticate",
};

/**
 * startTSServer serves the TypeScript SDK server on 127.0.0.1 (a free port).
 * cors: answer preflights and send the CORS headers (for a page of another
 * origin); capabilities: what the server declares. Returns { url,
 * requests, addTool, removeTool, close }.
 */
export async function startTSServer({ cors = true, capabilities = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } } } = {}) {
  const tools = new Map([
    ["echo", { description: "Echoes its text.", run: ({ text }) => text }],
    ["add", { description: "Adds two numbers.", run: ({ a, b }) => String(a + b), schema: { a: z.number(), b: z.number() } }],
  ]);
  const requests = [];

  const factory = () => {
    const s = new McpServer({ name: "ts-sdk-test-server", version: "2.0.0" }, { capabilities });
    for (const [name, t] of tools) {
      s.registerTool(name, { description: t.description, inputSchema: z.object(t.schema ?? { text: z.string() }) }, async (args) => ({
        content: [{ type: "text", text: t.run(args) }],
      }));
    }
    // Registering one declares the capability: only what capabilities has.
    if (capabilities.prompts) s.registerPrompt("greet", { description: "Greets someone.", argsSchema: z.object({ name: z.string() }) }, async ({ name }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }],
    }));
    if (capabilities.resources) s.registerResource("readme", "test://readme", { mimeType: "text/plain" }, async (uri) => ({
      contents: [{ uri: uri.href, text: "hello from the TypeScript SDK" }],
    }));
    return s;
  };
  const handler = createMcpHandler(factory, { onerror: () => {} });

  const server = createServer(async (req, res) => {
    const head = cors ? { ...CORS } : {};
    if (req.method === "OPTIONS") {
      res.writeHead(cors ? 204 : 405, head).end();
      return;
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    requests.push({ method: req.method, headers: req.headers, body: body.toString("utf8") });
    const ac = new AbortController();
    res.on("close", () => ac.abort());
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    let response;
    try {
      response = await handler.fetch(
        new Request(`http://${req.headers.host}${req.url}`, {
          method: req.method,
          headers,
          body: req.method === "GET" || req.method === "HEAD" || body.length === 0 ? undefined : body,
          signal: ac.signal,
        }),
      );
    } catch (err) {
      res.writeHead(500, head).end(String(err));
      return;
    }
    response.headers.forEach((v, k) => (head[k] = v));
    res.writeHead(response.status, head);
    if (!response.body) {
      res.end();
      return;
    }
    try {
      for await (const chunk of response.body) res.write(chunk);
    } catch {
      // the client went away
    }
    res.end();
  });
  const sockets = new Set();
  server.on("connection", (s) => (sockets.add(s), s.on("close", () => sockets.delete(s))));
  await new Promise((r) => server.listen(0, "127.0.0.1", r));

  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    requests,
    /** addTool adds (or replaces) a tool that echoes its text and tells listening clients. */
    addTool(name, description = `tool ${name}`) {
      tools.set(name, { description, run: ({ text }) => text });
      handler.notify.toolsChanged();
    },
    removeTool(name) {
      tools.delete(name);
      handler.notify.toolsChanged();
    },
    async close() {
      await handler.close();
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
