// The event log: notifications, list changes with their re-list timing,
// server log messages, connection changes, calls and control requests.
// Newest first; every text is a text node.

import { h, clip, clock } from "./dom.js";

const MAX = 300;

/**
 * createLog renders into ol (newest entry first).
 * @param {HTMLOListElement} ol
 */
export function createLog(ol) {
  let n = 0;
  /**
   * add appends one entry.
   * @param {"notification"|"change"|"log"|"status"|"call"|"control"|"error"} type
   * @param {string} text
   * @param {{ detail?: string, timing?: string, short?: string, level?: string, data?: Record<string, string> }} [more]
   *   short: the timing in a word or two, for the phone's one-line entries (default: timing)
   */
  function add(type, text, more = {}) {
    const dataset = { ...more.data, type, n: String(++n) };
    if (more.level) dataset.level = clip(more.level, 40);
    const li = h(
      "li",
      { class: ["entry", `entry-${type}`], dataset },
      h("span", { class: "tag", text: type }),
      h("time", { text: clock() }),
      h("span", { class: "text", text: clip(text, 600) }),
      more.timing ? h("span", { class: "timing", text: clip(more.timing, 200) }) : null,
      more.timing ? h("span", { class: "timing-short", "aria-hidden": "true", text: clip(more.short ?? more.timing, 40) }) : null,
      more.detail ? h("span", { class: "detail", text: clip(more.detail, 400) }) : null,
    );
    ol.prepend(li);
    while (ol.children.length > MAX) ol.lastElementChild.remove();
    return li;
  }
  const clear = () => ol.replaceChildren();
  return { add, clear };
}
