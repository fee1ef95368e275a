// The lists follow changes through resource subscriptions against a go-sdk
// v1.8 server served as is (-bare-listen: without mcpws.ListenOverlap):
// each subscribe and unsubscribe replaces the subscriptions/listen stream,
// and go-sdk's clean-up of the replaced stream drops the registrations of
// its successor over one WebSocket connection. The client finds that out
// and replaces its streams one after the other (listen.go,
// relistenSerially); over Streamable HTTP nothing is shared.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect } from "../index.js";
import { startServer, waitFor, keys, recorder, MODES, urlFor } from "./helpers.js";

for (const mode of MODES.filter((m) => m.version === "2026-07-28")) {
  describe(`the lists through resource subscriptions, bare go-sdk (${mode.name})`, () => {
    let server, client;
    before(async () => {
      server = await startServer(["-bare-listen"]);
      client = await connect(urlFor(server, mode), mode.options);
    });
    after(async () => {
      await client?.close();
      await server?.stop();
    });

    test("subscribe, subscribe again, unsubscribe: every tool added reaches the list", async () => {
      const tools = keys(client.tools.get());
      const addTool = async (name) => {
        await server.control("add-tool", { name });
        tools.push(name);
        await waitFor(client.tools, (v) => v.status === "ready" && keys(v).length === tools.length && tools.every((t) => keys(v).includes(t)), 10000, `tools with ${name}`);
      };
      const readme = recorder();
      const notes = recorder();
      const stopReadme = client.subscribeResource("test://readme", (c) => readme.push(c[0].text));
      await readme.next((t) => t === "hello");
      await addTool("after_readme");

      const stopNotes = client.subscribeResource("test://notes", (c) => notes.push(c[0].text));
      await notes.next((t) => t === "some notes");
      await addTool("after_notes");
      await server.control("update-resource", { uri: "test://readme", text: "hello 2" });
      await readme.next((t) => t === "hello 2");
      await server.control("update-resource", { uri: "test://notes", text: "notes 2" });
      await notes.next((t) => t === "notes 2");

      stopReadme();
      await addTool("after_unsubscribe");
      await server.control("update-resource", { uri: "test://notes", text: "notes 3" });
      await notes.next((t) => t === "notes 3");
      stopNotes();
      await addTool("after_last_unsubscribe");
      assert.equal(client.status.get(), "ready");
    });
  });
}
