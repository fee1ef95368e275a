// The mcplive demo page: imports the npm package the way a page without a
// bundler does, connects to this server's /mcp, and shows the four live
// lists, the connection, an event log, the controls for the four situations
// in which lists change, and forms to call tools, get prompts and read
// (and subscribe to) resources. Every text from the server goes into the
// DOM as text (see dom.js); nothing here assigns HTML.

import { open } from "/js/index.js";
import { KINDS, KEY_FIELD } from "/js/src/kinds.js";
import { h, $, clear, clip, iconFor, ms, errorText, badge } from "./dom.js";
import { createPanel, listStatusText } from "./panels.js";
import { createLog } from "./log.js";
import { createAdmin } from "./admin.js";
import { authFor } from "./auth.js";
import { createTryIt } from "./tryit.js";

// The kinds and the key field of each, as the package spells them (one table, held equal to Go's).
const KEY = Object.fromEntries(KINDS.map((k) => [k, (item) => item[KEY_FIELD[k]]]));

const log = createLog($("#log"));
$("#log-clear").addEventListener("click", () => log.clear());
// On a phone the log is a strip of the newest entries; "More" opens it up.
$("#log-expand").addEventListener("click", (ev) => {
  const open = !$(".log").hasAttribute("data-expanded");
  $(".log").toggleAttribute("data-expanded", open);
  ev.currentTarget.setAttribute("aria-expanded", String(open));
  ev.currentTarget.textContent = open ? "Less" : "More";
});

/**
 * The page's state, in one object that the page's modules share (the Try
 * it dock reads the client from it).
 */
const state = {
  /** @type {import("/js/index.js").Client | null} the connected client; null while connecting or after a failed connect */
  client: null,
  /** whoami's answer: {connection, user, loggedIn, role}, or null */
  me: null,
  /** one per connect: what an older connect does afterwards is dropped */
  generation: 0,
  /** unwire detaches the page from the current client's stores and events */
  unwire: () => {},
  /** aborter aborts the connect in progress */
  aborter: null,
  /** whoami's refresh in progress, and whether another one was asked for meanwhile */
  whoamiRunning: null,
  whoamiAgain: false,
  /** the role shown in the role switch */
  shownRole: null,
};
/** connected returns the client, or throws while there is none (connecting, or a failed connect). */
function connected() {
  if (!state.client) throw new Error("not connected: wait for the connection, or connect to a server above");
  return state.client;
}

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
  if (isOwn(d) && transportOf(d) === "http" && !d.searchParams.has("conn")) d.searchParams.set("conn", tabConnKey());
  return d;
}

/**
 * tabConnKey is this tab's ?conn= key, kept for its reloads (sessionStorage):
 * the same URL, so the catalog kept from the last visit is this server's,
 * and the same connection on the server, so a login survives a reload.
 */
function tabConnKey() {
  const fresh = () => [...crypto.getRandomValues(new Uint8Array(9))].map((b) => b.toString(16).padStart(2, "0")).join("");
  try {
    let key = sessionStorage.getItem("mcplive-demo-conn");
    if (!key) sessionStorage.setItem("mcplive-demo-conn", (key = fresh()));
    return key;
  } catch {
    return fresh(); // storage refused (a sandboxed page): one key per load
  }
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

/**
 * connectTo replaces the client with one connected to u. With retry (the
 * page's first connect to its own server, which may not be up yet) a
 * failure is tried again with backoff; else once, its error shown.
 */
async function connectTo(u, { retry = false } = {}) {
  const gen = ++state.generation;
  state.aborter?.abort(new DOMException("another connect replaced this one", "AbortError"));
  const ac = (state.aborter = new AbortController());
  const old = state.client;
  state.client = null;
  state.me = null;
  state.unwire();
  state.unwire = () => {};
  old?.close().catch(() => {});
  for (const p of Object.values(panels)) p.reset();
  tryit.forget(); // another server: its own first items
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
      // open() hands over the client at once: its lists show the catalog
      // kept from the last visit (cache) while the client checks it with
      // the server; ready is the first full sync.
      const c = open(target, {
        // MCP authorization for another Streamable HTTP server, or the protected endpoint (auth.js).
        ...(transportOf(u) === "http" && !isOwn(u) ? { auth: authFor(target.href) } : {}),
        clientInfo: { name: "mcplive-demo-page", version: "0.1.0" },
        reconnect: { initialDelayMs: 250, maxDelayMs: 4000 },
        dialTimeoutMs: 5000,
        signal: ac.signal,
        cache: "indexeddb",
      });
      const unlists = wireLists(c, t0);
      try {
        await c.ready;
      } catch (err) {
        unlists();
        c.close().catch(() => {});
        throw err;
      }
      if (gen !== state.generation) {
        unlists();
        c.close().catch(() => {});
        return;
      }
      state.client = c;
      showForeignNote(u);
      log.add("status", `connected to ${clip(u.href, 200)} over ${TRANSPORT_NAME[transportOf(u)]} (MCP ${c.protocolVersion}) and synced every list`, { timing: ms(performance.now() - t0) });
      window.mcpliveDemo = Object.freeze({ client: c, url: u.href, transport: transportOf(u) });
      state.unwire = wire(c, u, unlists);
      return;
    } catch (err) {
      if (gen !== state.generation) return;
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
      if (gen !== state.generation) return;
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
addEventListener("pagehide", () => state.client?.close());

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
const uriCode = (uri) => h("code", { class: "uri", text: uri, title: clip(uri, 1000) });
const tryButton = (label, onClick) => h("button", { type: "button", class: "small secondary try-btn", text: label, on: { click: onClick } });

const renderers = {
  tools: (t) => {
    const a = t.annotations ?? {};
    const badges = [a.readOnlyHint === true ? badge("read-only") : null, a.destructiveHint === true ? badge("destructive", "warn") : null];
    return [nameRow(t, t.name, tryButton("Call", () => tryit.pick("tool", t.name))), subLine(badges, desc(t))].filter(Boolean);
  },
  prompts: (p) => {
    const args = Array.isArray(p.arguments) ? p.arguments : [];
    const badges = args.map((a) => badge(`${a?.name}${a?.required ? "*" : ""}`, a?.required ? "required" : null, typeof a?.description === "string" ? a.description : null));
    return [nameRow(p, p.name, tryButton("Get", () => tryit.pick("prompt", p.name))), subLine(badges, desc(p))].filter(Boolean);
  },
  resources: (r) =>
    [
      nameRow(r, r.name, tryButton("Read", () => tryit.pick("resource", `r:${r.uri}`))),
      subLine(uriCode(r.uri), desc(r)),
    ].filter(Boolean),
  resourceTemplates: (t) =>
    [
      nameRow(t, t.name, tryButton("Use", () => tryit.pick("resource", `t:${t.uriTemplate}`))),
      subLine(uriCode(t.uriTemplate), desc(t)),
    ].filter(Boolean),
};

const panels = Object.fromEntries(KINDS.map((k) => [k, createPanel($(`#panel-${k}`), { keyOf: KEY[k], render: renderers[k] })]));

// ---- wiring a connected client ----------------------------------------------

/**
 * wireLists shows c's four lists in the panels from the start: the kept
 * catalog (source "cache", status "stale") as soon as it is read, then the
 * server's. It returns the function that stops that.
 */
function wireLists(c, t0) {
  const offs = [];
  let cached = false;
  // The first sync's own status steps are the connect's news (logged when it resolves), not the lists'.
  let synced = false;
  c.ready.then(() => (synced = true), () => {});
  for (const kind of KINDS) {
    let last = c[kind].get();
    offs.push(
      c[kind].subscribe((v) => {
        panels[kind].update(v);
        if (v.source === "cache" && !cached) {
          cached = true;
          log.add("status", "showing the catalog kept from the last visit; checking it with the server", { timing: ms(performance.now() - t0) });
        } else if (synced && v.status !== last.status && v.status !== "loading") {
          log.add("status", `${kind}: ${listStatusText(v.status)}${v.error ? ` (${errorText(v.error)})` : ""}`);
        }
        last = v;
        onList(kind, v);
      }),
    );
  }
  return () => {
    for (const off of offs) off();
  };
}

function wire(c, u, unlists) {
  const offs = [unlists];
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
    tryit.stopSubscription();
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
  }
  tryit.onList(kind, value);
}

// ---- who am I (whoami tool) ---------------------------------------------------

function refreshWhoami() {
  if (state.whoamiRunning) {
    state.whoamiAgain = true;
    return state.whoamiRunning;
  }
  state.whoamiRunning = (async () => {
    do {
      state.whoamiAgain = false;
      const c = state.client;
      if (!c) break;
      if (!c.tools.get().items.some((t) => t.name === "whoami")) {
        showWho(true);
        break;
      }
      try {
        const r = await c.callTool("whoami", {});
        if (c !== state.client) {
          state.whoamiAgain = true; // another connection by now: ask it
          continue;
        }
        if (r.structuredContent && typeof r.structuredContent === "object") state.me = r.structuredContent;
        showWho(false);
      } catch (err) {
        if (c === state.client) log.add("error", `whoami: ${errorText(err)}`);
      }
    } while (state.whoamiAgain);
    state.whoamiRunning = null;
  })();
  return state.whoamiRunning;
}

function showWho(unavailable) {
  const el = clear($("#whoami"));
  if (!state.me) {
    el.textContent = unavailable ? "unknown (whoami not offered)" : "…";
  } else {
    el.append(
      h("code", { id: "conn-id", text: String(state.me.connection) }),
      " · ",
      h("span", { id: "who-user", text: state.me.loggedIn ? String(state.me.user) : "anonymous" }),
      " · ",
      h("span", { id: "who-role", text: String(state.me.role) }),
      ...(unavailable ? [h("span", { class: "muted", text: " (whoami not offered: may be stale)" })] : []),
    );
  }
  // The control API drives this page's server: another server's connection id means nothing to it.
  const own = !document.body.hasAttribute("data-foreign");
  admin.showConnection(own ? (state.me?.connection ?? null) : null);
  if (state.me && own) reflectRole(state.me.role);
}

// reflectRole shows the connection's role in the role switch, only when it
// changed: a refresh must not undo a choice the user is about to submit.
function reflectRole(role) {
  if (role === state.shownRole) return;
  state.shownRole = role;
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
  connectionId: () => (document.body.hasAttribute("data-foreign") ? null : (state.me?.connection ?? null)),
  onRole: (role) => {
    reflectRole(role);
    if (state.me && state.me.role !== role) refreshWhoami();
  },
});

// ---- the dock: "Change the lists" and "Try it" (tryit.js) -------------------------------

const tryit = createTryIt({ state, connected, log, panels, onAuthTool: refreshWhoami });

// ---- go ------------------------------------------------------------------------------

admin.init();
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
