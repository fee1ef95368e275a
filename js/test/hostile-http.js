// A misbehaving Streamable HTTP server (2025-11-25) for the JS tests of
// issue 31: it answers initialize, notifications, tools/list and DELETE as
// a server should, and each tools/call by the fault its tool's name picks
// (a body cut mid-way, invalid JSON, a wrong id). The GET stream and the
// redirects are set by `faults`. Every request is recorded.
import http from "node:http";

/**
 * @param {object} faults
 * @param {"405"|"cut"|"stream"|"nocors"} [faults.get] what a GET gets (default 405; "nocors": a
 *   stream without the CORS headers, which a browser refuses)
 * @param {string} [faults.origin] an Access-Control-Allow-Origin to send (browser tests)
 */
export async function startHostileHTTP(faults = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => handle(req, res, body));
  });
  const cors = (res) => {
    if (!faults.origin) return;
    res.setHeader("Access-Control-Allow-Origin", faults.origin);
    res.setHeader("Access-Control-Allow-Headers", "*, Authorization");
    res.setHeader("Access-Control-Allow-Methods", "GET, POST, DELETE");
    res.setHeader("Access-Control-Expose-Headers", "Mcp-Session-Id");
  };
  const json = (res, status, v) => {
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(typeof v === "string" ? v : JSON.stringify(v));
  };
  function handle(req, res, body) {
    const url = new URL(req.url, "http://x");
    let msg = {};
    try {
      msg = JSON.parse(body);
    } catch {}
    requests.push({ method: req.method, path: url.pathname, rpc: msg.method, headers: req.headers, body });
    if (req.method === "OPTIONS") {
      cors(res);
      res.writeHead(204);
      return res.end();
    }
    if (!(req.method === "GET" && faults.get === "nocors")) cors(res);
    // Redirects: /same → /mcp (307), /loop → /loop, /moved → /mcp (301),
    // /away → faults.away (another origin).
    const redirect = { "/same": [307, "/mcp"], "/loop": [308, "/loop2"], "/loop2": [308, "/loop"], "/moved": [301, "/mcp"], "/away": [307, faults.away] }[url.pathname];
    if (redirect) {
      res.writeHead(redirect[0], { Location: redirect[1] });
      return res.end();
    }
    if (url.pathname === "/bigheader") {
      res.writeHead(200, { "Content-Type": "application/json", "X-Big": "x".repeat(70000) });
      return res.end("{}");
    }
    if (req.method === "DELETE") {
      res.writeHead(204);
      return res.end();
    }
    if (req.method === "GET") {
      if (faults.get === "cut") return req.socket.destroy();
      if (faults.get === "stream" || faults.get === "nocors") {
        res.writeHead(200, { "Content-Type": "text/event-stream" });
        res.write(": open\n\n");
        return;
      }
      res.writeHead(405);
      return res.end();
    }
    if (!msg.id && msg.id !== 0) {
      res.writeHead(202);
      return res.end();
    }
    const result = (r) => json(res, 200, { jsonrpc: "2.0", id: msg.id, result: r });
    switch (msg.method) {
      case "initialize":
        res.setHeader("Mcp-Session-Id", "s-1");
        return result({ protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } }, serverInfo: { name: "hostile", version: "1" } });
      case "server/discover":
        return json(res, 200, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "method not found" } });
      case "ping":
        return result({});
      case "tools/list":
        return result({ tools: ["ok", "slow", "cut", "badjson", "wrongid", "batch"].map((name) => ({ name, inputSchema: { type: "object" } })) });
      case "tools/call":
        switch (msg.params?.name) {
          case "slow":
            return setTimeout(() => result({ content: [{ type: "text", text: "slow done" }] }), 300);
          case "cut":
            res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "1000" });
            res.write(`{"jsonrpc":"2.0","id":${msg.id},"result":{"content":[`);
            return setTimeout(() => req.socket.destroy(), 20);
          case "badjson":
            return json(res, 200, `{"jsonrpc":"2.0","id":${msg.id},"result":{oops}}`);
          case "wrongid":
            return json(res, 200, { jsonrpc: "2.0", id: 999, result: {} });
          case "batch":
            return json(res, 200, [{ jsonrpc: "2.0", id: msg.id, result: {} }]);
        }
        return result({ content: [{ type: "text", text: "ok" }] });
    }
    json(res, 200, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "method not found" } });
  }
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    url: `${base}/mcp`,
    requests,
    faults,
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections?.();
        server.close(r);
      }),
  };
}
