// The admin side of the demo: the demo server's control API (JSON over
// HTTP with "Authorization: Bearer <admin token>", see demo/README.md).
// The token comes from the token field or from ?admin=TOKEN in the page's
// URL; it is kept in sessionStorage for this tab only.

import { h, $, errorText } from "./dom.js";

const STORAGE_KEY = "mcplive-demo-admin-token";

/**
 * createAdmin wires the admin controls of index.html.
 * @param {{ log: ReturnType<import("./log.js").createLog>, connectionId: () => string | null, onRole: (role: string) => void }} deps
 */
export function createAdmin({ log, connectionId, onRole }) {
  const tokenForm = $("#admin-token-form");
  const tokenInput = $("#admin-token");
  const stateEl = $("#admin-state");
  const sections = [...document.querySelectorAll("[data-needs-admin]")];
  const toolsEl = $("#admin-tools");
  const promptsEl = $("#admin-prompts");
  const resourcesEl = $("#admin-resources");
  const templatesEl = $("#admin-templates");
  const churnEl = $("#admin-churn");
  const roleForm = $("#role-form");
  const roleSelect = $("#role-select");
  const roleConn = $("#role-conn");
  const noteForm = $("#note-form");
  const extraForm = $("#extra-form");

  let token = "";
  let ok = false;
  let refreshTimer = 0;

  async function request(method, path, body) {
    if (!token) throw new Error("enter the admin token first");
    const res = await fetch(path, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { "Content-Type": "application/json" } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
    const text = await res.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text for the error
    }
    if (!res.ok) {
      const err = new Error(`${method} ${path}: ${res.status} ${data?.error ?? text}`);
      err.status = res.status;
      throw err;
    }
    return data;
  }

  // A state fetched across a control request may predate it: refresh()
  // drops an answer when a request started or ended while it was on the way
  // (it would flip a box the user just ticked back).
  let generation = 0;

  /** act runs one control request, logs it and refreshes the state. */
  async function act(method, path, body) {
    const t0 = performance.now();
    generation++;
    try {
      const out = await request(method, path, body);
      log.add("control", `${method} ${path}`, { timing: `${Math.round(performance.now() - t0)} ms`, detail: body ? JSON.stringify(body) : undefined });
      return out;
    } catch (err) {
      log.add("error", errorText(err));
      setState(err.status === 401 ? "wrong admin token (401)" : errorText(err), "error");
      throw err;
    } finally {
      generation++;
      refreshSoon(0);
    }
  }

  const card = $("#sit-token");
  function setState(text, kind) {
    stateEl.textContent = text;
    stateEl.dataset.state = kind;
    card.dataset.state = kind; // ok: the card folds to one line, with a Change button
  }
  $("#admin-change").addEventListener("click", () => {
    card.dataset.state = "edit";
    tokenInput.focus();
  });

  function setEnabled(on) {
    ok = on;
    for (const s of sections) s.disabled = !on;
  }

  async function refresh() {
    if (!token) {
      setEnabled(false);
      setState("no admin token: the controls below need it", "none");
      return;
    }
    try {
      const g = generation;
      const state = await request("GET", "/control/state");
      if (g !== generation) return; // a control request overtook it: the refresh after that one counts
      setEnabled(true);
      setState(`control API ok · ${state.connections.length} connection${state.connections.length === 1 ? "" : "s"} · page size ${state.pageSize}`, "ok");
      render(state);
    } catch (err) {
      setEnabled(false);
      setState(err.status === 401 ? "wrong admin token (401)" : errorText(err), "error");
    }
  }

  function refreshSoon(delay = 150) {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refresh, delay);
  }

  function render(state) {
    toggles(
      toolsEl,
      state.tools,
      (t) => t.name,
      (t) => t.enabled,
      (t) => [t.access !== "public" ? t.access : null, t.minRole !== "viewer" ? `${t.minRole}+` : null, t.extra ? "extra" : null].filter(Boolean).join(", "),
      (t, on) => act("POST", `/control/tools/${encodeURIComponent(t.name)}/${on ? "enable" : "disable"}`),
      (t) =>
        t.extra
          ? h("button", { type: "button", class: "small danger", title: `remove ${t.name}`, text: "remove", on: { click: () => act("DELETE", `/control/tools/${encodeURIComponent(t.name)}`).catch(() => {}) } })
          : null,
    );
    toggles(
      promptsEl,
      state.prompts,
      (p) => p.name,
      (p) => p.enabled,
      (p) => [p.access !== "public" ? p.access : null, p.minRole !== "viewer" ? `${p.minRole}+` : null].filter(Boolean).join(", "),
      (p, on) => act("POST", `/control/prompts/${encodeURIComponent(p.name)}/${on ? "enable" : "disable"}`),
    );
    toggles(
      resourcesEl,
      state.resources,
      (r) => r.name,
      (r) => r.online,
      (r) => r.uri,
      (r, on) => act("POST", `/control/resources/${encodeURIComponent(r.name)}/${on ? "online" : "offline"}`),
    );
    toggles(
      templatesEl,
      state.templates,
      (t) => t.name,
      (t) => t.online,
      (t) => t.uriTemplate,
      (t, on) => act("POST", `/control/templates/${encodeURIComponent(t.name)}/${on ? "online" : "offline"}`),
    );
    churnEl.checked = state.churn !== "0s";
    const me = state.connections.find((c) => c.id === connectionId());
    if (me) onRole(me.role);
  }

  /** toggles keeps one checkbox per item in el, rebuilt only when the names change. */
  function toggles(el, items, name, on, hint, set, extra = () => null) {
    const sig = items.map((x) => name(x) + "\u0000" + hint(x)).join("\u0001");
    if (el.dataset.sig !== sig) {
      el.dataset.sig = sig;
      el.replaceChildren(
        ...items.map((x) => {
          const box = h("input", {
            type: "checkbox",
            dataset: { name: name(x) },
            on: {
              change: async (ev) => {
                const want = ev.target.checked;
                ev.target.disabled = true;
                try {
                  await set(x, want);
                } catch {
                  ev.target.checked = !want;
                } finally {
                  ev.target.disabled = false;
                }
              },
            },
          });
          const hintText = hint(x);
          return h("li", { dataset: { name: name(x) } }, h("label", {}, box, h("span", { class: "toggle-name", text: name(x) }), hintText ? h("span", { class: "hint", text: hintText }) : null), extra(x));
        }),
      );
    }
    items.forEach((x, i) => {
      const box = el.children[i]?.querySelector("input");
      if (box && !box.disabled) box.checked = on(x);
    });
  }

  tokenForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    setToken(tokenInput.value.trim());
  });

  churnEl.addEventListener("change", () => {
    act("POST", "/control/churn", { interval: churnEl.checked ? "3s" : "0s" }).catch(() => (churnEl.checked = !churnEl.checked));
  });

  roleForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const id = connectionId();
    if (!id) {
      log.add("error", "role switch: this connection's id is unknown (whoami is not available)");
      return;
    }
    const c = await act("POST", `/control/connections/${encodeURIComponent(id)}/role`, { role: roleSelect.value }).catch(() => null);
    if (c) onRole(c.role);
  });

  noteForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = noteForm.elements.namedItem("text").value;
    act("PUT", "/control/resources/note/content", { text }).catch(() => {});
  });

  extraForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = extraForm.elements.namedItem("name").value.trim();
    const description = extraForm.elements.namedItem("description").value;
    const out = await act("POST", "/control/tools", { name, description: description || undefined }).catch(() => null);
    if (out) extraForm.reset();
  });

  function setToken(t) {
    token = t;
    tokenInput.value = t;
    try {
      if (t) sessionStorage.setItem(STORAGE_KEY, t);
      else sessionStorage.removeItem(STORAGE_KEY);
    } catch {
      // storage off: the token lives as long as the page
    }
    refresh();
  }

  /** init takes the token from ?admin= (then removes it from the address bar) or sessionStorage. */
  function init() {
    const url = new URL(location.href);
    let t = url.searchParams.get("admin");
    if (t !== null) {
      url.searchParams.delete("admin");
      history.replaceState(history.state, "", url);
    } else {
      try {
        t = sessionStorage.getItem(STORAGE_KEY);
      } catch {
        t = null;
      }
    }
    setToken(t ?? "");
  }

  /** showConnection updates the role switch's label with this connection's id. */
  function showConnection(id) {
    roleConn.textContent = id ?? "unknown";
  }

  return { init, refresh, refreshSoon, showConnection, get ok() { return ok; } };
}
