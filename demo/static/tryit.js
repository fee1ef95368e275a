// The demo's "Try it" dock: a form for each kind of item (call a tool, get a
// prompt, read or subscribe to a resource), each kept in step with its live
// list by a picker, and the dock's tabs. app.js owns the connection and
// hands this module the page's state object; nothing here keeps its own
// client.

import { h, $, clear, clip, fill, json, errorText, clock, ms, badge } from "./dom.js";
import { toolForm, promptForm, templateVariables, expandTemplate } from "./schema-form.js";

/**
 * createTryIt wires the dock. state.client is the connected client (null
 * while there is none), connected() returns it or throws; onAuthTool runs
 * after a login or logout tool call. It returns pick (the panels' Call / Get / Read buttons), onList (a list
 * changed), forget (another server: choose its first items) and
 * stopSubscription (the client goes away).
 */
export function createTryIt({ state, connected, log, panels, onAuthTool }) {
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
      if (["login", "logout"].includes(tool.name)) onAuthTool();
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
      const resources = state.client?.resources.get().items ?? [];
      const templates = state.client?.resourceTemplates.get().items ?? [];
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
    const client = state.client;
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

  showDock("change");
  showTab("tool");

  return {
    pick,
    /** onList keeps the pickers in step with a list. */
    onList(kind, value) {
      if (kind === "tools") toolPicker.sync(value.items);
      else if (kind === "prompts") promptPicker.sync(value.items);
      else resourcePicker.sync();
    },
    forget() {
      for (const pk of [toolPicker, promptPicker, resourcePicker]) pk.forget();
    },
    stopSubscription() {
      if (!subscription) return;
      subscription.stop();
      subscription = null;
      $("#resource-meta").textContent = "";
    },
  };
}
