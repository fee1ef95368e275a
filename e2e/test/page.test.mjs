// The demo page in headless Chromium against a real demo server (one per
// test, so no test sees another's changes): the four situations, a server
// restart, hostile server text, the forms, and the layout at 1280×800 and
// 390 px (lists in view while the controls are used; nothing a server sends
// widens the page). Assertions are on the DOM.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openDemo, keys, waitKeys, CHROMIUM, PANELS, outOfView, overflows, innerScrolls } from "../lib/browser.mjs";
import { startDemo, buildDemo, freePort, ADMIN_TOKEN } from "../lib/demo-server.mjs";
import { ms } from "../../demo/static/dom.js";

const skip = CHROMIUM ? false : "no Chromium: install Debian's chromium (../build.sh test does) or set CHROMIUM";

const ANON_TOOLS = ["add", "echo", "login", "now", "whoami"];
const ALICE_TOOLS = ["add", "echo", "logout", "now", "random_number", "search", "uppercase", "whoami", "word_count"];
const PROMPTS = ["summarize", "translate"];
const RESOURCES = ["demo://docs/mcp", "demo://docs/readme", "demo://docs/websocket", "demo://notes/scratch", "demo://status/clock"];
const TEMPLATES = ["demo://greetings/{name}", "demo://math/square/{n}"];

const text = (page, sel) => page.$eval(sel, (el) => el.textContent);
const attr = (page, sel, name) => page.$eval(sel, (el, name) => el.getAttribute(name), name);
const item = (kind, key) => `#panel-${kind} li.item[data-key="${key.replace(/["\\]/g, "\\$&")}"]`;
/** logHas waits for an event log entry of type whose text contains s. */
const logHas = (page, type, s) =>
  page.waitForFunction(
    ({ type, s }) => [...document.querySelectorAll(`#log li[data-type="${type}"] .text`)].some((el) => el.textContent.includes(s)),
    { type, s },
    { timeout: 10_000, polling: 50 },
  );

describe("the demo page in headless Chromium", { skip }, () => {
  let b;
  before(async () => {
    await buildDemo();
    b = await launch();
  });
  after(() => b?.close());

  /** refusedDial says whether a console error is Chromium reporting a refused connection or token (expected where a test dials a dead port, a stopped server or a bad token). */
  const refusedDial = (p) => /WebSocket connection to .* failed|Failed to load resource: net::ERR_CONNECTION_REFUSED|Failed to load resource: the server responded with a status of 401/.test(p);

  /** setup starts a fresh demo server for one test and stops it after. */
  async function setup(t, opts) {
    const server = await startDemo();
    t.after(() => server.stop());
    const page = await openDemo(b.newPage, server, opts);
    t.after(() => page.context().close());
    return { server, page };
  }

  test("first load: connection ready, the four lists with status and version, whoami", async (t) => {
    const { page, server } = await setup(t);
    assert.equal(await text(page, "#conn-status"), "ready");
    await waitKeys(page, "tools", ANON_TOOLS);
    await waitKeys(page, "prompts", PROMPTS);
    await waitKeys(page, "resources", RESOURCES);
    await waitKeys(page, "resourceTemplates", TEMPLATES);
    for (const kind of ["tools", "prompts", "resources", "resourceTemplates"]) {
      assert.equal(await attr(page, `#panel-${kind}`, "data-status"), "ready", kind);
      assert.equal(await text(page, `#panel-${kind} .status`), "ready", kind);
      assert.match(await text(page, `#panel-${kind} .version`), /^v\d+$/, kind);
    }
    assert.equal(await text(page, "#panel-tools .count"), "5");
    assert.equal(await text(page, "#who-user"), "anonymous");
    assert.equal(await text(page, "#who-role"), "viewer");
    assert.match(await text(page, "#conn-id"), /^c\d+$/);
    assert.equal(await text(page, "#server-info"), "mcplive demo server 0.1.0");
    // The client tries 2026-07-28 first, and the demo server speaks it.
    assert.equal(await text(page, "#conn-protocol"), "MCP 2026-07-28 · WebSocket");
    assert.equal(await attr(page, "#transport-ws", "aria-checked"), "true");
    assert.equal(await page.$eval("#connect-url", (el) => el.value), `${server.ws}`);
    // Without a token the admin controls are off.
    assert.equal(await attr(page, "#admin-state", "data-state"), "none");
    assert.equal(await page.$eval("#sit-config", (el) => el.disabled), true);
    assert.deepEqual(page.problems, []);
  });

  test("the link the server prints opens the page with the control API unlocked, and leaves no token in the address bar", async (t) => {
    const server = await startDemo();
    t.after(() => server.stop());
    const link = (await server.waitLog((l) => /^\s+http:\/\/\S+\?admin=/.test(l))).trim();
    assert.equal(link, `${server.url}/?admin=${ADMIN_TOKEN}`);
    const page = await b.newPage();
    t.after(() => page.context().close());
    await page.goto(link);
    await page.waitForSelector('#admin-state[data-state="ok"]', { timeout: 20_000 });
    assert.equal(await page.$eval("#sit-config", (el) => el.disabled), false);
    assert.equal(await page.evaluate(() => location.href), `${server.url}/`);
    await page.reload(); // the tab keeps the token
    await page.waitForSelector('#admin-state[data-state="ok"]', { timeout: 20_000 });
    assert.deepEqual(page.problems, []);
  });

  test("1 authentication: the login and logout tools change the tools and prompts panels", async (t) => {
    const { page } = await setup(t);
    const v0 = Number(await attr(page, "#panel-tools", "data-version"));
    await page.click("#login-btn"); // alice / wonderland
    await waitKeys(page, "tools", ALICE_TOOLS);
    await waitKeys(page, "prompts", ["explain_code", ...PROMPTS]);
    assert.ok(Number(await attr(page, "#panel-tools", "data-version")) > v0, "the tools version grew");
    assert.equal(await text(page, "#panel-tools .version"), `v${await attr(page, "#panel-tools", "data-version")}`);
    assert.match(await attr(page, item("tools", "logout"), "class"), /\badded\b/, "a new tool is highlighted");
    await page.waitForSelector(`${item("tools", "login")}.removed`, { state: "attached", timeout: 2000 }).catch(() => {}); // fading out (may be gone already)
    await page.waitForSelector(item("tools", "login"), { state: "detached", timeout: 5000 }); // then gone
    await page.waitForFunction(() => document.querySelector("#who-user")?.textContent === "alice");
    assert.equal(await text(page, "#auth-result"), "Logged in as alice: more tools are available now.");
    await logHas(page, "change", "tools v");
    // The timing comes from the package (ev.cause, ev.latencyMs), never from the page's own clock.
    const entry = await page.$eval('#log li[data-type="change"]', (li) => ({ ...li.dataset, timing: li.querySelector(".timing")?.textContent ?? null }));
    if (entry.cause) {
      assert.equal(entry.cause, "notification");
      assert.match(entry.latency, /^\d+(\.\d+)?$/);
      assert.equal(entry.timing, `re-listed ${ms(Number(entry.latency))} after list_changed`);
    } else {
      assert.equal(entry.timing, null, "a package without ev.cause/ev.latencyMs gets no timing, not a guessed one");
      t.diagnostic("the package does not report ev.cause / ev.latencyMs yet: the page shows no re-list timing");
    }
    await logHas(page, "log", "logged in as alice"); // notifications/message via on("log")
    await logHas(page, "notification", "notifications/tools/list_changed");
    assert.equal(await page.$eval("#login-btn", (el) => el.disabled), true);

    await page.click("#logout-btn");
    await waitKeys(page, "tools", ANON_TOOLS);
    await waitKeys(page, "prompts", PROMPTS);
    await page.waitForFunction(() => document.querySelector("#who-user")?.textContent === "anonymous");
    assert.deepEqual(page.problems, []);
  });

  test("2 configuration: admin toggles take a tool and a prompt away and back", async (t) => {
    const { page } = await setup(t, { admin: true });
    await page.uncheck('#admin-tools input[data-name="echo"]');
    await waitKeys(page, "tools", ANON_TOOLS.filter((n) => n !== "echo"));
    await page.click("#sit-config details:nth-of-type(2) summary"); // open Prompts
    await page.uncheck('#admin-prompts input[data-name="translate"]');
    await waitKeys(page, "prompts", ["summarize"]);
    await logHas(page, "control", "POST /control/tools/echo/disable");

    await page.check('#admin-tools input[data-name="echo"]');
    await waitKeys(page, "tools", ANON_TOOLS);
    assert.match(await attr(page, item("tools", "echo"), "class"), /\badded\b/);
    // The call form's picker follows the list too.
    assert.ok((await page.$$eval("#tool-select option", (os) => os.map((o) => o.value))).includes("echo"));
    assert.deepEqual(page.problems, []);
  });

  test("3 resource availability: resources and templates go online and offline; a subscribed resource refreshes", async (t) => {
    const { page, server } = await setup(t, { admin: true });
    await page.check('#admin-resources input[data-name="changelog"]');
    await waitKeys(page, "resources", [...RESOURCES, "demo://docs/changelog"]);
    assert.match(await attr(page, item("resources", "demo://docs/changelog"), "class"), /\badded\b/);
    await page.click("#sit-resources details:nth-of-type(2) summary"); // open Templates
    // The resources/list_changed above re-listed the templates too, unchanged: that must not
    // leave a stale start time behind for the next templates change (the package measures it).
    const before = await page.evaluate(() => performance.now());
    await page.uncheck('#admin-templates input[data-name="greeting"]');
    await waitKeys(page, "resourceTemplates", ["demo://math/square/{n}"]);
    assert.equal(await text(page, "#panel-resourceTemplates .count"), "1");
    await logHas(page, "change", "resourceTemplates v");
    const since = await page.evaluate((before) => performance.now() - before, before);
    const tmpl = await page.$eval('#log li[data-type="change"]', (li) => ({ ...li.dataset, text: li.querySelector(".text").textContent }));
    assert.match(tmpl.text, /^resourceTemplates v\d+: −demo:\/\/greetings\/\{name\}$/);
    if (tmpl.cause) {
      assert.equal(tmpl.cause, "notification");
      assert.ok(Number(tmpl.latency) <= since, `latency ${tmpl.latency} ms counts from a notification sent before the click ${since} ms ago`);
    }

    // Subscribe to the scratch note (resources/subscribe), change it through the control API.
    await page.click(`${item("resources", "demo://notes/scratch")} .try-btn`);
    assert.equal(await attr(page, "#dock-btn-try", "aria-selected"), "true", "a list's Read button opens the Try it tab");
    assert.equal(await text(page, "#resource-uri"), "demo://notes/scratch");
    await page.click("#resource-sub");
    await page.waitForFunction(() => document.querySelector("#resource-result pre")?.textContent === "Nothing written yet.");
    await page.click("#dock-btn-change");
    await page.fill('#note-form input[name="text"]', "hello <subscribers>");
    await page.click('#note-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector("#resource-result pre")?.textContent === "hello <subscribers>", null, { timeout: 10_000 });
    await logHas(page, "call", "re-read demo://notes/scratch after resources/updated");
    assert.equal(await page.$eval("#try-dot", (el) => el.hidden), false, "the Try it tab shows that its subscription got news");
    await page.click("#dock-btn-try");
    assert.equal(await page.$eval("#try-dot", (el) => el.hidden), true);
    assert.match(await text(page, "#resource-meta"), /updated 1×/);
    assert.equal(await text(page, "#resource-sub"), "Unsubscribe");
    // The lists stay live with the subscription in the listen stream's filter (2026-07-28 over a WebSocket: demo/listen.go).
    await server.control("POST", "resources/changelog/offline");
    await waitKeys(page, "resources", RESOURCES);

    // A template read: fill its variable.
    await page.click(`${item("resourceTemplates", "demo://math/square/{n}")} .try-btn`);
    await page.fill('#resource-vars input[data-var="n"]', "12");
    assert.equal(await text(page, "#resource-uri"), "demo://math/square/12");
    await page.click("#resource-read");
    await page.waitForFunction(() => document.querySelector("#resource-result pre")?.textContent === "144");
    assert.deepEqual(page.problems, []);
  });

  test("4 permissions: a role switch through the control API changes this connection's lists", async (t) => {
    const { page, server } = await setup(t, { admin: true });
    const id = await text(page, "#conn-id");
    assert.equal(await text(page, "#role-conn"), id);
    await page.selectOption("#role-select", "admin");
    await page.click('#role-form button[type="submit"]');
    await waitKeys(page, "tools", [...ANON_TOOLS, "list_connections", "server_stats", "write_note"]);
    await waitKeys(page, "prompts", [...PROMPTS, "incident_report", "review_note"]);
    await page.waitForFunction(() => document.querySelector("#who-role")?.textContent === "admin");
    const conn = await server.control("GET", `connections/${id}`);
    assert.equal(conn.role, "admin");

    await page.selectOption("#role-select", "editor");
    await page.click('#role-form button[type="submit"]');
    await waitKeys(page, "tools", [...ANON_TOOLS, "write_note"]);
    await waitKeys(page, "prompts", [...PROMPTS, "review_note"]);
    assert.deepEqual(page.problems, []);
  });

  for (const transport of ["ws", "http"]) {
    test(`server stopped and started again (${transport}): the page shows reconnecting, then the right lists`, async (t) => {
      const { page, server } = await setup(t, { query: `transport=${transport}` });
      await page.click("#login-btn");
      await waitKeys(page, "tools", ALICE_TOOLS);

      await server.stop();
      await page.waitForSelector('#conn-status[data-status="reconnecting"]', { timeout: 10_000 });
      assert.equal(await text(page, "#conn-status"), "reconnecting…");
      await page.waitForSelector('#panel-tools[data-status="stale"]', { timeout: 5000 });
      assert.equal(await text(page, "#panel-tools .status"), "stale (reconnecting)");
      assert.deepEqual((await keys(page, "tools")).sort(), ALICE_TOOLS, "the last good list stays visible while away");
      await logHas(page, "status", "connection lost");

      await server.restart(); // same port; a new server: this connection is anonymous again
      await page.waitForSelector('#conn-status[data-status="ready"]', { timeout: 15_000 });
      await waitKeys(page, "tools", ANON_TOOLS);
      await waitKeys(page, "prompts", PROMPTS);
      await waitKeys(page, "resources", RESOURCES);
      for (const kind of ["tools", "prompts", "resources", "resourceTemplates"]) {
        await page.waitForSelector(`#panel-${kind}[data-status="ready"]`, { timeout: 5000 });
      }
      await page.waitForFunction(() => document.querySelector("#who-user")?.textContent === "anonymous");
      await logHas(page, "status", "reconnected");
      // The re-lists after the reconnect say so, with no notification timing (when the package reports causes).
      // The new server may announce a change of its own right after the reconnect: a list_changed that
      // arrives before the reconnect's walk starts makes that walk's cause "notification" (a notification
      // wins: its latency is the one worth showing), so the newest entries may be either; each says its own.
      const changes = await page.$$eval('#log li[data-type="change"]', (lis) => lis.slice(0, 4).map((li) => ({ ...li.dataset, timing: li.querySelector(".timing")?.textContent ?? null })));
      for (const c of changes.filter((c) => c.cause)) {
        const want = { reconnect: "re-listed after a reconnect", notification: `re-listed ${ms(Number(c.latency))} after list_changed` }[c.cause];
        assert.equal(c.timing, want, `the timing of a change caused by ${c.cause}`);
      }
      assert.equal(await attr(page, "#conn-protocol", "data-transport"), transport);
      // Chromium reports the refused dials while the server was away.
      assert.deepEqual(page.problems.filter((p) => !refusedDial(p)), []);
    });
  }

  // ---- transports and other servers ------------------------------------------------

  test("a reload shows the catalog kept from the last visit at once, marked cached, while the server is held back; then the server's, changed meanwhile", async (t) => {
    const { page, server } = await setup(t, { query: "transport=http" });
    await waitKeys(page, "tools", ANON_TOOLS);
    await waitKeys(page, "prompts", PROMPTS);
    // The catalog is kept (IndexedDB) after the first sync: wait until it is.
    await page.waitForFunction(
      () =>
        new Promise((resolve) => {
          const req = indexedDB.open("mcplive", 1);
          req.onsuccess = () => {
            const all = req.result.transaction("catalogs").objectStore("catalogs").getAll();
            all.onsuccess = () => resolve(all.result.some((v) => String(v).includes('"whoami"') && String(v).includes('"summarize"')));
          };
          req.onerror = () => resolve(false);
        }),
      null,
      { timeout: 10_000, polling: 100 },
    );
    // Hold every request to /mcp until the kept catalog has been looked at:
    // from before the change below, so that this page's own re-list (it
    // still follows the server) cannot write the changed catalog first.
    let release;
    const held = new Promise((r) => (release = r));
    let requests = 0;
    await page.route((url) => url.pathname === "/mcp", async (route) => {
      requests++;
      await held;
      await route.continue().catch(() => {}); // the page that asked may be gone (the reload)
    });
    // While the page is away, the server takes echo away.
    await server.control("POST", "tools/echo/disable"); // (the server is this test's own)
    await page.reload();
    await page.waitForSelector('#panel-tools[data-source="cache"]', { timeout: 10_000 });
    assert.deepEqual(await keys(page, "tools"), ANON_TOOLS, "the kept catalog, echo still in it");
    assert.deepEqual(await keys(page, "prompts"), PROMPTS);
    assert.equal(await text(page, "#panel-tools .status"), "cached (checking)");
    assert.notEqual(await attr(page, "#conn-status", "data-status"), "ready");
    await logHas(page, "status", "showing the catalog kept from the last visit");
    release();
    await page.waitForSelector('#conn-status[data-status="ready"]', { timeout: 20_000 });
    await waitKeys(page, "tools", ANON_TOOLS.filter((n) => n !== "echo"));
    assert.equal(await attr(page, "#panel-tools", "data-source"), "server");
    assert.equal(await text(page, "#panel-tools .status"), "ready");
    assert.ok(requests > 0, "the reload's requests went through the hold");
    assert.deepEqual(page.problems, []);
  });

  test("Streamable HTTP (?transport=http): the revision and the transport in the header, a live change, a login that sticks, a role switch", async (t) => {
    const { page, server } = await setup(t, { admin: true, query: "transport=http" });
    assert.equal(await attr(page, "#transport-http", "aria-checked"), "true");
    assert.equal(await attr(page, "#transport-ws", "aria-checked"), "false");
    assert.equal(await text(page, "#conn-protocol"), "MCP 2026-07-28 · Streamable HTTP");
    assert.equal(await page.$eval("#connect-url", (el) => el.value), `${server.url}/mcp`);
    await waitKeys(page, "tools", ANON_TOOLS);
    await waitKeys(page, "resourceTemplates", TEMPLATES);
    const id = await text(page, "#conn-id");
    assert.equal((await server.control("GET", `connections/${id}`)).transport, "http");

    // 2 configuration: the change comes through the subscriptions/listen stream.
    await page.uncheck('#admin-tools input[data-name="echo"]');
    await waitKeys(page, "tools", ANON_TOOLS.filter((n) => n !== "echo"));
    await logHas(page, "notification", "notifications/tools/list_changed");
    await page.check('#admin-tools input[data-name="echo"]');
    await waitKeys(page, "tools", ANON_TOOLS);

    // 1 authentication: every request stands alone in 2026-07-28, the page's ?conn= key keeps the login.
    await page.click("#login-btn");
    await waitKeys(page, "tools", ALICE_TOOLS);
    await page.waitForFunction(() => document.querySelector("#who-user")?.textContent === "alice");
    assert.equal(await text(page, "#conn-id"), id, "the same connection");

    // 4 permissions
    await page.selectOption("#role-select", "editor");
    await page.click('#role-form button[type="submit"]');
    await waitKeys(page, "tools", [...ALICE_TOOLS, "write_note"]);

    // 3 a subscribed resource over HTTP
    await page.click(`${item("resources", "demo://notes/scratch")} .try-btn`);
    await page.click("#resource-sub");
    await page.waitForFunction(() => document.querySelector("#resource-result pre")?.textContent === "Nothing written yet.");
    await server.control("PUT", "resources/note/content", { text: "over HTTP" });
    await page.waitForFunction(() => document.querySelector("#resource-result pre")?.textContent === "over HTTP", null, { timeout: 10_000 });
    // and the lists stay live with the subscription in the stream's filter
    await server.control("POST", "resources/changelog/online");
    await waitKeys(page, "resources", [...RESOURCES, "demo://docs/changelog"]);
    assert.deepEqual(page.problems, []);
  });

  test("the transport switch connects again over the other transport; the lists follow the new connection", async (t) => {
    const { page, server } = await setup(t);
    const wsId = await text(page, "#conn-id");
    assert.equal((await server.control("GET", `connections/${wsId}`)).transport, "websocket");

    await page.click("#transport-http");
    await page.waitForSelector('#conn-protocol[data-transport="http"][data-version="2026-07-28"]', { timeout: 20_000 });
    await page.waitForSelector('#conn-status[data-status="ready"]');
    await page.waitForFunction((old) => /^c\d+$/.test(document.querySelector("#conn-id")?.textContent ?? "") && document.querySelector("#conn-id").textContent !== old, wsId);
    const httpId = await text(page, "#conn-id");
    assert.equal((await server.control("GET", `connections/${httpId}`)).transport, "http");
    assert.equal(await page.$eval("#connect-url", (el) => el.value), `${server.url}/mcp`);
    assert.equal(await attr(page, "#transport-http", "aria-checked"), "true");
    await server.waitLog((l) => l.includes('msg="connection closed"') && l.includes(`conn=${wsId} `)); // the WebSocket was closed
    await waitKeys(page, "tools", ANON_TOOLS);
    await server.control("POST", "tools", { name: "marker" });
    await waitKeys(page, "tools", [...ANON_TOOLS, "marker"]);
    await logHas(page, "status", "over Streamable HTTP (MCP 2026-07-28)");

    await page.click("#transport-ws");
    await page.waitForSelector('#conn-protocol[data-transport="ws"][data-version="2026-07-28"]', { timeout: 20_000 });
    await page.waitForSelector('#conn-status[data-status="ready"]');
    assert.equal(await page.$eval("#connect-url", (el) => el.value), server.ws);
    await waitKeys(page, "tools", [...ANON_TOOLS, "marker"]);
    await server.control("DELETE", "tools/marker");
    await waitKeys(page, "tools", ANON_TOOLS);
    assert.deepEqual(page.problems, []);
  });

  test("the URL field connects to another MCP server (http and ws) and shows its live lists; a bad URL shows its error", async (t) => {
    const { page, server } = await setup(t);
    const other = await startDemo();
    t.after(() => other.stop());
    await other.control("POST", "tools", { name: "only_on_other" });

    await page.fill("#connect-url", `${other.url}/mcp`);
    await page.click("#connect-btn");
    await waitKeys(page, "tools", [...ANON_TOOLS, "only_on_other"]);
    await page.waitForSelector('#conn-status[data-status="ready"]');
    assert.equal(await text(page, "#conn-protocol"), "MCP 2026-07-28 · Streamable HTTP");
    assert.equal(await page.$eval("#foreign-note", (el) => el.hidden), false);
    assert.match(await text(page, "#foreign-note"), new RegExp(`^Connected to ${other.url}/mcp: `));
    await other.control("POST", "tools/echo/disable");
    await waitKeys(page, "tools", ["add", "login", "now", "only_on_other", "whoami"]);

    await page.fill("#connect-url", other.ws);
    await page.click("#connect-btn");
    await page.waitForSelector('#conn-protocol[data-transport="ws"][data-version="2026-07-28"]', { timeout: 20_000 });
    await waitKeys(page, "tools", ["add", "login", "now", "only_on_other", "whoami"]);
    await other.control("POST", "tools/echo/enable");
    await waitKeys(page, "tools", [...ANON_TOOLS, "only_on_other"]);

    // A port nobody listens on: the connect fails at once, visibly.
    const dead = `http://127.0.0.1:${await freePort()}/mcp`;
    await page.fill("#connect-url", dead);
    await page.click("#connect-btn");
    await page.waitForSelector('#conn-status[data-status="failed"]', { timeout: 20_000 });
    assert.equal(await page.$eval("#connect-error", (el) => el.hidden), false);
    const err = await text(page, "#connect-error");
    assert.ok(err.includes(dead), err);
    assert.match(err, /^(\S+: )?\w*Error: /, "the error's name is shown");
    assert.equal(await attr(page, "#panel-tools", "data-status"), "closed");
    assert.equal(await text(page, "#panel-tools .status"), "not connected");
    assert.notEqual(await attr(page, "#connect-error", "data-name"), "");
    await logHas(page, "error", `connect to ${dead} failed`);
    for (const kind of ["tools", "prompts", "resources", "resourceTemplates"]) {
      assert.deepEqual(await keys(page, kind), [], `${kind}: nothing left from the last server`);
    }
    // Nor the last server's forms: nothing to call, no fields, no description.
    assert.equal(await page.$eval("#tool-fields", (el) => el.children.length), 0, "no tool form left");
    assert.equal(await text(page, "#tool-desc"), "");
    assert.equal(await page.$eval("#tool-call", (el) => el.disabled), true);
    assert.equal(await page.$eval("#prompt-fields", (el) => el.children.length), 0, "no prompt form left");

    // This server with a token it does not know (401 over HTTP): one attempt, its error shown.
    await page.fill("#connect-url", `${server.url}/mcp?token=nope`);
    await page.click("#connect-btn");
    await page.waitForFunction(() => document.querySelector("#connect-error")?.textContent.includes("token=nope"), null, { timeout: 20_000 });
    assert.equal(await attr(page, "#conn-status", "data-status"), "failed");
    // The page shows the URL it was asked for; the client's own error redacts
    // the query (a credential may be in it).
    const shown = await text(page, "#connect-error");
    assert.match(shown, /Error: .*\/mcp\?…/);
    assert.doesNotMatch(shown.slice(shown.indexOf("Error:")), /nope/);

    // Not an MCP URL at all: said so, nothing dialed.
    await page.fill("#connect-url", "ftp://example.com/mcp");
    await page.click("#connect-btn");
    await page.waitForFunction(() => document.querySelector("#connect-error")?.textContent.includes("ftp:"));
    assert.match(await text(page, "#connect-error"), /^TypeError: the scheme ftp: is not an MCP transport/);
    await page.fill("#connect-url", "<b>not a url</b>");
    await page.click("#connect-btn");
    await page.waitForFunction(() => document.querySelector("#connect-error")?.textContent.includes("not an absolute URL"));
    assert.equal(await page.$$eval("#connect-error *", (els) => els.length), 0, "shown as text");

    // The switch brings the page back to its own server.
    await page.click("#transport-ws");
    await page.waitForSelector('#conn-status[data-status="ready"]', { timeout: 20_000 });
    assert.equal(await page.$eval("#connect-url", (el) => el.value), server.ws);
    assert.equal(await page.$eval("#connect-error", (el) => el.hidden), true);
    assert.equal(await page.$eval("#foreign-note", (el) => el.hidden), true);
    await waitKeys(page, "tools", ANON_TOOLS);
    assert.deepEqual(page.problems.filter((p) => !refusedDial(p)), []);
  });

  test("a server of 2025-11-25 only (-revisions), by URL from another origin: the client falls back, the header says so, changes arrive over HTTP (session, GET stream) and WebSocket", async (t) => {
    const { page } = await setup(t);
    const old = await startDemo({ args: ["-revisions", "2025-11-25"] });
    t.after(() => old.stop());
    for (const url of [`${old.url}/mcp`, old.ws]) {
      const transport = url.startsWith("ws") ? "ws" : "http";
      await page.fill("#connect-url", url);
      await page.click("#connect-btn");
      await page.waitForSelector(`#conn-protocol[data-transport="${transport}"][data-version="2025-11-25"]`, { timeout: 20_000 });
      await page.waitForSelector('#conn-status[data-status="ready"]');
      assert.equal(await text(page, "#conn-protocol"), `MCP 2025-11-25 · ${transport === "ws" ? "WebSocket" : "Streamable HTTP"}`);
      await waitKeys(page, "tools", ANON_TOOLS);
      await old.control("POST", "tools/now/disable");
      await waitKeys(page, "tools", ANON_TOOLS.filter((n) => n !== "now"));
      await old.control("POST", "tools/now/enable");
      await waitKeys(page, "tools", ANON_TOOLS);
    }
    // The page's HTTP session (Mcp-Session-Id, read across origins) ended with its DELETE when the page moved on.
    const conns = await old.control("GET", "connections");
    assert.deepEqual(conns.connections.map((c) => c.transport), ["websocket"], "the HTTP session ended when the page switched");
    // The refused 2026-07-28 probe over HTTP is a 400, which Chromium logs.
    assert.deepEqual(page.problems.filter((p) => !/Failed to load resource: the server responded with a status of 400/.test(p)), []);
  });

  test("?url= opens the page on another server", async (t) => {
    const other = await startDemo();
    t.after(() => other.stop());
    await other.control("POST", "tools", { name: "only_on_other" });
    const { page } = await setup(t, { query: `url=${other.url}/mcp?token=bob-token` });
    await waitKeys(page, "tools", [...ALICE_TOOLS, "only_on_other"]);
    assert.equal(await page.$eval("#connect-url", (el) => el.value), `${other.url}/mcp?token=bob-token`);
    assert.equal(await text(page, "#who-user"), "bob");
    assert.equal(await text(page, "#role-conn"), "unknown", "another server's connection id is not this server's to switch");
    assert.equal(await page.$eval("#foreign-note", (el) => el.hidden), false);
    assert.deepEqual(page.problems, []);
  });

  test("hostile server text: HTML and script payloads in a tool's name and description show as text and nothing runs", async (t) => {
    const server = await startDemo();
    t.after(() => server.stop());
    const page = await b.newPage();
    t.after(() => page.context().close());
    const DATA_ICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='8' height='8'/%3E";
    const payload = `<img src=x onerror="window.__pwned='img'"><script>window.__pwned='script'</script><b>bold</b>`;
    // The demo's control API only accepts spec-syntax tool names: the
    // hostile name, title and icons are injected into the server's
    // tools/list answers on the wire.
    const evil = {
      name: `<img src=x onerror="window.__pwned='name'">`,
      title: `<script>window.__pwned='title'</script>`,
      description: payload,
      inputSchema: { type: "object", properties: { [`<svg onload="window.__pwned='prop'">`]: { type: "string", description: payload } } },
      // Only https: and data:image/ icons load: the first three are skipped, the data: one is shown.
      icons: [{ src: "javascript:window.__pwned='icon'" }, { src: "http://127.0.0.1:9/tracker.png" }, { src: "/local.png" }, { src: DATA_ICON }],
    };
    await page.routeWebSocket(/\/mcp/, (ws) => {
      const srv = ws.connectToServer();
      ws.onMessage((m) => srv.send(m));
      srv.onMessage((m) => {
        const msg = typeof m === "string" ? JSON.parse(m) : null;
        if (msg?.result && Array.isArray(msg.result.tools) && !msg.result.nextCursor) msg.result.tools.push(evil);
        ws.send(msg ? JSON.stringify(msg) : m);
      });
    });
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#conn-status[data-status="ready"]', { timeout: 20_000 });
    await page.waitForSelector(item("tools", evil.name));

    // And one through the control API, while the page is open.
    await server.control("POST", "tools", { name: "xss_probe", description: payload });
    await page.waitForSelector(item("tools", "xss_probe"));
    assert.equal(await text(page, `${item("tools", "xss_probe")} .desc`), payload);
    assert.equal(await text(page, `${item("tools", evil.name)} .key`), evil.name);
    assert.equal(await text(page, `${item("tools", evil.name)} .title`), evil.title);
    assert.equal(await text(page, `${item("tools", evil.name)} .desc`), payload);

    // Its call form: the property name and description are text too.
    await page.click(`${item("tools", evil.name)} .try-btn`);
    assert.equal(await text(page, "#tool-desc"), payload);
    assert.equal(await text(page, "#tool-fields .field-name"), Object.keys(evil.inputSchema.properties)[0]);
    await page.click(`${item("tools", "xss_probe")} .try-btn`);
    await page.click("#tool-call");
    await page.waitForFunction(() => document.querySelector("#tool-result pre")?.textContent.startsWith("xss_probe called with"));

    await page.waitForTimeout(300); // give an onerror or onload the chance it must not get
    const dom = await page.evaluate(() => ({
      pwned: window.__pwned,
      imgs: [...document.querySelectorAll("img")].map((i) => i.getAttribute("src")),
      scripts: [...document.querySelectorAll("script:not([type=importmap])")].map((s) => s.getAttribute("src")),
      bold: document.querySelectorAll("b, svg").length,
    }));
    assert.deepEqual(dom, { pwned: undefined, imgs: [DATA_ICON], scripts: ["app.js"], bold: 0 });
    assert.deepEqual(page.problems, []);
  });

  test("call-tool form round trip: echo and add, required fields enforced", async (t) => {
    const { page } = await setup(t);
    await page.click(`${item("tools", "echo")} .try-btn`);
    assert.equal(await page.$eval("#tool-select", (s) => s.value), "echo");
    assert.equal(await text(page, '#tool-fields .field[data-field="text"] .req'), "*");
    await page.click("#tool-call"); // text is required: nothing is called
    assert.equal(await page.$eval('#tool-fields input[data-name="text"]', (el) => el.validity.valueMissing), true);
    assert.equal(await page.$eval("#tool-result", (el) => el.childElementCount), 0);
    await page.fill('#tool-fields input[data-name="text"]', "hello <b>world</b>");
    await page.click("#tool-call");
    await page.waitForSelector("#tool-result pre.content-text");
    assert.equal(await text(page, "#tool-result pre.content-text"), "hello <b>world</b>");
    assert.match(await text(page, "#tool-result .result-head"), /^result of echo · \d+ ms$/);
    // echo has no structuredContent: nothing under its text (once a stray "null").
    assert.equal(await page.$eval("#tool-result", (el) => el.children.length), 2);
    assert.doesNotMatch(await text(page, "#tool-result"), /null/);

    await page.selectOption("#tool-select", "add");
    assert.deepEqual(await page.$$eval("#tool-fields input", (els) => els.map((e) => [e.dataset.name, e.type, e.required])), [
      ["a", "number", true],
      ["b", "number", true],
    ]);
    await page.fill('#tool-fields input[data-name="a"]', "2");
    await page.fill('#tool-fields input[data-name="b"]', "3.5");
    await page.click("#tool-call");
    await page.waitForFunction(() => document.querySelector("#tool-result .result-head")?.textContent.includes("of add"));
    assert.equal(await text(page, "#tool-result pre.content-text"), "5.5");
    assert.deepEqual(JSON.parse(await text(page, "#tool-result .structured pre")), { sum: 5.5 });
    await logHas(page, "call", "add → ok");
    assert.deepEqual(page.problems, []);
  });

  test("get a prompt with arguments", async (t) => {
    const { page } = await setup(t);
    await page.click(`${item("prompts", "translate")} .try-btn`);
    assert.deepEqual(await page.$$eval("#prompt-fields .field", (els) => els.map((e) => [e.dataset.field, Boolean(e.querySelector(".req"))])), [
      ["text", true],
      ["language", true],
    ]);
    await page.fill('#prompt-fields input[data-name="text"]', "Bonjour");
    await page.fill('#prompt-fields input[data-name="language"]', "English");
    await page.click("#prompt-get");
    await page.waitForSelector("#prompt-result .message pre");
    assert.equal(await text(page, "#prompt-result .message pre"), "Translate the following text into English:\n\nBonjour");
    assert.equal(await text(page, "#prompt-result .message .role"), "user");
    assert.doesNotMatch(await text(page, "#prompt-result"), /null/, "no stray null for an absent description");
    assert.deepEqual(page.problems, []);
  });

  test("forms from inputSchema: strings, numbers, integers, booleans, enums, required marks", async (t) => {
    const { page } = await setup(t);
    const out = await page.evaluate(async () => {
      const { toolForm } = await import("/schema-form.js");
      const form = toolForm({
        type: "object",
        properties: {
          q: { type: "string", description: "query" },
          n: { type: "integer", minimum: 1, maximum: 10 },
          ratio: { type: "number" },
          exact: { type: "boolean" },
          mode: { type: "string", enum: ["fast", "slow"], default: "slow" },
          level: { enum: [1, 2, 3] },
          tags: { type: "array", items: { type: "string" } },
          nullable: { type: ["string", "null"] },
        },
        required: ["q", "n", "mode"],
      });
      document.body.append(form.element);
      const el = form.element;
      const fields = [...el.querySelectorAll(".field")].map((f) => {
        const input = f.querySelector("input, select, textarea");
        return [f.dataset.field, input.tagName.toLowerCase() + (input.type && input.tagName === "INPUT" ? ":" + input.type : ""), Boolean(f.querySelector(".req"))];
      });
      const set = (name, v) => {
        const i = el.querySelector(`[data-name="${name}"]`);
        if (i.type === "checkbox") i.checked = v;
        else i.value = v;
      };
      set("q", "mcp");
      set("n", "3");
      set("ratio", "0.5");
      set("exact", true);
      set("level", "1"); // the index of 2
      set("tags", '["a","b"]');
      const args = form.collect();
      set("n", "2.5");
      let intError = null;
      try {
        form.collect();
      } catch (err) {
        intError = err.message;
      }
      const modeOptions = [...el.querySelectorAll('[data-name="mode"] option')].map((o) => o.textContent);
      const levelOptions = [...el.querySelectorAll('[data-name="level"] option')].map((o) => o.textContent);
      const n = el.querySelector('[data-name="n"]');
      el.remove();
      return { fields, args, intError, modeOptions, levelOptions, nAttrs: [n.step, n.min, n.max] };
    });
    assert.deepEqual(out.fields, [
      ["q", "input:text", true],
      ["n", "input:number", true],
      ["ratio", "input:number", false],
      ["exact", "input:checkbox", false],
      ["mode", "select", true],
      ["level", "select", false],
      ["tags", "textarea", false],
      ["nullable", "input:text", false],
    ]);
    assert.deepEqual(out.args, { q: "mcp", n: 3, ratio: 0.5, exact: true, mode: "slow", level: 2, tags: ["a", "b"] });
    assert.equal(out.intError, "n must be an integer");
    assert.deepEqual(out.modeOptions, ["fast", "slow"]); // required: no empty choice
    assert.deepEqual(out.levelOptions, ["—", "1", "2", "3"]);
    assert.deepEqual(out.nAttrs, ["1", "1", "10"]);
    assert.deepEqual(page.problems, []);
  });

  // ---- layout: 1280×800 and a 390 px phone ----------------------------------------

  const VIEWPORTS = [
    { name: "desktop 1280×800", width: 1280, height: 800 },
    { name: "phone 390×844", width: 390, height: 844, isMobile: true, hasTouch: true },
  ];

  /** inView asserts that the four lists, the log with its newest entry and the given controls are all on screen, and nothing sticks out. */
  async function inView(page, what, controls = []) {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))); // layout and resize observers settled
    assert.deepEqual(await outOfView(page, [...PANELS, ".log", "#log li:first-child", ...controls]), [], `${what}: out of view`);
    assert.deepEqual(await overflows(page), [], `${what}: sticks out`);
    const scroll = await page.evaluate(() => document.documentElement.scrollHeight - document.documentElement.clientHeight);
    assert.ok(scroll <= 0, `${what}: the page itself scrolls by ${scroll} px`);
  }

  for (const { name, ...viewport } of VIEWPORTS) {
    test(`${name}: the four lists and the event log stay in view while each situation's control is used`, async (t) => {
      const { page } = await setup(t, { admin: true, ...viewport });
      await waitKeys(page, "resourceTemplates", TEMPLATES);
      assert.deepEqual(await innerScrolls(page), [], "where there is room, every list shows all its items without a scroll area");
      await inView(page, "first load");

      // 1 authentication
      await page.click("#login-btn");
      await waitKeys(page, "tools", ALICE_TOOLS);
      await inView(page, "1 after login", ["#login-btn", "#logout-btn"]);
      assert.deepEqual(await innerScrolls(page), [], "logged in, every list still shows all its items");
      await page.click("#logout-btn");
      await waitKeys(page, "tools", ANON_TOOLS);
      await inView(page, "1 after logout", ["#logout-btn"]);

      // 2 configuration
      await page.uncheck('#admin-tools input[data-name="echo"]');
      await waitKeys(page, "tools", ANON_TOOLS.filter((n) => n !== "echo"));
      await inView(page, "2 after a tool toggle", ['#admin-tools input[data-name="echo"]']);
      await page.click("#sit-config details:nth-of-type(2) summary");
      await page.uncheck('#admin-prompts input[data-name="translate"]');
      await waitKeys(page, "prompts", ["summarize"]);
      await inView(page, "2 after a prompt toggle", ['#admin-prompts input[data-name="translate"]']);
      await page.check('#admin-prompts input[data-name="translate"]');
      await waitKeys(page, "prompts", PROMPTS);
      await page.check('#admin-tools input[data-name="echo"]');
      await waitKeys(page, "tools", ANON_TOOLS);

      // 3 resource availability
      await page.check('#admin-resources input[data-name="changelog"]');
      await waitKeys(page, "resources", [...RESOURCES, "demo://docs/changelog"]);
      await inView(page, "3 after a resource toggle", ['#admin-resources input[data-name="changelog"]']);
      await page.click("#sit-resources details:nth-of-type(2) summary");
      await page.uncheck('#admin-templates input[data-name="greeting"]');
      await waitKeys(page, "resourceTemplates", ["demo://math/square/{n}"]);
      await inView(page, "3 after a template toggle", ['#admin-templates input[data-name="greeting"]']);
      await page.fill('#note-form input[name="text"]', "a note");
      await page.click('#note-form button[type="submit"]');
      await logHas(page, "control", "PUT /control/resources/note/content");
      await inView(page, "3 after writing the note", ['#note-form button[type="submit"]']);

      // 4 permissions
      await page.selectOption("#role-select", "admin");
      await page.click('#role-form button[type="submit"]');
      await waitKeys(page, "tools", [...ANON_TOOLS, "list_connections", "server_stats", "write_note"]);
      await waitKeys(page, "prompts", [...PROMPTS, "incident_report", "review_note"]);
      await inView(page, "4 after a role switch", ['#role-form button[type="submit"]']);

      // Try it: a list's button opens the form next to the lists.
      await page.click(`${item("tools", "echo")} .try-btn`);
      await page.fill('#tool-fields input[data-name="text"]', "hi");
      await page.click("#tool-call");
      await page.waitForSelector("#tool-result pre.content-text");
      await inView(page, "after a tool call", ["#tool-call"]);

      // The header's connect controls: on a phone the URL button opens the field.
      if (await page.isVisible("#url-toggle")) await page.click("#url-toggle");
      await inView(page, "with the URL field open", ["#transport-ws", "#transport-http", "#connect-url", "#connect-btn", "#conn-status"]);
      assert.deepEqual(page.problems, []);
    });
  }

  // ---- hostile lengths: 100 kB of unbreakable server text everywhere ----------------

  const L = 100_000;
  const long = (c) => c.repeat(L);
  const EVIL = {
    tool: long("t"),
    prompt: long("p"),
    uri: `demo://long/${long("u")}`,
    template: `demo://long/{${"v".repeat(2000)}}/${long("w")}`,
  };
  const evilTool = {
    name: EVIL.tool,
    title: long("T"),
    description: long("D"),
    annotations: { readOnlyHint: true },
    inputSchema: {
      type: "object",
      properties: {
        [long("k")]: { type: "string", title: long("K"), description: long("d") },
        [long("e")]: { type: "string", enum: [long("E"), "short"], description: long("d") },
      },
    },
  };
  const evilPrompt = { name: EVIL.prompt, title: long("P"), description: long("D"), arguments: [{ name: long("a"), required: true, description: long("d") }] };
  const evilResource = { uri: EVIL.uri, name: long("n"), title: long("N"), mimeType: long("m"), description: long("D") };
  const evilTemplate = { uriTemplate: EVIL.template, name: long("n"), title: long("N"), mimeType: long("m"), description: long("D") };
  const evilContents = [
    { uri: EVIL.uri, mimeType: long("m"), text: long("x") },
    { uri: `${EVIL.uri}/2`, mimeType: "application/octet-stream", blob: "AAAA" },
  ];
  const ANSWERS = {
    "tools/call": {
      content: [
        { type: "text", text: long("x") },
        { type: "resource_link", uri: EVIL.uri, name: long("l") },
        { type: "resource", resource: evilContents[0] },
        { type: "image", mimeType: `image/${long("i")}`, data: "AAAA" },
      ],
      structuredContent: { [long("s")]: long("S") },
    },
    "prompts/get": {
      description: long("D"),
      messages: [
        { role: "user", content: { type: "text", text: long("x") } },
        { role: "assistant", content: { type: "resource", resource: evilContents[0] } },
      ],
    },
    "resources/read": { contents: evilContents },
  };
  // Strings a server sends end up here: each of these boxes must itself stay on screen.
  const STRICT = ".panel, .item, .item-head, .item-sub, .result, .result-head, .link, .contents, .contents-head, .message, .field, .fields, .entry, .pick, select, .desc, #whoami, #server-info, .card, .toggles li";

  for (const { name, ...viewport } of VIEWPORTS) {
    test(`${name}: 100 kB unbreakable names, URIs and texts from the server wrap or are cut inside their boxes`, async (t) => {
      const server = await startDemo();
      t.after(() => server.stop());
      const page = await b.newPage(viewport);
      t.after(() => page.context().close());
      // Into the server's answers on the wire: an extra item on the last page of every
      // list, the server's name, and whoami's; the calls on those items are answered here.
      await page.routeWebSocket(/\/mcp/, (ws) => {
        const srv = ws.connectToServer();
        const whoami = new Set();
        ws.onMessage((m) => {
          const msg = JSON.parse(String(m));
          const target = msg.params?.name ?? msg.params?.uri;
          const evil = target === EVIL.tool || target === EVIL.prompt || String(target).startsWith("demo://long/");
          if (evil && ANSWERS[msg.method]) return ws.send(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: ANSWERS[msg.method] }));
          if (msg.method === "tools/call" && target === "whoami") whoami.add(msg.id);
          srv.send(m);
        });
        srv.onMessage((m) => {
          const msg = JSON.parse(String(m));
          const r = msg.result;
          if (r && !r.nextCursor) {
            if (Array.isArray(r.tools)) r.tools.push(evilTool);
            if (Array.isArray(r.prompts)) r.prompts.push(evilPrompt);
            if (Array.isArray(r.resources)) r.resources.push(evilResource);
            if (Array.isArray(r.resourceTemplates)) r.resourceTemplates.push(evilTemplate);
          }
          if (r?.serverInfo) Object.assign(r.serverInfo, { name: long("s"), title: long("S"), version: long("9") });
          if (whoami.delete(msg.id) && r?.structuredContent) Object.assign(r.structuredContent, { connection: long("c"), user: long("U"), loggedIn: true, role: long("R") });
          ws.send(JSON.stringify(msg));
        });
      });
      await page.goto(`${server.url}/`);
      await page.waitForSelector('#conn-status[data-status="ready"]', { timeout: 20_000 });
      const hasItem = (kind, key) => page.waitForFunction(({ kind, key }) => [...document.querySelectorAll(`#panel-${kind} li.item`)].some((li) => li.dataset.key === key), { kind, key }, { timeout: 10_000 });
      await hasItem("tools", EVIL.tool);
      await hasItem("prompts", EVIL.prompt);
      await hasItem("resources", EVIL.uri);
      await hasItem("resourceTemplates", EVIL.template);
      await page.waitForFunction((L) => document.querySelector("#who-user")?.textContent.length === L, L);
      const tryButton = (kind, key) => page.evaluateHandle(({ kind, key }) => [...document.querySelectorAll(`#panel-${kind} li.item`)].find((li) => li.dataset.key === key).querySelector(".try-btn"), { kind, key });
      const check = async (what) => assert.deepEqual(await overflows(page, STRICT), [], `${name}, ${what}`);
      await check("the lists, the header and the log");
      assert.deepEqual(await outOfView(page, PANELS), [], "the lists are on screen");

      await (await tryButton("tools", EVIL.tool)).click();
      assert.equal((await text(page, "#tool-desc")).length, L, "the whole description is there (and scrolls in its box)");
      await check("the tool's form");
      await page.click("#tool-call");
      await page.waitForSelector("#tool-result .link");
      assert.match(await text(page, "#tool-result .result-head"), /^result of t+… · /);
      await check("the tool's result");

      await (await tryButton("prompts", EVIL.prompt)).click();
      await page.fill("#prompt-fields input", "x");
      await page.click("#prompt-get");
      await page.waitForSelector("#prompt-result .message .contents");
      await check("the prompt's form and result");

      await (await tryButton("resources", EVIL.uri)).click();
      await page.click("#resource-read");
      await page.waitForSelector("#resource-result .contents");
      assert.equal(await page.$$eval("#resource-result .contents", (els) => els.length), 2);
      await check("the resource's result");

      await (await tryButton("resourceTemplates", EVIL.template)).click();
      await page.fill("#resource-vars input", long("z"));
      await page.click("#resource-read");
      await page.waitForFunction(() => document.querySelector("#resource-meta")?.textContent.startsWith("read demo://long/"));
      await check("the template's form and result");

      // The dock's other tab and the expanded log on a phone.
      await page.click("#dock-btn-change");
      await check("the controls");
      if (await page.isVisible("#log-expand")) {
        await page.click("#log-expand");
        await check("the expanded log");
      }

      // 100 kB typed into the URL field, and the error that names it.
      if (await page.isVisible("#url-toggle")) await page.click("#url-toggle");
      const dead = `http://127.0.0.1:${await freePort()}/${long("q")}`;
      await page.fill("#connect-url", dead);
      await check("a long URL in the field");
      await page.click("#connect-btn");
      await page.waitForSelector('#conn-status[data-status="failed"]', { timeout: 20_000 });
      assert.deepEqual(await overflows(page, `${STRICT}, .connect, #connect-error, #conn-protocol`), [], `${name}, the failed connect's error`);
      assert.deepEqual(await outOfView(page, PANELS), [], "the lists are on screen");
      assert.deepEqual(page.problems.filter((p) => !refusedDial(p)), []);
    });
  }
});
