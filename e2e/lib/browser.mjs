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
