// The demo server for the browser tests: built once per test process from
// ../demo into a temporary folder, run on 127.0.0.1 with a known admin
// token and -js pointing at ../js (the built npm package), and stopped and
// started again on the same port for the reconnect test.
import { spawn, execFile } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const ADMIN_TOKEN = "e2e-admin-token";

let built = null;

// One exit hook kills every server still running (one hook per server would
// trip Node's MaxListeners warning in a file with many tests).
const running = new Set();
process.once("exit", () => {
  for (const kill of running) kill();
});

/** buildDemo runs `go build -o <tmp>/demo ./demo` once per process. */
export function buildDemo() {
  if (!built) {
    built = (async () => {
      if (!existsSync(join(ROOT, "js", "mcplive.wasm"))) {
        throw new Error("js/mcplive.wasm is missing: run ../build.sh first (./build.sh test does)");
      }
      const dir = mkdtempSync(join(tmpdir(), "mcplive-e2e-"));
      const bin = join(dir, "demo");
      await promisify(execFile)("go", ["build", "-o", bin, "./demo"], { cwd: ROOT, timeout: 300_000 });
      process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
      return bin;
    })();
  }
  return built;
}

/** freePort asks the kernel for a free port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * startDemo starts a demo server on a free port (or the given one) and
 * resolves once it serves the page. stop() sends SIGTERM and waits for the
 * exit; restart() starts it again on the same port.
 */
export async function startDemo({ port, args = [] } = {}) {
  const bin = await buildDemo();
  port ??= await freePort();
  const addr = `127.0.0.1:${port}`;
  const log = [];
  const waiters = new Set();
  /** waitLog resolves with the first line of the server's stderr, logged or still to come, that match(line) accepts. */
  function waitLog(match) {
    const seen = log.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const w = { match, resolve: (l) => (waiters.delete(w), resolve(l)) };
      waiters.add(w);
    });
  }
  let proc = null;
  let exited = null;

  async function launch() {
    proc = spawn(bin, ["-addr", addr, "-admin-token", ADMIN_TOKEN, "-js", join(ROOT, "js"), ...args], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const p = proc;
    createInterface({ input: p.stderr }).on("line", (l) => {
      log.push(l);
      for (const w of waiters) if (w.match(l)) w.resolve(l);
    });
    exited = new Promise((resolve) => p.once("exit", resolve));
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (p.exitCode !== null) throw new Error(`demo server exited (${p.exitCode}):\n${log.join("\n")}`);
      try {
        const res = await fetch(`http://${addr}/`);
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`demo server did not start on ${addr}:\n${log.join("\n")}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function stop() {
    if (!proc || proc.exitCode !== null) return;
    proc.kill("SIGTERM");
    const t = setTimeout(() => proc.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(t);
  }

  /** control calls the control API with the admin token. */
  async function control(method, path, body) {
    const res = await fetch(`http://${addr}/control/${path}`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} /control/${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }

  await launch();
  running.add(() => proc?.kill("SIGKILL"));
  return { url: `http://${addr}`, ws: `ws://${addr}/mcp`, port, log, waitLog, stop, restart: launch, control };
}
