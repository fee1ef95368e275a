// close() lets Node exit: nothing of a closed client (no WebSocket, no Go
// timer turned setTimeout, no js.Func) keeps the event loop alive. Each case
// runs in a child process that must end by itself (within 10 s, the limit
// after which runChild kills it; no case waits for time to pass).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startServer } from "./helpers.js";

const index = new URL("../index.js", import.meta.url).href;
let server;
before(async () => (server = await startServer()));
after(() => server?.stop());

/** runChild runs an ES module script; it resolves with {code, out} or {alive: true} after limitMs. */
function runChild(script, limitMs) {
  return new Promise((resolve) => {
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
      resolve({ code, out });
    });
  });
}

test("a client that made calls and closed lets Node exit", async () => {
  const r = await runChild(
    `import { connect } from ${JSON.stringify(index)};
     const c = await connect(process.env.WS, { heartbeat: { intervalMs: 60000, timeoutMs: 30000 } });
     await c.callTool("echo", { text: "x" }, { timeoutMs: 60000 });
     let subscribed;
     const first = new Promise((r) => (subscribed = r));
     const stop = c.subscribeResource("test://readme", () => subscribed());
     await c.refresh();
     await first;
     stop();
     await c.close();
     console.log("closed");`,
    10000,
  );
  assert.ok(!r.alive, `still running 10 s later: ${r.out}`);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /closed/);
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
});

test("a failed connect lets Node exit", async () => {
  const r = await runChild(
    `import { connect } from ${JSON.stringify(index)};
     try { await connect("ws://127.0.0.1:9/mcp", { dialTimeoutMs: 60000 }); } catch (e) { console.log("rejected", e.name); }`,
    10000,
  );
  assert.ok(!r.alive, r.out);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /rejected DialError/);
});

test("an open client keeps Node alive", async () => {
  // The child connects and prints "open", then only its client can keep it
  // running: it must still be there to print the change the server makes
  // after that.
  const child = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { connect } from ${JSON.stringify(index)};
       const c = await connect(process.env.WS);
       c.on("change", (ev) => console.log("changed", ev.added.map((t) => t.name).join()));
       console.log("open");`,
    ],
    { env: { ...process.env, WS: server.ws }, stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    const waitFor = (text) =>
      new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`the child did not print ${JSON.stringify(text)} within 10 s: ${out}`)), 10000);
        const check = () => out.includes(text) && (clearTimeout(t), resolve());
        child.stdout.on("data", check);
        child.once("exit", (code) => reject(new Error(`the child exited (${code}) before printing ${JSON.stringify(text)}: ${out}`)));
        check();
      });
    await waitFor("open");
    await server.control("add-tool", { name: "keep-alive" });
    await waitFor("changed keep-alive");
    assert.equal(child.exitCode, null);
  } finally {
    child.kill("SIGKILL");
    await server.control("remove-tool", { name: "keep-alive" });
  }
});
