// A live list panel: renders one store's value ({items, status, error,
// version}) as a keyed list. Items are matched by key; thanks to the
// store's structural sharing an unchanged item is the same object, so only
// new and changed items are rendered again. Added items are highlighted,
// changed ones flash, removed ones fade out before they leave the DOM.

import { h, clear, errorText } from "./dom.js";

const FADE_MS = 1800; // how long a removed item stays, fading (matches style.css)
const NEW_MS = 6000; // how long an added item keeps its highlight

const STATUS_TEXT = {
  loading: "loading",
  ready: "ready",
  stale: "stale (reconnecting)",
  error: "error",
  unsupported: "not offered",
  closed: "not connected",
};
const CACHED_TEXT = "cached (checking)";

/**
 * createPanel renders into root (a <section> with .count, .version,
 * .status, .error and ul.items inside, see index.html).
 * @param {HTMLElement} root
 * @param {{ keyOf: (item: any) => string, render: (item: any) => Node[] }} opts
 */
export function createPanel(root, { keyOf, render }) {
  const ul = root.querySelector("ul.items");
  const countEl = root.querySelector(".count");
  const versionEl = root.querySelector(".version");
  const statusEl = root.querySelector(".status");
  const errorEl = root.querySelector(".error");
  const emptyEl = root.querySelector(".empty");
  /** key → { item, li } of the items shown (not the ones fading out) */
  let shown = new Map();
  let settled = false; // true once a non-loading value was rendered: from then on, new items are highlighted

  function update(value) {
    const { items, status, error, version } = value;
    root.dataset.status = status;
    root.dataset.version = String(version);
    root.dataset.source = value.source ?? "";
    // The kept catalog of the last visit is stale too, but not for a lost connection.
    const text = value.source === "cache" && status === "stale" ? CACHED_TEXT : (STATUS_TEXT[status] ?? String(status));
    // "stale (reconnecting)": the part in brackets gives way in a narrow panel (style.css).
    const [word, more] = text.split(/(?= \()/);
    statusEl.replaceChildren(word, ...(more ? [h("span", { class: "status-more", text: more })] : []));
    statusEl.title = text;
    statusEl.dataset.status = status;
    versionEl.textContent = `v${version}`;
    countEl.textContent = String(items.length);
    errorEl.hidden = !error;
    errorEl.textContent = error ? errorText(error) : "";

    const next = new Map();
    const order = [];
    for (const item of items) {
      const key = keyOf(item);
      if (next.has(key)) continue; // a server sending a key twice: show it once
      const old = shown.get(key);
      let li;
      if (old && old.item === item) {
        li = old.li;
      } else if (old) {
        li = old.li;
        clear(li).append(...render(item));
        flash(li, "changed", 2000);
      } else {
        li = h("li", { class: "item", dataset: { key } }, render(item));
        if (settled) flash(li, "added", NEW_MS);
      }
      next.set(key, { item, li });
      order.push(li);
    }

    // Removed: fade out in place, then leave.
    const fading = [];
    const oldOrder = [...ul.children];
    for (const [key, { li }] of shown) {
      if (next.has(key)) continue;
      li.classList.remove("added", "changed");
      li.classList.add("removed");
      li.setAttribute("aria-hidden", "true");
      li.querySelectorAll("button").forEach((b) => (b.disabled = true));
      setTimeout(() => li.remove(), FADE_MS);
      fading.push(li);
    }
    // Keep fading items next to the neighbour that followed them before.
    const seq = [...order];
    for (const li of [...fading, ...oldOrder.filter((x) => x.classList.contains("removed") && !fading.includes(x) && x.isConnected)]) {
      let after = li.nextElementSibling;
      while (after && !seq.includes(after)) after = after.nextElementSibling;
      const at = after ? seq.indexOf(after) : seq.length;
      seq.splice(at, 0, li);
    }
    seq.forEach((li, i) => {
      if (ul.children[i] !== li) ul.insertBefore(li, ul.children[i] ?? null);
    });

    shown = next;
    emptyEl.hidden = items.length > 0 || status === "loading" || status === "closed";
    if (status !== "loading") settled = true;
  }

  /** pulse flashes the item of key (a subscribed resource's contents changed, not the list). */
  function pulse(key) {
    const li = shown.get(key)?.li;
    if (li) flash(li, "changed", 2000);
  }

  /** reset empties the panel for another connection: loading, nothing shown, nothing highlighted. */
  function reset() {
    shown = new Map();
    settled = false;
    ul.replaceChildren();
    update({ items: [], status: "loading", error: null, version: 0 });
  }

  return { update, pulse, reset };
}

function flash(li, cls, duration) {
  li.classList.remove(cls);
  void li.offsetWidth; // restart the animation
  li.classList.add(cls);
  const timers = (li._flash ??= {});
  clearTimeout(timers[cls]);
  timers[cls] = setTimeout(() => li.classList.remove(cls), duration);
}

/** statusText is what a list status is called on the page. */
export const listStatusText = (s) => STATUS_TEXT[s] ?? s;
