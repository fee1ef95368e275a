// The logger option: the client's diagnostics (a dropped connection, an
// ended listen stream, a tool left out of the list) reach the app's logger
// (console fits), in every transport and revision (MODES).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect } from "../index.js";
import { startServer, MODES, urlFor, waitFor, recorder } from "./helpers.js";

const FAST = { reconnect: { initialDelayMs: 20, maxDelayMs: 100 } };

for (const mode of MODES) describe(`logger (${mode.name})`, () => {
  let server;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
  });

  test("a dropped connection is a warning with its attributes; the client comes back", async () => {
    const warnings = recorder();
    const client = await connect(urlFor(server, mode), {
      ...mode.options,
      ...FAST,
      logger: { warn: (message, attrs) => warnings.push({ message, attrs }) },
    });
    try {
      await server.control("drop");
      const w = await warnings.next((w) => /^mcplive: (connection lost|the subscriptions\/listen stream ended|the server ended)/.test(w.message));
      assert.equal(typeof w.attrs, "object");
      assert.ok(Object.isFrozen(w.attrs), "attrs are frozen");
      assert.ok(!Array.isArray(w.attrs));
      await waitFor(client.status, (s) => s === "ready", 15000, "ready after the drop");
    } finally {
      await client.close();
    }
  });

  test("a logger that throws, or lacks the level, breaks nothing", async () => {
    let threw = 0;
    const client = await connect(urlFor(server, mode), {
      ...mode.options,
      ...FAST,
      logger: {
        info() {},
        error() {},
        get warn() {
          threw++;
          return () => {
            throw new Error("the app's logger failed");
          };
        },
      },
    });
    try {
      await server.control("drop");
      await waitFor(client.status, (s) => s === "reconnecting", 15000, "reconnecting");
      await waitFor(client.status, (s) => s === "ready", 15000, "ready after the drop");
      assert.ok(threw > 0, "the warn method was looked up");
      const r = await client.callTool("echo", { text: "still here" });
      assert.equal(r.content[0].text, "still here");
    } finally {
      await client.close();
    }
  });
});

test("logger must have info, warn or error", async () => {
  for (const bad of [null, "console", 1, {}, { warn: "no" }, { log() {} }]) {
    await assert.rejects(connect("ws://127.0.0.1:1/mcp", { logger: bad }), (err) => err instanceof TypeError && /logger must be an object/.test(err.message), String(bad));
  }
});
