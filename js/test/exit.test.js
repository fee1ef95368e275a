// close() lets Node exit: nothing of a closed client (no WebSocket, no Go
// timer turned setTimeout, no js.Func) keeps the event loop alive. Each case
// runs in a child process that must end by itself.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startServer } from "./helpers.js";

const index = new URL("../index.js", import.meta.url).href;
let server;
before(async () => (server = await startServer()));
after(() => server?.stop());

/** runChild runs an ES module script; it resolves with {code, ms, out} or {alive: true} after limitMs. */
function runChild(script, limitMs) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, WS: server.ws, HTTP: server.http },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve({ alive: true, out });
    }, limitMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, ms: Date.now() - t0, out });
    });
  });
}

test("a client that made calls and closed lets Node exit", async () => {
  const r = await runChild(
    `import { connect } from ${JSON.stringify(index)};
     const c = await connect(process.env.WS, { heartbeat: { intervalMs: 60000, timeoutMs: 30000 } });
     await c.callTool("echo", { text: "x" }, { timeoutMs: 60000 });
     const stop = c.subscribeResource("test://readme", () => {});
     await c.refresh();
     await new Promise((r) => setTimeout(r, 100));
     stop();
     await c.close();
     console.log("closed");`,
    10000,
  );
  assert.ok(!r.alive, `still running 10 s later: ${r.out}`);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /closed/);
  assert.ok(r.ms < 5000, `exited after ${r.ms} ms`);
});

test("two clients, both closed: Node exits", async () => {
  const r = await runChild(
    `import { connect } from ${JSON.stringify(index)};
     const [a, b] = await Promise.all([connect(process.env.WS), connect(process.env.WS)]);
     await Promise.all([a.ping(), b.ping()]);
     await a.close(); await b.close();`,
    10000,
  );
  assert.ok(!r.alive, r.out);
  assert.equal(r.code, 0, r.out);
  assert.ok(r.ms < 5000, `exited after ${r.ms} ms`);
});

test("a failed connect lets Node exit", async () => {
  const r = await runChild(
    `import { connect } from ${JSON.stringify(index)};
     try { await connect("ws://127.0.0.1:9/mcp", { dialTimeoutMs: 500 }); } catch (e) { console.log("rejected", e instanceof Error); }`,
    10000,
  );
  assert.ok(!r.alive, r.out);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /rejected true/);
});

test("an open client keeps Node alive", async () => {
  const child = spawn(process.execPath, ["--input-type=module", "-e", `import { connect } from ${JSON.stringify(index)};
     const c = await connect(process.env.WS); console.log("open");`], { env: { ...process.env, WS: server.ws }, stdio: ["ignore", "pipe", "inherit"] });
  try {
    let out = "";
    await new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error("the child did not connect within 10 s")), 10000);
      child.stdout.on("data", (d) => {
        out += d;
        if (out.includes("open")) (clearTimeout(t), resolve());
      });
      child.once("exit", (code) => reject(new Error(`the child exited (${code}) before connecting`)));
    });
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(child.exitCode, null, "the child exited while its client was open");
  } finally {
    child.kill("SIGKILL");
  }
});
