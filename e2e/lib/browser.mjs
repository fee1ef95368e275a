// Headless Chromium (Debian's chromium, driven by playwright-core) with
// flags that keep it off the network, and helpers to read the demo page.
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";

export const CHROMIUM = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => p && existsSync(p));

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/**
 * launch starts Chromium (with a fresh user data dir).
 * newPage(options) opens a page in a fresh context and records its errors
 * in page.problems (page errors and console errors).
 */
export async function launch() {
  if (!CHROMIUM) throw new Error("no Chromium: install Debian's chromium (../build.sh test does) or set CHROMIUM");
  // launch() gives Chromium a fresh temporary --user-data-dir of its own.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  async function newPage({ width = 1280, height = 800, ...rest } = {}) {
    const context = await browser.newContext({ viewport: { width, height }, ...rest });
    const page = await context.newPage();
    page.problems = [];
    page.on("pageerror", (err) => page.problems.push(`pageerror: ${err.message}`));
    page.on("console", (msg) => {
      if (msg.type() === "error") page.problems.push(`console: ${msg.text()}`);
    });
    return page;
  }
  async function close() {
    await browser.close();
  }
  return { browser, newPage, close };
}

/** keys returns the keys of the items a panel shows (not the ones fading out). */
export function keys(page, kind) {
  return page.$$eval(`#panel-${kind} li.item:not(.removed)`, (lis) => lis.map((li) => li.dataset.key));
}

/**
 * waitKeys waits until the panel of kind shows exactly want (sorted), or
 * until the predicate (keys) => boolean holds.
 */
export async function waitKeys(page, kind, want, timeout = 10_000) {
  const sorted = Array.isArray(want) ? [...want].sort() : null;
  try {
    await page.waitForFunction(
      ({ kind, sorted }) => {
        const got = [...document.querySelectorAll(`#panel-${kind} li.item:not(.removed)`)].map((li) => li.dataset.key).sort();
        return JSON.stringify(got) === JSON.stringify(sorted);
      },
      { kind, sorted },
      { timeout, polling: 50 },
    );
  } catch (err) {
    throw new Error(`panel ${kind}: want ${JSON.stringify(sorted)}, have ${JSON.stringify((await keys(page, kind)).sort())}: ${err.message}`);
  }
}

/** openDemo opens the demo page (with the admin token when admin is set) and waits until it is ready. */
export async function openDemo(newPage, server, { admin = false, query = "", ...opts } = {}) {
  const page = await newPage(opts);
  const q = new URLSearchParams(query);
  if (admin) q.set("admin", admin === true ? (await import("./demo-server.mjs")).ADMIN_TOKEN : admin);
  await page.goto(`${server.url}/${q.size ? "?" + q : ""}`);
  await page.waitForSelector('#conn-status[data-status="ready"]', { timeout: 20_000 });
  await page.waitForSelector("#conn-id", { timeout: 10_000 }); // whoami answered
  if (admin) await page.waitForSelector('#admin-state[data-state="ok"]', { timeout: 10_000 });
  return page;
}

/** PANELS are the four live lists of the demo page. */
export const PANELS = ["#panel-tools", "#panel-prompts", "#panel-resources", "#panel-resourceTemplates"];

/**
 * outOfView returns what of selectors is not wholly inside the viewport
 * (or not shown at all): [] when every element is in view.
 */
export function outOfView(page, selectors) {
  return page.evaluate((selectors) => {
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    const out = [];
    for (const sel of selectors) {
      const el = document.querySelector(sel);
      const r = el?.getBoundingClientRect();
      if (!r || r.width === 0 || r.height === 0) out.push(`${sel}: not shown`);
      else if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) {
        out.push(`${sel}: [${Math.round(r.left)}, ${Math.round(r.top)}, ${Math.round(r.right)}, ${Math.round(r.bottom)}] outside ${vw}×${vh}`);
      }
    }
    return out;
  }, selectors);
}

/**
 * overflows returns what sticks out sideways: the document wider than the
 * viewport, any element whose visible part (its box cut by the ancestors
 * that clip) reaches past the viewport's left or right edge, the own box of
 * each element matching strict past an edge, and any scroll area that
 * scrolls sideways. [] when nothing does.
 */
export function overflows(page, strict = "") {
  return page.evaluate((strict) => {
    const vw = document.documentElement.clientWidth;
    const out = [];
    const name = (el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${el.classList.length ? "." + [...el.classList].join(".") : ""}`;
    const where = (el) => {
      const path = [];
      for (let e = el; e && e !== document.body && path.length < 4; e = e.parentElement) path.unshift(name(e));
      return path.join(" > ");
    };
    const sw = document.documentElement.scrollWidth;
    if (sw > vw) out.push(`document is ${sw} px wide in a ${vw} px viewport`);
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      let left = r.left;
      let right = r.right;
      for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== "visible") {
          const ar = a.getBoundingClientRect();
          left = Math.max(left, ar.left);
          right = Math.min(right, ar.right);
        }
      }
      if (right > left && (left < -0.5 || right > vw + 0.5)) out.push(`${where(el)}: visible from ${Math.round(left)} to ${Math.round(right)} px`);
      if (strict && el.matches(strict) && (r.left < -0.5 || r.right > vw + 0.5)) out.push(`${where(el)}: box from ${Math.round(r.left)} to ${Math.round(r.right)} px`);
      const ox = getComputedStyle(el).overflowX;
      if ((ox === "auto" || ox === "scroll") && el.scrollWidth > el.clientWidth + 1) out.push(`${where(el)}: scrolls sideways (${el.scrollWidth} in ${el.clientWidth} px)`);
      if (out.length >= 12) break;
    }
    return out;
  }, strict);
}

/** innerScrolls returns the list panels whose items do not fit and scroll inside. */
export function innerScrolls(page) {
  return page.$$eval(".panel ul.items", (uls) => uls.filter((ul) => ul.scrollHeight > ul.clientHeight + 1).map((ul) => ul.closest(".panel").id));
}
