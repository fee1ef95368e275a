// Forms generated from what the server declares: a tool's inputSchema
// (JSON Schema: strings, numbers, integers, booleans, enums; anything else
// as a JSON text field) and a prompt's arguments (strings). Property names,
// titles and descriptions are server data: they go into text nodes and
// data attributes only.

import { h, clip } from "./dom.js";

let seq = 0;
const uid = () => `f${++seq}`;

/** typeOf returns the JSON Schema type a field is edited as. */
function typeOf(prop) {
  if (prop === null || typeof prop !== "object") return "json";
  if (Array.isArray(prop.enum) && prop.enum.length > 0) return "enum";
  let t = prop.type;
  if (Array.isArray(t)) t = t.find((x) => x !== "null");
  if (t === "string" || t === "number" || t === "integer" || t === "boolean") return t;
  return "json";
}

const TYPE_HINT = { string: "string", number: "number", integer: "integer", boolean: "boolean", enum: "one of", json: "JSON" };

/**
 * toolForm builds the fields of a tool's inputSchema into a container.
 * collect() returns the arguments object or throws an Error saying which
 * field is wrong.
 * @param {any} schema
 * @returns {{ element: HTMLElement, collect: () => Record<string, unknown>, fields: number }}
 */
export function toolForm(schema) {
  const props = schema && typeof schema === "object" && schema.properties && typeof schema.properties === "object" ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required.filter((x) => typeof x === "string") : []);
  const names = Object.keys(props);
  const fields = names.map((name) => field(name, props[name], required.has(name)));
  const element = h("div", { class: "fields" }, fields.map((f) => f.element));

  // No declared properties but more allowed (e.g. {"type": "object"}): free JSON.
  let free = null;
  if (names.length === 0 && schema?.additionalProperties !== false) {
    free = field("", { description: "any JSON object (optional)" }, false, "Arguments (JSON object)");
    element.append(free.element);
  } else if (names.length === 0) {
    element.append(h("p", { class: "muted", text: "This tool takes no arguments." }));
  }

  const collect = () => {
    const args = {};
    for (const f of fields) {
      const v = f.read();
      if (v !== undefined) args[f.name] = v;
    }
    if (free) {
      const v = free.read();
      if (v !== undefined) {
        if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error("Arguments must be a JSON object");
        Object.assign(args, v);
      }
    }
    return args;
  };
  return { element, collect, fields: fields.length };
}

/** field builds one labelled input for a schema property. */
function field(name, prop, isRequired, labelText) {
  const type = typeOf(prop);
  const id = uid();
  const title = typeof prop?.title === "string" && prop.title ? prop.title : null;
  const description = typeof prop?.description === "string" ? prop.description : "";
  const label = h(
    "label",
    { for: id },
    h("span", { class: "field-name", text: clip(labelText ?? title ?? name, 200), title: clip(labelText ?? title ?? name, 1000) }),
    isRequired ? h("span", { class: "req", title: "required", "aria-hidden": "true", text: "*" }) : null,
    h("span", { class: "field-type", text: type === "enum" ? "" : TYPE_HINT[type] }),
  );
  const common = { id, dataset: { name, type }, "aria-required": isRequired ? "true" : null, required: isRequired && type !== "boolean" };
  const dflt = prop && typeof prop === "object" ? prop.default : undefined;
  let input;
  let read;

  switch (type) {
    case "enum": {
      const values = prop.enum;
      input = h(
        "select",
        common,
        isRequired ? null : h("option", { value: "", text: "—" }),
        values.map((v, i) => h("option", { value: String(i), text: clip(typeof v === "string" ? v : JSON.stringify(v), 200) })),
      );
      const di = values.findIndex((v) => Object.is(v, dflt));
      if (di >= 0) input.value = String(di);
      read = () => (input.value === "" ? undefined : values[Number(input.value)]);
      break;
    }
    case "boolean": {
      input = h("input", { ...common, type: "checkbox", checked: dflt === true });
      // An optional boolean is sent only when ticked; a required one always.
      read = () => (input.checked ? true : isRequired ? false : undefined);
      break;
    }
    case "number":
    case "integer": {
      input = h("input", {
        ...common,
        type: "number",
        inputmode: type === "integer" ? "numeric" : "decimal",
        step: type === "integer" ? "1" : "any",
        min: typeof prop.minimum === "number" ? prop.minimum : null,
        max: typeof prop.maximum === "number" ? prop.maximum : null,
        value: typeof dflt === "number" ? String(dflt) : null,
      });
      read = () => {
        const s = input.value.trim();
        if (s === "") {
          if (isRequired) throw new Error(`${name} is required`);
          return undefined;
        }
        const n = Number(s);
        if (!Number.isFinite(n)) throw new Error(`${name} must be a number`);
        if (type === "integer" && !Number.isInteger(n)) throw new Error(`${name} must be an integer`);
        return n;
      };
      break;
    }
    case "string": {
      input = h("input", {
        ...common,
        type: "text",
        autocomplete: "off",
        minlength: Number.isInteger(prop.minLength) ? prop.minLength : null,
        maxlength: Number.isInteger(prop.maxLength) ? prop.maxLength : null,
        value: typeof dflt === "string" ? dflt : null,
      });
      read = () => (input.value === "" && !isRequired ? undefined : input.value);
      break;
    }
    default: {
      input = h("textarea", { ...common, rows: 2, spellcheck: "false", placeholder: "{ }", value: dflt !== undefined ? JSON.stringify(dflt) : null });
      read = () => {
        const s = input.value.trim();
        if (s === "") {
          if (isRequired) throw new Error(`${name} is required`);
          return undefined;
        }
        try {
          return JSON.parse(s);
        } catch {
          throw new Error(`${name || "Arguments"}: not valid JSON`);
        }
      };
    }
  }

  const enumHint = type === "enum" ? h("span", { class: "hint", text: `one of ${prop.enum.length} values` }) : null;
  const element = h(
    "div",
    { class: ["field", `field-${type}`], dataset: { field: name } },
    type === "boolean" ? h("div", { class: "check" }, input, label) : [label, input],
    description ? h("span", { class: "hint", text: description }) : enumHint,
  );
  return { name, element, read };
}

/**
 * promptForm builds a text field per prompt argument; collect() returns
 * the arguments (strings; empty optional ones left out).
 * @param {readonly any[] | undefined} args
 */
export function promptForm(args) {
  const list = Array.isArray(args) ? args.filter((a) => a && typeof a.name === "string") : [];
  const fields = list.map((a) => field(a.name, { type: "string", title: a.title, description: a.description }, a.required === true));
  const element = h("div", { class: "fields" }, fields.map((f) => f.element));
  if (fields.length === 0) element.append(h("p", { class: "muted", text: "This prompt takes no arguments." }));
  const collect = () => {
    const out = {};
    for (const f of fields) {
      const v = f.read();
      if (v !== undefined) out[f.name] = v;
    }
    return out;
  };
  return { element, collect, fields: fields.length };
}

/**
 * templateVariables returns the variable names of an RFC 6570 URI
 * template ({name}, {+path}, {a,b}); expandTemplate fills them in
 * (simple and reserved expansion, which is what resource templates use).
 */
export function templateVariables(template) {
  const out = [];
  for (const m of String(template).matchAll(/\{([+#./;?&]?)([^}]*)\}/g)) {
    for (const v of m[2].split(",")) {
      const name = v.replace(/[*]$|:\d+$/, "").trim();
      if (name && !out.includes(name)) out.push(name);
    }
  }
  return out;
}

export function expandTemplate(template, values) {
  return String(template).replace(/\{([+#./;?&]?)([^}]*)\}/g, (_, op, vars) => {
    const enc = op === "+" || op === "#" ? encodeURI : encodeURIComponent;
    const parts = vars
      .split(",")
      .map((v) => v.replace(/[*]$|:\d+$/, "").trim())
      .filter((v) => values[v] !== undefined && values[v] !== "")
      .map((v) => (op === ";" || op === "?" || op === "&" ? `${v}=` : "") + enc(String(values[v])));
    const sep = { "": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";", "?": "&", "&": "&" }[op];
    const prefix = { "": "", "+": "", "#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&" }[op];
    return parts.length ? prefix + parts.join(sep) : "";
  });
}
