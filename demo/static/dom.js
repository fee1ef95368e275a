// Small DOM helpers. Everything a server sends reaches the page through
// these as text: h() puts strings into text nodes and attributes, never
// into innerHTML (the page's CSP enforces that with Trusted Types).

/**
 * h creates an element. props: `class`, `text`, `dataset`, `on` (event
 * listeners), any other key is set as an attribute (null/false skips it,
 * true sets it empty). Children: nodes, strings (text nodes), arrays, null.
 * @param {string} tag
 * @param {Record<string, any>} [props]
 * @param {...any} children
 * @returns {HTMLElement}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v == null || v === false) continue;
    if (k === "class") el.className = Array.isArray(v) ? v.filter(Boolean).join(" ") : v;
    else if (k === "text") el.textContent = String(v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "on") for (const [type, fn] of Object.entries(v)) el.addEventListener(type, fn);
    else if (k === "value") el.value = v;
    else if (k === "checked") el.checked = Boolean(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c == null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** $ finds one element by selector (throws when the page's markup lacks it). */
export function $(sel, root = document) {
  const el = root.querySelector(sel);
  if (!el) throw new Error(`demo page: no element ${sel}`);
  return el;
}

/** fill replaces el's children with children, taken as h() takes them (null and false skipped). */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** clear removes every child of el. */
export function clear(el) {
  el.replaceChildren();
  return el;
}

/**
 * iconFor returns an <img> for the first icon whose src is an https: or
 * data:image/ URL, or null. Other schemes (http:, javascript:, relative
 * URLs that would hit this origin) are never loaded.
 * @param {readonly {src?: unknown, mimeType?: unknown}[] | undefined} icons
 */
export function iconFor(icons) {
  if (!Array.isArray(icons)) return null;
  for (const icon of icons) {
    const src = safeIconURL(icon?.src);
    if (src) {
      return h("img", { class: "icon", src, alt: "", width: 18, height: 18, loading: "lazy", referrerpolicy: "no-referrer", decoding: "async" });
    }
  }
  return null;
}

/** safeIconURL returns src when it is an https: URL or a data:image/ URL, else null. */
export function safeIconURL(src) {
  if (typeof src !== "string") return null;
  let url;
  try {
    url = new URL(src); // absolute URLs only: no base, so "/x" and "x" throw
  } catch {
    return null;
  }
  if (url.protocol === "https:") return url.href;
  if (url.protocol === "data:" && /^data:image\/[a-z0-9.+-]+[;,]/i.test(src)) return src;
  return null;
}

/** badge is a small label; its full text (or title) is the tooltip. */
export const badge = (text, cls, title) => h("span", { class: ["badge", cls], text, title: title ? clip(title, 500) : clip(text, 500) });

/**
 * clip cuts s to at most n characters (then ends it with "…"), for
 * places where a server's string is context, not content: a log line, a
 * result header, a tooltip. The boxes still wrap or cut what is left.
 */
export function clip(s, n) {
  s = String(s ?? "");
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** clock formats a Date as HH:MM:SS.mmm. */
export function clock(d = new Date()) {
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** ms formats a duration in milliseconds. */
export function ms(n) {
  if (n < 1) return `${n.toFixed(2)} ms`;
  if (n < 1000) return `${Math.round(n)} ms`;
  return `${(n / 1000).toFixed(n < 10000 ? 2 : 1)} s`;
}

/** json pretty-prints a value for a <pre>. */
export function json(v) {
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

/** errorText says what an error is, for the page. */
export function errorText(err) {
  if (err == null) return "";
  const name = err.name && err.name !== "Error" ? `${err.name}: ` : "";
  const code = err.code !== undefined ? ` (code ${err.code})` : "";
  return `${name}${err.message ?? String(err)}${code}`;
}
