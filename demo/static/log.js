// The event log: notifications, list changes with their re-list timing,
// server log messages, connection changes, calls and control requests.
// Newest first; every text is a text node.

import { h, clock } from "./dom.js";

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
   * @param {{ detail?: string, timing?: string, level?: string }} [more]
   */
  function add(type, text, more = {}) {
    const li = h(
      "li",
      { class: ["entry", `entry-${type}`], dataset: { type, n: String(++n), level: more.level } },
      h("span", { class: "tag", text: type }),
      h("time", { text: clock() }),
      h("span", { class: "text", text }),
      more.timing ? h("span", { class: "timing", text: more.timing }) : null,
      more.detail ? h("span", { class: "detail", text: more.detail }) : null,
    );
    ol.prepend(li);
    while (ol.children.length > MAX) ol.lastElementChild.remove();
    return li;
  }
  const clear = () => ol.replaceChildren();
  return { add, clear };
}
