// A Go panic never escapes: it rejects the call and the runtime lives on.
// This needs the test build of the wasm (go build -tags mcplivetest, made by
// test/run.js): its debugPanic hook (wasm/debug.go) is not in the shipped
// wasm. Its own file, so that its process loads that build first.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect } from "../index.js";
import { loadRuntime } from "../src/loader.js";
import { startServer } from "./helpers.js";

const wasmUrl = process.env.MCPLIVE_TEST_WASM;
let server, client;
before(async () => {
  assert.ok(wasmUrl, "MCPLIVE_TEST_WASM is not set: run the tests with `npm test`");
  server = await startServer();
  client = await connect(server.ws, { wasmUrl });
});
after(async () => {
  await client?.close();
  await server?.stop();
});

test("a Go panic rejects the call and the runtime lives on", async (t) => {
  const errors = [];
  t.mock.method(console, "error", (...a) => errors.push(a.join(" ")));
  const rt = await loadRuntime(wasmUrl);
  const panics = [
    // in the exported function itself (wasm/bridge.go's exportFunc)
    () => rt.api.debugPanic(),
    // in the goroutine that runs a call (wasm/promise.go); this process's
    // first client has id 1
    () => rt.api.call(1, 0, "debugPanic", "{}", 0),
  ];
  for (const panic of panics) {
    errors.length = 0;
    await assert.rejects(rt.call(panic), (err) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /^internal error in debugPanic \(please report it at .*\): debugPanic: a panic on purpose$/);
      assert.doesNotMatch(err.stack, /wasm:\/\//, "no wasm frames in the Error's stack");
      return true;
    });
    assert.ok(errors.some((e) => e.includes("debugPanic") && e.includes("goroutine")), "the panic is logged with its stack");
  }
  assert.equal(await client.ping(), undefined);
});

test("the shipped wasm has no debugPanic", async () => {
  const { readFile } = await import("node:fs/promises");
  const shipped = await readFile(new URL("../mcplive.wasm", import.meta.url));
  const test = await readFile(wasmUrl);
  assert.ok(test.includes("debugPanic"), "the test build has it (the check can fail)");
  assert.ok(!shipped.includes("debugPanic"), "js/mcplive.wasm contains debugPanic");
});
