// The four list kinds and the key field of each: the one table of them in
// JavaScript, shared by the package (lists.js, cache.js, the hub) and the
// demo page (demo/static/app.js imports it). It spells what the Go side's
// kind registry spells (kindSpec's field and key): kinds_js_internal_test.go
// reads this file and fails when the two differ.

/** The key field of each list kind, as the Go side keys them. */
export const KEY_FIELD = Object.freeze({
  tools: "name",
  prompts: "name",
  resources: "uri",
  resourceTemplates: "uriTemplate",
});

/** The list kinds, in the Go side's order (mcplive.Kinds). */
export const KINDS = Object.freeze(Object.keys(KEY_FIELD));
