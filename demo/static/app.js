// The mcplive demo page: imports the npm package the way a page without a
// bundler does, connects to this server's /mcp, and shows the four live
// lists, the connection, an event log, the controls for the four situations
// in which lists change, and forms to call tools, get prompts and read
// (and subscribe to) resources. Every text from the server goes into the
// DOM as text (see dom.js); nothing here assigns HTML.

import { connect } from "/js/index.js";
import { h, $, clear, clip, fill, iconFor, ms, json, errorText, clock } from "./dom.js";
import { createPanel, listStatusText } from "./panels.js";
import { createLog } from "./log.js";
import { toolForm, promptForm, templateVariables, expandTemplate } from "./schema-form.js";
import { createAdmin } from "./admin.js";
import { authFor } from "./auth.js";

const KINDS = ["tools", "prompts", "resources", "resourceTemplates"];
const KEY = { tools: (t) => t.name, prompts: (p) => p.name, resources: (r) => r.uri, resourceTemplates: (t) => t.uriTemplate };

const log = createLog($("#log"));
$("#log-clear").addEventListener("click", () => log.clear());
// On a phone the log is a strip of the newest entries; "More" opens it up.
$("#log-expand").addEventListener("click", (ev) => {
  const open = !$(".log").hasAttribute("data-expanded");
  $(".log").toggleAttribute("data-expanded", open);
  ev.currentTarget.setAttribute("aria-expanded", String(open));
  ev.currentTarget.textContent = open ? "Less" : "More";
});

/** @type {import("/js/index.js").Client | null} */
let client = null;
/** connected returns the client, or throws while there is none (connecting, or a failed connect). */
function connected() {
  if (!client) throw new Error("not connected: wait for the connection, or connect to a server above");
  return client;
}
/** whoami's answer: {connection, user, loggedIn, role} */
let me = null;

// ---- connection ------------------------------------------------------------
//
// The page starts on this server's /mcp, over WebSocket unless the page's
// address says ?transport=http (or ?url=<any MCP server>). The switch in
// the header connects again over the other transport; the URL field
// connects to any MCP server. Each connect replaces the client: the old
// one is closed and unwired, the panels start over.

const PAGE = new URLSearchParams(location.search);
const PAGE_TOKEN = PAGE.get("token"); // ?token=alice-token starts logged in
const SCHEMES = ["ws:", "wss:", "http:", "https:"];
const TRANSPORT_NAME = { ws: "WebSocket", http: "Streamable HTTP" };

/** ownEndpoint is this server's /mcp over transport ("ws" or "http"). */
function ownEndpoint(transport) {
  const u = new URL("/mcp", location.href);
  const tls = location.protocol === "https:";
  u.protocol = transport === "http" ? (tls ? "https:" : "http:") : tls ? "wss:" : "ws:";
  if (PAGE_TOKEN) u.searchParams.set("token", PAGE_TOKEN);
  return u;
}
const transportOf = (u) => (u.protocol === "ws:" || u.protocol === "wss:" ? "ws" : "http");
const isOwn = (u) => u.host === location.host && u.pathname === "/mcp";

/**
 * dialURL is what connect gets: over Streamable HTTP this server's /mcp
 * gets a fresh ?conn= key, which names the connection in 2026-07-28, where
 * each request stands alone (see demo/README.md). Other servers get the
 * URL as typed.
 */
function dialURL(u) {
  const d = new URL(u);
  if (isOwn(d) && transportOf(d) === "http" && !d.searchParams.has("conn")) {
    d.searchParams.set("conn", [...crypto.getRandomValues(new Uint8Array(9))].map((b) => b.toString(16).padStart(2, "0")).join(""));
  }
  return d;
}

/** parseTarget reads the URL field: an absolute ws:, wss:, http: or https: URL, else a TypeError. */
function parseTarget(text) {
  let u;
  try {
    u = new URL(text.trim());
  } catch {
    throw new TypeError(`${JSON.stringify(clip(text.trim(), 200))} is not an absolute URL: use ws://, wss://, http:// or https://`);
  }
  if (!SCHEMES.includes(u.protocol)) throw new TypeError(`the scheme ${clip(u.protocol, 40)} is not an MCP transport: use ws://, wss://, http:// or https://`);
  return u;
}

const STATUS_TEXT = { connecting: "connecting…", ready: "ready", reconnecting: "reconnecting…", closed: "closed", offline: "offline · retrying", failed: "failed" };
function showStatus(s) {
  const pill = $("#conn-status");
  pill.dataset.status = s;
  pill.textContent = STATUS_TEXT[s] ?? s;
  document.body.dataset.conn = s;
}

/** showTarget shows where the page connects: the switch, the field, the transport. */
function showTarget(u) {
  const transport = transportOf(u);
  for (const b of document.querySelectorAll("#connect-form [data-transport]")) b.setAttribute("aria-checked", String(b.dataset.transport === transport));
  $("#connect-url").value = u.href;
  $("#connect-url").title = clip(u.href, 2000);
  document.body.dataset.transport = transport;
  showProtocol(null, transport);
  const foreign = !isOwn(u);
  document.body.toggleAttribute("data-foreign", foreign);
  // Said once connected (showForeignNote): until then, and after a failed
  // connect, the page is connected to nothing.
  $("#foreign-note").hidden = true;
}

/** showForeignNote says, once connected to another server than the page's own, what acts on which. */
function showForeignNote(u) {
  const note = $("#foreign-note");
  const foreign = !isOwn(u);
  note.hidden = !foreign;
  note.textContent = foreign
    ? `Connected to ${clip(u.href, 300)}: log in and out (1) and Try it act on that server; situations 2–4 drive this page's own server (${location.host}), not that one.`
    : "";
}

/** showProtocol shows the transport and, once known, the negotiated protocol revision. */
function showProtocol(version, transport) {
  const v = version ? `MCP ${version}` : "MCP …";
  $("#conn-protocol").textContent = `${v} · ${TRANSPORT_NAME[transport]}`;
  $("#conn-protocol").dataset.version = version ?? "";
  $("#conn-protocol").dataset.transport = transport;
  $("#conn-protocol-short").textContent = v;
}

function showConnectError(err, u) {
  const el = $("#connect-error");
  el.hidden = !err;
  const text = err ? errorText(err) : "";
  // The package's DialError names the URL itself.
  el.textContent = err ? `${u && !text.includes(u.href) ? `${clip(u.href, 200)}: ` : ""}${text}` : "";
  el.title = clip(el.textContent, 2000);
  el.dataset.name = err?.name ?? "";
}

let generation = 0; // one per connect: what an older one does afterwards is dropped
let unwire = () => {};
let aborter = null;

/**
 * connectTo replaces the client with one connected to u. With retry (the
 * page's first connect to its own server, which may not be up yet) a
 * failure is tried again with backoff; else once, its error shown.
 */
async function connectTo(u, { retry = false } = {}) {
  const gen = ++generation;
  aborter?.abort(new DOMException("another connect replaced this one", "AbortError"));
  const ac = (aborter = new AbortController());
  const old = client;
  client = null;
  me = null;
  unwire();
  unwire = () => {};
  old?.close().catch(() => {});
  for (const p of Object.values(panels)) p.reset();
  for (const pk of [toolPicker, promptPicker, resourcePicker]) pk.forget(); // another server: its own first items
  for (const kind of KINDS) onList(kind, { items: [] }); // the buttons and pickers forget the last server too
  showTarget(u);
  showWho(false);
  $("#server-info").textContent = "…";
  showConnectError(null);
  let delay = 500;
  for (;;) {
    showStatus("connecting");
    const t0 = performance.now();
    try {
      const target = dialURL(u);
      const c = await connect(target, {
        // MCP authorization for another Streamable HTTP server, or the protected endpoint (auth.js).
        ...(transportOf(u) === "http" && !isOwn(u) ? { auth: authFor(target.href) } : {}),
        clientInfo: { name: "mcplive-demo-page", version: "0.1.0" },
        reconnect: { initialDelayMs: 250, maxDelayMs: 4000 },
        dialTimeoutMs: 5000,
        signal: ac.signal,
      });
      if (gen !== generation) {
        c.close().catch(() => {});
        return;
      }
      client = c;
      showForeignNote(u);
      log.add("status", `connected to ${clip(u.href, 200)} over ${TRANSPORT_NAME[transportOf(u)]} (MCP ${c.protocolVersion}) and synced every list`, { timing: ms(performance.now() - t0) });
      window.mcpliveDemo = Object.freeze({ client: c, url: u.href, transport: transportOf(u) });
      unwire = wire(c, u);
      return;
    } catch (err) {
      if (gen !== generation) return;
      showConnectError(err, u);
      if (!retry) {
        showStatus("failed");
        for (const p of Object.values(panels)) p.update({ items: [], status: "closed", error: null, version: 0 });
        log.add("error", `connect to ${clip(u.href, 200)} failed: ${errorText(err)}`);
        return;
      }
      showStatus("offline");
      log.add("error", `connect failed: ${errorText(err)}; trying again in ${ms(delay)}`);
      await new Promise((r) => setTimeout(r, delay));
      if (gen !== generation) return;
      delay = Math.min(delay * 2, 5000);
    }
  }
}

// The transport switch: this server's /mcp over that transport, or, for
// another server, the URL in the field with its scheme flipped.
for (const b of document.querySelectorAll("#connect-form [data-transport]")) {
  b.addEventListener("click", () => {
    const want = b.dataset.transport;
    let u;
    try {
      u = parseTarget($("#connect-url").value);
    } catch {
      u = ownEndpoint(want);
    }
    if (isOwn(u)) {
      u = ownEndpoint(want);
    } else if (transportOf(u) !== want) {
      const tls = u.protocol === "wss:" || u.protocol === "https:";
      u.protocol = want === "http" ? (tls ? "https:" : "http:") : tls ? "wss:" : "ws:";
    }
    connectTo(u);
  });
}
$("#connect-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  let u;
  try {
    u = parseTarget($("#connect-url").value);
  } catch (err) {
    showConnectError(err);
    log.add("error", `connect: ${errorText(err)}`);
    return;
  }
  connectTo(u);
});
$("#url-toggle").addEventListener("click", (ev) => {
  const open = !$("#connect-form").hasAttribute("data-open");
  $("#connect-form").toggleAttribute("data-open", open);
  ev.currentTarget.setAttribute("aria-expanded", String(open));
  if (open) $("#connect-url").focus();
});
addEventListener("pagehide", () => client?.close());

// ---- the four panels ---------------------------------------------------------

// An item is two lines: its name (with title and button), then one line of
// badges, URI and description, cut to fit (the full text is in a tooltip).
function nameRow(item, key, extra) {
  const title = typeof item.title === "string" && item.title && item.title !== key ? item.title : null;
  return h(
    "div",
    { class: "item-head" },
    iconFor(item.icons),
    h("code", { class: "key", text: key, title: clip(String(key), 500) }),
    title ? h("span", { class: "title", text: title, title: clip(title, 500) }) : null,
    extra,
  );
}
function subLine(...parts) {
  const nodes = parts.flat().filter(Boolean);
  return nodes.length ? h("p", { class: "item-sub" }, nodes) : null;
}
const desc = (item) => (typeof item.description === "string" && item.description ? h("span", { class: "desc", text: item.description, title: clip(item.description, 1000) }) : null);
const badge = (text, cls, title) => h("span", { class: ["badge", cls], text, title: title ? clip(title, 500) : clip(text, 500) });
const uriCode = (uri) => h("code", { class: "uri", text: uri, title: clip(uri, 1000) });
const tryButton = (label, onClick) => h("button", { type: "button", class: "small secondary try-btn", text: label, on: { click: onClick } });

const renderers = {
  tools: (t) => {
    const a = t.annotations ?? {};
    const badges = [a.readOnlyHint === true ? badge("read-only") : null, a.destructiveHint === true ? badge("destructive", "warn") : null];
    return [nameRow(t, t.name, tryButton("Call", () => pick("tool", t.name))), subLine(badges, desc(t))].filter(Boolean);
  },
  prompts: (p) => {
    const args = Array.isArray(p.arguments) ? p.arguments : [];
    const badges = args.map((a) => badge(`${a?.name}${a?.required ? "*" : ""}`, a?.required ? "required" : null, typeof a?.description === "string" ? a.description : null));
    return [nameRow(p, p.name, tryButton("Get", () => pick("prompt", p.name))), subLine(badges, desc(p))].filter(Boolean);
  },
  resources: (r) =>
    [
      nameRow(r, r.name, tryButton("Read", () => pick("resource", `r:${r.uri}`))),
      subLine(uriCode(r.uri), desc(r)),
    ].filter(Boolean),
  resourceTemplates: (t) =>
    [
      nameRow(t, t.name, tryButton("Use", () => pick("resource", `t:${t.uriTemplate}`))),
      subLine(uriCode(t.uriTemplate), desc(t)),
    ].filter(Boolean),
};

const panels = Object.fromEntries(KINDS.map((k) => [k, createPanel($(`#panel-${k}`), { keyOf: KEY[k], render: renderers[k] })]));

// ---- wiring a connected client ----------------------------------------------

function wire(c, u) {
  const offs = [];
  const info = c.serverInfo;
  $("#server-info").textContent = `${info.title || info.name} ${info.version}`;
  $("#server-info").title = clip(`${info.title || info.name} ${info.version}`, 500);
  showProtocol(c.protocolVersion, transportOf(u));

  let lostAt = 0;
  let prev = c.status.get();
  offs.push(
    c.status.subscribe((s) => {
      showStatus(s);
      if (s === prev) return;
      if (s === "reconnecting") {
        lostAt = performance.now();
        log.add("status", "connection lost: lists stay visible as stale; reconnecting");
      } else if (s === "ready" && prev === "reconnecting") {
        log.add("status", "reconnected; every list re-listed", { timing: `down ${ms(performance.now() - lostAt)}` });
        showProtocol(c.protocolVersion, transportOf(u));
        c.setLoggingLevel("info").catch(() => {});
        refreshWhoami();
        admin.refreshSoon();
      } else if (s === "closed") {
        log.add("status", "client closed");
      }
      prev = s;
    }),
  );

  for (const kind of KINDS) {
    let last = c[kind].get();
    offs.push(
      c[kind].subscribe((v) => {
        panels[kind].update(v);
        if (v.status !== last.status && v.status !== "loading") {
          log.add("status", `${kind}: ${listStatusText(v.status)}${v.error ? ` (${errorText(v.error)})` : ""}`);
        }
        last = v;
        onList(kind, v);
      }),
    );
  }

  offs.push(
    c.on("notification", ({ method, params }) => {
      if (method === "notifications/message") return; // shown by on("log")
      // _meta (a 2026-07-28 listen stream's subscriptionId) is bookkeeping, not news.
      const shown = params && typeof params === "object" ? Object.fromEntries(Object.entries(params).filter(([k]) => k !== "_meta")) : {};
      const detail = Object.keys(shown).length ? clip(JSON.stringify(shown), 300) : undefined;
      log.add("notification", String(method), { detail });
    }),
  );
  offs.push(
    c.on("change", (ev) => {
      const key = KEY[ev.kind];
      const names = (sign, list) => list.slice(0, 8).map((x) => sign + clip(String(key(x)), 80)).concat(list.length > 8 ? [`${sign}${list.length - 8} more`] : []);
      const parts = [...names("+", ev.added), ...names("−", ev.removed), ...names("~", ev.changed)];
      log.add("change", `${ev.kind} v${ev.version}: ${parts.join(" ") || "reordered"}`, {
        timing: changeTiming(ev),
        short: ev.cause === "notification" && typeof ev.latencyMs === "number" ? ms(ev.latencyMs) : ev.cause === "reconnect" ? "reconnect" : undefined,
        data: { cause: typeof ev.cause === "string" ? ev.cause : "", latency: typeof ev.latencyMs === "number" ? String(ev.latencyMs) : "" },
      });
      if (ev.kind === "tools") refreshWhoami();
      admin.refreshSoon();
    }),
  );
  offs.push(
    c.on("log", ({ level, logger, data }) => {
      log.add("log", `${logger ? logger + ": " : ""}${typeof data === "string" ? data : JSON.stringify(data)}`, { level, detail: level });
    }),
  );

  if (c.capabilities?.logging) c.setLoggingLevel("info").catch((err) => log.add("error", `logging/setLevel: ${errorText(err)}`));
  refreshWhoami().then(() => admin.refresh());
  return () => {
    for (const off of offs) off();
    if (subscription) {
      subscription.stop();
      subscription = null;
      $("#resource-meta").textContent = "";
    }
  };
}

/**
 * changeTiming says why a change event happened and, for one caused by a
 * list_changed, how long after that notification the re-listed list was
 * applied: the package measures it (ev.cause, ev.latencyMs). A package
 * without those fields gets no timing rather than a guessed one.
 */
function changeTiming(ev) {
  switch (ev.cause) {
    case "notification":
      return typeof ev.latencyMs === "number" && Number.isFinite(ev.latencyMs) ? `re-listed ${ms(ev.latencyMs)} after list_changed` : undefined;
    case "reconnect":
      return "re-listed after a reconnect";
    case "resync":
      return "list sent again in full (resync)";
    case "refresh":
      return "re-listed by refresh()";
    case "initial":
      return "first sync";
    default:
      return undefined;
  }
}

/** onList keeps the controls that depend on a list in step with it. */
function onList(kind, value) {
  if (kind === "tools") {
    const has = (n) => value.items.some((t) => t.name === n);
    $("#login-btn").disabled = !has("login");
    $("#logout-btn").disabled = !has("logout");
    $("#login-btn").title = has("login") ? "" : "no login tool offered (already logged in?)";
    $("#logout-btn").title = has("logout") ? "" : "no logout tool offered (not logged in?)";
    toolPicker.sync(value.items);
  } else if (kind === "prompts") {
    promptPicker.sync(value.items);
  } else {
    resourcePicker.sync();
  }
}

// ---- who am I (whoami tool) ---------------------------------------------------

let whoamiRunning = null;
let whoamiAgain = false;
function refreshWhoami() {
  if (whoamiRunning) {
    whoamiAgain = true;
    return whoamiRunning;
  }
  whoamiRunning = (async () => {
    do {
      whoamiAgain = false;
      const c = client;
      if (!c) break;
      if (!c.tools.get().items.some((t) => t.name === "whoami")) {
        showWho(true);
        break;
      }
      try {
        const r = await c.callTool("whoami", {});
        if (c !== client) {
          whoamiAgain = true; // another connection by now: ask it
          continue;
        }
        if (r.structuredContent && typeof r.structuredContent === "object") me = r.structuredContent;
        showWho(false);
      } catch (err) {
        if (c === client) log.add("error", `whoami: ${errorText(err)}`);
      }
    } while (whoamiAgain);
    whoamiRunning = null;
  })();
  return whoamiRunning;
}

function showWho(unavailable) {
  const el = clear($("#whoami"));
  if (!me) {
    el.textContent = unavailable ? "unknown (whoami not offered)" : "…";
  } else {
    el.append(
      h("code", { id: "conn-id", text: String(me.connection) }),
      " · ",
      h("span", { id: "who-user", text: me.loggedIn ? String(me.user) : "anonymous" }),
      " · ",
      h("span", { id: "who-role", text: String(me.role) }),
      ...(unavailable ? [h("span", { class: "muted", text: " (whoami not offered: may be stale)" })] : []),
    );
  }
  // The control API drives this page's server: another server's connection id means nothing to it.
  const own = !document.body.hasAttribute("data-foreign");
  admin.showConnection(own ? (me?.connection ?? null) : null);
  if (me && own) reflectRole(me.role);
}

// reflectRole shows the connection's role in the role switch, only when it
// changed: a refresh must not undo a choice the user is about to submit.
let shownRole = null;
function reflectRole(role) {
  if (role === shownRole) return;
  shownRole = role;
  $("#role-select").value = role;
}

// ---- situation 1: login / logout tools ------------------------------------------

const PASSWORDS = { alice: "wonderland", bob: "builder" };
const loginForm = $("#login-form");
loginForm.elements.namedItem("user").addEventListener("change", (ev) => {
  loginForm.elements.namedItem("password").value = PASSWORDS[ev.target.value] ?? "";
});
loginForm.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const user = loginForm.elements.namedItem("user").value;
  const password = loginForm.elements.namedItem("password").value;
  authCall("login", { user, password });
});
$("#logout-btn").addEventListener("click", () => authCall("logout", {}));

async function authCall(tool, args) {
  const out = $("#auth-result");
  out.dataset.state = "busy";
  out.textContent = `calling ${tool}…`;
  const t0 = performance.now();
  try {
    const r = await connected().callTool(tool, args);
    const text = r.content?.find((b) => b.type === "text")?.text ?? "";
    out.dataset.state = r.isError ? "error" : "ok";
    out.textContent = clip(text, 300) || (r.isError ? "failed" : "done");
    log.add("call", `${tool} → ${r.isError ? "isError" : "ok"}`, { timing: ms(performance.now() - t0) });
    refreshWhoami();
  } catch (err) {
    out.dataset.state = "error";
    out.textContent = errorText(err);
    log.add("error", `${tool}: ${errorText(err)}`);
  }
}

// ---- situations 2–4: the control API -----------------------------------------------

const admin = createAdmin({
  log,
  connectionId: () => (document.body.hasAttribute("data-foreign") ? null : (me?.connection ?? null)),
  onRole: (role) => {
    reflectRole(role);
    if (me && me.role !== role) refreshWhoami();
  },
});

// ---- the dock: "Change the lists" and "Try it" -----------------------------------------

const DOCK = ["change", "try"];
function showDock(name) {
  for (const d of DOCK) {
    $(`#dock-btn-${d}`).setAttribute("aria-selected", String(d === name));
    $(`#dock-btn-${d}`).tabIndex = d === name ? 0 : -1;
    $(`#dock-${d}`).hidden = d !== name;
  }
  if (name === "try") $("#try-dot").hidden = true;
}
for (const d of DOCK) $(`#dock-btn-${d}`).addEventListener("click", () => showDock(d));

// ---- try it: tabs -------------------------------------------------------------------

const TABS = ["tool", "prompt", "resource"];
function showTab(name) {
  for (const t of TABS) {
    $(`#tab-btn-${t}`).setAttribute("aria-selected", String(t === name));
    $(`#tab-btn-${t}`).tabIndex = t === name ? 0 : -1;
    $(`#tab-${t}`).hidden = t !== name;
  }
}
for (const t of TABS) $(`#tab-btn-${t}`).addEventListener("click", () => showTab(t));

// On a phone the dock shrinks when the lists above it grow: keep the control
// just used in view (the dock's scroll position alone would push it out),
// until the user scrolls the dock themselves.
{
  const dockBody = $(".dock-body");
  let lastControl = null;
  for (const type of ["pointerdown", "focusin", "change"]) {
    dockBody.addEventListener(type, (ev) => (lastControl = ev.target.closest?.("button, input, select, textarea, summary, label") ?? null));
  }
  for (const type of ["wheel", "touchmove"]) dockBody.addEventListener(type, () => (lastControl = null), { passive: true });
  new ResizeObserver(() => {
    if (lastControl?.isConnected && lastControl.getClientRects().length) lastControl.scrollIntoView({ block: "nearest" });
  }).observe(dockBody);
}

// Tabs follow the ARIA pattern: arrow keys, Home and End move between a tablist's tabs.
for (const list of document.querySelectorAll('[role="tablist"]')) {
  list.addEventListener("keydown", (ev) => {
    const tabs = [...list.querySelectorAll('[role="tab"]')];
    const i = tabs.indexOf(document.activeElement);
    if (i < 0) return;
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    const tab = tabs[(to + tabs.length) % tabs.length];
    tab.focus();
    tab.click();
  });
}

/** pick opens a tab with one item chosen (the panels' Call / Get / Read buttons). */
function pick(tab, value) {
  showDock("try");
  showTab(tab);
  ({ tool: toolPicker, prompt: promptPicker, resource: resourcePicker })[tab].choose(value);
  $(".dock-body").scrollTop = 0;
  // With a mouse, straight into the first field; on a touch screen that would pop up the keyboard.
  if (matchMedia("(pointer: fine)").matches) {
    document.querySelector(`#tab-${tab} .fields input, #tab-${tab} .fields select, #tab-${tab} .fields textarea, #tab-${tab} button[type=submit]`)?.focus({ preventScroll: true });
  }
}

/**
 * picker keeps a <select> of a list's items and the form of the chosen
 * one in step with the live list: a changed item rebuilds the form, a
 * removed one stays selected, marked as gone, with its button disabled.
 */
function picker({ select, keyOf, preferred, onChoose }) {
  let key = null;
  let item = null; // the chosen item object (undefined when gone, null before the first choice)
  let items = [];
  function sync(next) {
    items = next;
    if (key === null && next.length) key = next.some((x) => keyOf(x) === preferred) ? preferred : keyOf(next[0]);
    const found = next.find((x) => keyOf(x) === key);
    const opts = next.map((x) => h("option", { value: keyOf(x), text: clip(String(keyOf(x)), 120) }));
    if (key !== null && !found) opts.push(h("option", { value: key, text: `${clip(key, 120)} (no longer offered)`, disabled: true }));
    select.replaceChildren(...opts);
    if (key !== null) select.value = key;
    if (found !== item && key !== null) {
      item = found;
      onChoose(item, key);
    } else if (key === null && item !== undefined) {
      // Nothing to choose (another server, or none): no form of the last one's item.
      item = undefined;
      onChoose(undefined, null);
    }
  }
  select.addEventListener("change", () => choose(select.value));
  function choose(k) {
    key = k;
    item = null; // force a rebuild
    sync(items);
  }
  /** forget drops the choice: after a switch to another server, the first of its list is chosen. */
  function forget() {
    key = null;
    item = null;
  }
  return { sync, choose, forget, get item() { return item; }, get key() { return key; } };
}

function showFormError(el, err) {
  el.hidden = !err;
  el.textContent = err ? errorText(err) : "";
}

// ---- try it: call a tool --------------------------------------------------------------

let currentToolForm = null;
const toolPicker = picker({
  select: $("#tool-select"),
  keyOf: (t) => t.name,
  preferred: "echo",
  onChoose(tool, name) {
    showFormError($("#tool-error"), null);
    const fields = clear($("#tool-fields"));
    $("#tool-desc").textContent = tool ? tool.description ?? "" : name === null ? "" : `${clip(name, 200)} is no longer offered by the server.`;
    $("#tool-call").disabled = !tool;
    currentToolForm = tool ? toolForm(tool.inputSchema) : null;
    if (currentToolForm) fields.append(currentToolForm.element);
  },
});

$("#tool-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const tool = toolPicker.item;
  if (!tool || !currentToolForm) return;
  showFormError($("#tool-error"), null);
  if (!ev.target.reportValidity()) return;
  let args;
  try {
    args = currentToolForm.collect();
  } catch (err) {
    showFormError($("#tool-error"), err);
    return;
  }
  const out = $("#tool-result");
  out.dataset.state = "busy";
  const t0 = performance.now();
  try {
    const r = await connected().callTool(tool.name, args);
    const took = performance.now() - t0;
    renderToolResult(out, tool.name, r, took);
    log.add("call", `${clip(tool.name, 80)} → ${r.isError ? "isError" : "ok"}`, { timing: ms(took), detail: clip(JSON.stringify(args), 200) });
    if (["login", "logout"].includes(tool.name)) refreshWhoami();
  } catch (err) {
    out.dataset.state = "error";
    out.replaceChildren(h("p", { class: "result-head error", text: `${clip(tool.name, 200)} failed: ${errorText(err)}` }));
    log.add("error", `${clip(tool.name, 80)}: ${errorText(err)}`);
  }
});

function renderToolResult(out, name, r, took) {
  out.dataset.state = r.isError ? "error" : "ok";
  fill(
    out,
    h("p", { class: ["result-head", r.isError ? "error" : "ok"] }, h("strong", { text: r.isError ? "isError" : "result" }), ` of ${clip(name, 200)} · ${ms(took)}`),
    ...contentBlocks(r.content),
    r.structuredContent != null // absent (null or undefined): nothing to show
      ? h("details", { open: true, class: "structured" }, h("summary", { text: "structuredContent" }), h("pre", { class: "json", text: json(r.structuredContent) }))
      : null,
  );
}

/** contentBlocks renders MCP content blocks: text as text, images only as data: URLs. */
function contentBlocks(blocks) {
  if (!Array.isArray(blocks)) return [];
  return blocks.map((b) => {
    switch (b?.type) {
      case "text":
        return h("pre", { class: "content-text", text: String(b.text ?? "") });
      case "image": {
        const mime = String(b.mimeType ?? "");
        if (/^image\/[a-z0-9.+-]+$/i.test(mime) && /^[A-Za-z0-9+/=\s]*$/.test(String(b.data ?? ""))) {
          return h("img", { class: "content-image", alt: "image from the server", src: `data:${mime};base64,${String(b.data).replace(/\s/g, "")}` });
        }
        return h("p", { class: "muted", text: `[image of type ${mime}]` });
      }
      case "audio":
        return h("p", { class: "muted", text: `[audio ${String(b.mimeType ?? "")}, ${Math.round((String(b.data ?? "").length * 3) / 4)} bytes]` });
      case "resource_link":
        return h("p", { class: "link" }, "link: ", h("code", { text: clip(String(b.uri ?? ""), 500), title: clip(String(b.uri ?? ""), 2000) }), b.name ? ` (${clip(String(b.name), 200)})` : null);
      case "resource":
        return resourceContents([b.resource])[0] ?? h("p", { class: "muted", text: "[empty resource]" });
      default:
        return h("pre", { class: "json", text: json(b) });
    }
  });
}

function resourceContents(list) {
  if (!Array.isArray(list)) return [];
  return list.map((c) =>
    h(
      "div",
      { class: "contents" },
      h("p", { class: "contents-head" }, h("code", { text: clip(String(c?.uri ?? ""), 500), title: clip(String(c?.uri ?? ""), 2000) }), c?.mimeType ? badge(String(c.mimeType)) : null),
      typeof c?.text === "string" ? h("pre", { class: "content-text", text: c.text }) : h("p", { class: "muted", text: `[binary, ${Math.round((String(c?.blob ?? "").length * 3) / 4)} bytes]` }),
    ),
  );
}

// ---- try it: get a prompt --------------------------------------------------------------

let currentPromptForm = null;
const promptPicker = picker({
  select: $("#prompt-select"),
  keyOf: (p) => p.name,
  preferred: "summarize",
  onChoose(prompt, name) {
    showFormError($("#prompt-error"), null);
    const fields = clear($("#prompt-fields"));
    $("#prompt-desc").textContent = prompt ? prompt.description ?? "" : name === null ? "" : `${clip(name, 200)} is no longer offered by the server.`;
    $("#prompt-get").disabled = !prompt;
    currentPromptForm = prompt ? promptForm(prompt.arguments) : null;
    if (currentPromptForm) fields.append(currentPromptForm.element);
  },
});

$("#prompt-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const prompt = promptPicker.item;
  if (!prompt || !currentPromptForm) return;
  showFormError($("#prompt-error"), null);
  if (!ev.target.reportValidity()) return;
  const args = currentPromptForm.collect();
  const out = $("#prompt-result");
  const t0 = performance.now();
  try {
    const r = await connected().getPrompt(prompt.name, args);
    const took = performance.now() - t0;
    out.dataset.state = "ok";
    fill(
      out,
      h("p", { class: "result-head ok" }, h("strong", { text: clip(prompt.name, 200) }), ` · ${r.messages?.length ?? 0} message(s) · ${ms(took)}`),
      r.description ? h("p", { class: "desc", text: r.description }) : null,
      ...(r.messages ?? []).map((m) => h("div", { class: "message" }, h("span", { class: "role", text: String(m.role) }), ...contentBlocks([m.content]))),
    );
    log.add("call", `prompts/get ${clip(prompt.name, 80)} → ok`, { timing: ms(took) });
  } catch (err) {
    out.dataset.state = "error";
    out.replaceChildren(h("p", { class: "result-head error", text: `${clip(prompt.name, 200)} failed: ${errorText(err)}` }));
    log.add("error", `prompts/get ${clip(prompt.name, 80)}: ${errorText(err)}`);
  }
});

// ---- try it: read and subscribe to a resource ------------------------------------------------

let varInputs = {};
let chosen = null; // { kind: "r" | "t", key, item }
let subscription = null; // { uri, stop, updates }

const resourcePicker = (() => {
  const select = $("#resource-select");
  let key = null; // "r:<uri>" or "t:<template>"
  function sync() {
    const resources = client?.resources.get().items ?? [];
    const templates = client?.resourceTemplates.get().items ?? [];
    const all = new Map([...resources.map((r) => [`r:${r.uri}`, r]), ...templates.map((t) => [`t:${t.uriTemplate}`, t])]);
    if (key === null && all.size) key = all.has("r:demo://notes/scratch") ? "r:demo://notes/scratch" : all.keys().next().value;
    const group = (label, prefix, list, keyOf) =>
      list.length ? h("optgroup", { label }, list.map((x) => h("option", { value: prefix + keyOf(x), text: clip(String(keyOf(x)), 120) }))) : null;
    const opts = [group("Resources", "r:", resources, (r) => r.uri), group("Templates", "t:", templates, (t) => t.uriTemplate)].filter(Boolean);
    const item = key === null ? undefined : all.get(key);
    if (key !== null && !item) opts.push(h("option", { value: key, text: `${clip(key.slice(2), 120)} (no longer offered)`, disabled: true }));
    select.replaceChildren(...opts);
    if (key !== null) select.value = key;
    if (!chosen || chosen.key !== key || chosen.item !== item) {
      const sameKey = chosen?.key === key;
      chosen = key === null ? null : { kind: key[0], key, item };
      render(sameKey);
    }
  }
  function render(sameKey) {
    const vars = clear($("#resource-vars"));
    if (!sameKey) varInputs = {};
    $("#resource-read").disabled = !chosen?.item;
    if (chosen?.kind === "t" && chosen.item) {
      for (const v of templateVariables(chosen.item.uriTemplate)) {
        const input = h("input", { id: `var-${v}`, dataset: { var: v }, value: varInputs[v]?.value ?? "", autocomplete: "off", required: true, on: { input: showURI } });
        varInputs[v] = input;
        vars.append(h("div", { class: "field" }, h("label", { for: `var-${v}` }, h("span", { class: "field-name", text: v }), h("span", { class: "req", text: "*" })), input));
      }
    }
    showURI();
  }
  select.addEventListener("change", () => choose(select.value));
  function choose(k) {
    key = k;
    sync();
  }
  /** forget drops the choice: after a switch to another server, the first of its list is chosen. */
  function forget() {
    key = null;
  }
  return { sync, choose, forget };
})();

function currentURI() {
  if (!chosen) return "";
  if (chosen.kind === "r") return chosen.key.slice(2);
  const values = Object.fromEntries(Object.entries(varInputs).map(([k, el]) => [k, el.value]));
  return expandTemplate(chosen.key.slice(2), values);
}

function showURI() {
  const uri = currentURI();
  $("#resource-uri").textContent = clip(uri, 500);
  $("#resource-uri").title = clip(uri, 2000);
  const sub = $("#resource-sub");
  const subscribed = subscription !== null;
  sub.disabled = !subscribed && (!chosen?.item || chosen.kind !== "r");
  sub.textContent = subscribed ? "Unsubscribe" : "Subscribe";
  sub.setAttribute("aria-pressed", String(subscribed));
}

$("#resource-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  showFormError($("#resource-error"), null);
  if (!ev.target.reportValidity()) return;
  const uri = currentURI();
  const t0 = performance.now();
  try {
    const r = await connected().readResource(uri);
    const took = performance.now() - t0;
    $("#resource-meta").textContent = `read ${clip(uri, 120)} at ${clock()} · ${ms(took)}`;
    $("#resource-result").replaceChildren(...resourceContents(r.contents));
    log.add("call", `resources/read ${clip(uri, 120)} → ok`, { timing: ms(took) });
  } catch (err) {
    showFormError($("#resource-error"), err);
    log.add("error", `resources/read ${clip(uri, 120)}: ${errorText(err)}`);
  }
});

$("#resource-sub").addEventListener("click", () => {
  if (!client) return;
  if (subscription) {
    subscription.stop();
    log.add("call", `unsubscribed from ${clip(subscription.uri, 120)}`);
    subscription = null;
    $("#resource-meta").textContent = "";
    showURI();
    return;
  }
  const uri = currentURI();
  const sub = { uri, updates: -1, stop: () => {} };
  subscription = sub;
  sub.stop = client.subscribeResource(
    uri,
    (contents) => {
      if (subscription !== sub) return;
      sub.updates++;
      const meta = $("#resource-meta");
      meta.dataset.updates = String(sub.updates);
      const u = clip(uri, 120);
      meta.textContent = sub.updates === 0 ? `subscribed to ${u} · read at ${clock()}` : `subscribed to ${u} · updated ${sub.updates}× · last at ${clock()}`;
      $("#resource-result").replaceChildren(...resourceContents(contents));
      if (sub.updates > 0) {
        log.add("call", `re-read ${u} after resources/updated`);
        panels.resources.pulse(uri);
        if ($("#dock-try").hidden) $("#try-dot").hidden = false; // news in the other tab
      }
    },
    {
      onError: (err) => {
        showFormError($("#resource-error"), err);
        log.add("error", `subscription ${clip(uri, 120)}: ${errorText(err)}`);
      },
    },
  );
  log.add("call", `subscribed to ${clip(uri, 120)}`);
  showURI();
});

// ---- go ------------------------------------------------------------------------------

admin.init();
showDock("change");
showTab("tool");
{
  let first = ownEndpoint(PAGE.get("transport") === "http" ? "http" : "ws");
  if (PAGE.get("url")) {
    try {
      first = parseTarget(PAGE.get("url"));
    } catch (err) {
      showConnectError(err);
    }
  }
  connectTo(first, { retry: isOwn(first) });
}
