// onElicit: a server's request for user input, answered by the app, in
// every transport and revision (MODES): in 2025-11-25 go-sdk sends the
// server request elicitation/create during the call; in 2026-07-28 the call
// is answered with an input_required result and sent again with the answer.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect } from "../index.js";
import { startServer, MODES, urlFor } from "./helpers.js";

for (const mode of MODES) describe(`onElicit (${mode.name})`, () => {
  let server;
  before(async () => {
    server = await startServer();
    await server.control("add-tool", { name: "ask", ask: true });
  });
  after(async () => {
    await server?.stop();
  });

  test("an accepted form reaches the server, with the schema's defaults", async () => {
    const asked = [];
    const client = await connect(urlFor(server, mode), {
      ...mode.options,
      onElicit: async (request, { signal }) => {
        asked.push(request);
        assert.ok(signal instanceof AbortSignal && !signal.aborted);
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    try {
      const res = await client.callTool("ask", {});
      assert.deepEqual(JSON.parse(res.content[0].text), { action: "accept", content: { name: "Ada", age: 30 } });
      assert.equal(asked.length, 1);
      assert.equal(asked[0].message, "Who are you?");
      assert.deepEqual(Object.keys(asked[0].requestedSchema.properties), ["name", "age"]);
      assert.ok(Object.isFrozen(asked[0]) && Object.isFrozen(asked[0].requestedSchema));
    } finally {
      await client.close();
    }
  });

  test("a declined form; a handler that rejects or gives no action fails the call", async () => {
    let answer = () => ({ action: "decline" });
    const client = await connect(urlFor(server, mode), { ...mode.options, onElicit: () => answer() });
    try {
      const res = await client.callTool("ask", {});
      assert.deepEqual(JSON.parse(res.content[0].text), { action: "decline" });

      answer = () => Promise.reject(new Error("the user closed the tab"));
      await assert.rejects(client.callTool("ask", {}), (err) => {
        assert.ok(err instanceof Error);
        assert.match(err.message, /the user closed the tab/);
        return true;
      });
      answer = () => ({ content: { name: "x" } });
      await assert.rejects(client.callTool("ask", {}), /action/);
      // The client still works.
      assert.equal((await client.callTool("echo", { text: "still here" })).content[0].text, "still here");
    } finally {
      await client.close();
    }
  });
});

describe("onElicit, the options", () => {
  test("onElicit must be a function", async () => {
    await assert.rejects(connect("ws://127.0.0.1:1/mcp", { onElicit: "yes" }), TypeError);
  });

  test("without onElicit a 2026-07-28 call that needs input rejects", async () => {
    const server = await startServer();
    try {
      await server.control("add-tool", { name: "ask", ask: true });
      const client = await connect(server.mcp);
      try {
        await assert.rejects(client.callTool("ask", {}), (err) => {
          assert.equal(err.name, "ProtocolError");
          assert.match(err.message, /elicitation\/create/);
          assert.match(err.message, /incomplete result.*connect was given no onElicit/);
          assert.doesNotMatch(err.message, /Options\.|mcplive:/);
          return true;
        });
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });

  test("the signal aborts when the call is aborted (2026-07-28)", async () => {
    const server = await startServer();
    try {
      await server.control("add-tool", { name: "ask", ask: true });
      let started, abortedWith;
      const waiting = new Promise((resolve) => (started = resolve));
      const aborted = new Promise((resolve) => (abortedWith = resolve));
      const client = await connect(server.ws, {
        onElicit: (_req, { signal }) =>
          new Promise((_, reject) => {
            started();
            signal.addEventListener("abort", () => {
              abortedWith(signal.reason);
              reject(signal.reason);
            });
          }),
      });
      try {
        const ac = new AbortController();
        const call = client.callTool("ask", {}, { signal: ac.signal });
        await waiting;
        ac.abort();
        await assert.rejects(call, { name: "AbortError" });
        const reason = await aborted;
        assert.equal(reason.name, "AbortError");
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });
});
