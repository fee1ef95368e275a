// The hub page (hub.html): several servers in one mcplive hub, their merged
// lists with a badge for each item's server, and each server's status. It
// starts with this demo server's own /mcp over WebSocket and over Streamable
// HTTP (two servers, the same tools under two hub names); the form adds any
// MCP server URL. Items keep their objects across other servers' changes, so
// their list elements are kept too (a WeakMap from item to element).
import { createHub } from "/js/index.js";
import { KEY_FIELD } from "/js/src/kinds.js";
import { h, $, fill } from "./dom.js";

const hub = createHub({ clientInfo: { name: "mcplive-demo-hub", version: "1.0.0" } });
window.hub = hub; // for the console and the e2e tests

const COLORS = ["#3b5bdb", "#0c8599", "#e8590c", "#7048e8", "#2b8a3e", "#c2255c", "#5c940d", "#1971c2"];
const colorOf = new Map();
const color = (id) => {
  if (!colorOf.has(id)) colorOf.set(id, COLORS[colorOf.size % COLORS.length]);
  return colorOf.get(id);
};

function badge(id) {
  const b = h("span", { class: "badge", text: id, title: `server ${id}` });
  b.style.setProperty("--srv", color(id));
  return b;
}

// The page shows three of the four kinds (no templates); each item's key is its kind's key field.
for (const kind of ["tools", "prompts", "resources"]) {
  const panel = $(`#hub-${kind}`);
  const ul = $(".items", panel);
  const els = new WeakMap();
  hub[kind].subscribe((v) => {
    $(".count", panel).textContent = String(v.items.length);
    $(".version", panel).textContent = `v${v.version}`;
    const st = $(".status", panel);
    st.textContent = v.status;
    st.dataset.status = v.status;
    fill(
      ul,
      ...v.items.map((item) => {
        let li = els.get(item);
        if (!li) {
          const sub = kind === "resources" ? item.uri : item.description ?? "";
          li = h(
            "li",
            { class: "item", dataset: { key: item[KEY_FIELD[kind]], server: item.server, stale: String(item.stale) } },
            h(
              "div",
              { class: "item-head" },
              badge(item.server),
              h("span", { class: "key", text: kind === "resources" ? item.name : item.name, title: item.serverName ? `${item.serverName} on ${item.server}` : item.uri }),
              item.stale ? h("span", { class: "stale-tag", text: "stale" }) : null,
              item.approval === "changed" ? h("span", { class: "approval", text: "changed since approved" }) : null,
            ),
            sub ? h("div", { class: "item-sub" }, h("span", { class: "desc", text: sub })) : null,
          );
          els.set(item, li);
        }
        return li;
      }),
    );
  });
}

hub.servers.subscribe((list) => {
  $("#servers-count").textContent = String(list.length);
  fill(
    $("#servers"),
    ...list.map((s) =>
      h(
        "li",
        { class: "item", dataset: { key: s.id, status: s.status } },
        h(
          "div",
          { class: "srv-row" },
          badge(s.id),
          h("span", { class: "pill", dataset: { status: s.status }, text: s.status }),
          h("span", { class: "srv-spacer" }),
          h("button", { type: "button", class: "small secondary", text: "Remove", on: { click: () => hub.remove(s.id) } }),
        ),
        h("div", { class: "srv-name", text: `${s.serverInfo?.name ?? "…"}${s.protocolVersion ? ` · ${s.protocolVersion}` : ""}` }),
        h("div", { class: "srv-url", text: s.url, title: s.url }),
        s.error ? h("div", { class: "hint", text: String(s.error.message ?? s.error) }) : null,
      ),
    ),
  );
});

function showError(err) {
  const p = $("#hub-error");
  p.hidden = !err;
  p.textContent = err ? String(err.message ?? err) : "";
}

async function add(id, url, options) {
  showError(null);
  try {
    await hub.add(id, url, options);
  } catch (err) {
    showError(err);
  }
}

$("#hub-add").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const id = $("#hub-id").value.trim();
  const url = $("#hub-url").value.trim();
  add(id, url).then(() => {
    if ($("#hub-error").hidden) ($("#hub-id").value = ""), ($("#hub-url").value = "");
  });
});

// This server's own endpoints, over both transports; ?add=id=url,... adds more.
const here = new URL("/mcp", location.href);
const ws = new URL(here);
ws.protocol = location.protocol === "https:" ? "wss:" : "ws:";
const extra = (new URLSearchParams(location.search).get("add") ?? "")
  .split(",")
  .filter(Boolean)
  .map((pair) => pair.split(/=(.*)/s));
await Promise.all([add("ws", String(ws)), add("http", String(here), { protocolVersion: "2025-11-25" }), ...extra.map(([id, url]) => add(id, url))]);
document.documentElement.dataset.hub = "ready";
