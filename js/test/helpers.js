// Test helpers: the Go test server (internal/cmd/mcplive-testserver) and
// small waits on stores and events.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const BIN = process.env.MCPLIVE_TESTSERVER;

/**
 * startServer runs a test server; it stops with stop() or when this
 * process exits (its stdin closes).
 */
export async function startServer(args = []) {
  if (!BIN) throw new Error("MCPLIVE_TESTSERVER is not set: run the tests with `npm test`");
  const proc = spawn(BIN, args, { stdio: ["pipe", "pipe", "pipe"] });
  const log = [];
  createInterface({ input: proc.stderr }).on("line", (l) => log.push(l));
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  const line = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("test server did not start: " + log.join("\n"))), 10000);
    createInterface({ input: proc.stdout }).once("line", (l) => (clearTimeout(t), resolve(l)));
    proc.once("error", reject);
  });
  const { http, ws } = JSON.parse(line);
  return {
    http,
    ws,
    log,
    /** control posts one control operation (see the server's doc). */
    async control(op, body = {}) {
      const res = await fetch(`${http}/control/${op}`, { method: "POST", body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`control ${op}: HTTP ${res.status}: ${await res.text()}`);
      return res.json();
    },
    async stop() {
      proc.stdin.end();
      await exited;
    },
  };
}

/** waitFor resolves with a store's value once pred(value) holds. */
export function waitFor(store, pred, ms = 5000, what = "store value") {
  return new Promise((resolve, reject) => {
    let off = () => {};
    const t = setTimeout(() => (off(), reject(new Error(`timed out waiting for ${what}; last: ${JSON.stringify(store.get())}`))), ms);
    off = store.subscribe((v) => {
      if (pred(v)) {
        clearTimeout(t);
        queueMicrotask(() => off());
        resolve(v);
      }
    });
  });
}

/** nextEvent resolves with the next client event of type for which pred holds. */
export function nextEvent(client, type, pred = () => true, ms = 5000) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => (off(), reject(new Error(`timed out waiting for a ${type} event`))), ms);
    const off = client.on(type, (ev) => {
      if (pred(ev)) {
        clearTimeout(t);
        off();
        resolve(ev);
      }
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const keys = (value, field = "name") => value.items.map((i) => i[field]).sort();
