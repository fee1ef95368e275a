// The demo page in headless Chromium against a real demo server (one per
// test, so no test sees another's changes): the four situations, a server
// restart, hostile server text, and the forms. Assertions are on the DOM.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openDemo, keys, waitKeys, CHROMIUM } from "../lib/browser.mjs";
import { startDemo, buildDemo } from "../lib/demo-server.mjs";

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

  /** setup starts a fresh demo server for one test and stops it after. */
  async function setup(t, opts) {
    const server = await startDemo();
    t.after(() => server.stop());
    const page = await openDemo(b.newPage, server, opts);
    t.after(() => page.context().close());
    return { server, page };
  }

  test("first load: connection ready, the four lists with status and version, whoami", async (t) => {
    const { page } = await setup(t);
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
    assert.match(await text(page, "#server-info"), /mcplive demo server 0\.1\.0 · MCP 2025-11-25/);
    // Without a token the admin controls are off.
    assert.equal(await attr(page, "#admin-state", "data-state"), "none");
    assert.equal(await page.$eval("#sit-config", (el) => el.disabled), true);
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
    assert.match(await page.$eval('#log li[data-type="change"] .timing', (el) => el.textContent), /re-listed \d+ ms after list_changed/);
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
    const { page } = await setup(t, { admin: true });
    await page.check('#admin-resources input[data-name="changelog"]');
    await waitKeys(page, "resources", [...RESOURCES, "demo://docs/changelog"]);
    assert.match(await attr(page, item("resources", "demo://docs/changelog"), "class"), /\badded\b/);
    await page.click("#sit-resources details:nth-of-type(2) summary"); // open Templates
    await page.uncheck('#admin-templates input[data-name="greeting"]');
    await waitKeys(page, "resourceTemplates", ["demo://math/square/{n}"]);
    assert.equal(await text(page, "#panel-resourceTemplates .count"), "1");

    // Subscribe to the scratch note (resources/subscribe), change it through the control API.
    await page.click(`${item("resources", "demo://notes/scratch")} .try-btn`);
    assert.equal(await text(page, "#resource-uri"), "demo://notes/scratch");
    await page.click("#resource-sub");
    await page.waitForFunction(() => document.querySelector("#resource-result pre")?.textContent === "Nothing written yet.");
    await page.fill('#note-form input[name="text"]', "hello <subscribers>");
    await page.click('#note-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector("#resource-result pre")?.textContent === "hello <subscribers>", null, { timeout: 10_000 });
    assert.match(await text(page, "#resource-meta"), /updated 1×/);
    assert.equal(await text(page, "#resource-sub"), "Unsubscribe");

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

  test("server stopped and started again: the page shows reconnecting, then the right lists", async (t) => {
    const { page, server } = await setup(t);
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
    // Chromium reports the refused WebSocket dials while the server was away.
    assert.deepEqual(page.problems.filter((p) => !/WebSocket connection to .* failed/.test(p)), []);
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
      scripts: [...document.querySelectorAll("script")].map((s) => s.getAttribute("src")),
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

  test("phone width: one column, nothing wider than the screen", async (t) => {
    const { page } = await setup(t, { width: 390, height: 844, isMobile: true, hasTouch: true });
    const m = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      columns: getComputedStyle(document.querySelector(".layout")).gridTemplateColumns.split(" ").length,
      listsColumns: getComputedStyle(document.querySelector(".lists")).gridTemplateColumns.split(" ").length,
    }));
    assert.deepEqual(m, { scrollWidth: 390, columns: 1, listsColumns: 1 });
    await page.click("#login-btn");
    await waitKeys(page, "tools", ALICE_TOOLS);
    assert.deepEqual(page.problems, []);
  });
});
