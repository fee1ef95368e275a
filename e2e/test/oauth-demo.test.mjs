// The demo's protected mode in headless Chromium: the demo server with its
// protected endpoint (/protected/mcp) in front of the real authorization
// server of ../authserver (oidc-provider, with its login and consent page),
// as ./build.sh demo runs them. The page's "Sign in" opens the popup in the
// click, playwright logs in and gives consent, and the lists show the
// protected catalog (alice's tools); "Sign out" revokes at the server. The
// URL field signs in to a protected URL typed into it the same way.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { launch, openDemo, waitKeys, CHROMIUM } from "../lib/browser.mjs";
import { startDemo, buildDemo, freePort, ROOT } from "../lib/demo-server.mjs";

const skip = !CHROMIUM
  ? "no Chromium: install Debian's chromium (../build.sh test does) or set CHROMIUM"
  : !existsSync(join(ROOT, "authserver", "node_modules", "oidc-provider"))
    ? "authserver/ is not installed (../build.sh test runs npm ci there)"
    : false;

const ALICE_TOOLS = ["add", "echo", "logout", "now", "random_number", "search", "uppercase", "whoami", "word_count"];

describe("the demo's protected mode: sign in with the authorization server's popup", { skip }, () => {
  let b, server, as, issuer, base;
  before(async () => {
    await buildDemo();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const secret = randomBytes(16).toString("hex");
    as = spawn(process.execPath, [join(ROOT, "authserver", "server.mjs"), "--resource", `${base}/protected/mcp`, "--origin", base, "--introspection-secret", secret], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    ({ issuer } = JSON.parse(await new Promise((resolve) => createInterface({ input: as.stdout }).once("line", resolve))));
    server = await startDemo({ port, args: ["-auth-issuer", issuer, "-auth-secret", secret] });
    b = await launch();
  });
  after(async () => {
    await b?.close();
    await server?.stop();
    as?.stdin.end();
  });

  const stats = async () => (await fetch(`${issuer}/_test/stats`)).json();

  /** consent logs in as alice in the popup and allows. */
  async function consent(popup) {
    await popup.waitForSelector("#username");
    await popup.fill("#username", "alice");
    await popup.fill("#password", "wonderland");
    await popup.click("#signin");
    await popup.waitForSelector("#allow");
    await popup.click("#allow");
  }

  test("Sign in: the popup, login and consent; the lists are the protected catalog; Sign out revokes", async (t) => {
    const page = await openDemo(b.newPage, server, { query: "transport=http" });
    t.after(() => page.context().close());
    await page.waitForSelector("#sit-oauth:not([hidden])");
    assert.equal(await page.$eval("#oauth-status", (el) => el.textContent), "Not signed in.");

    const popupP = page.waitForEvent("popup");
    await page.click("#oauth-signin");
    await consent(await popupP);
    await page.waitForSelector('#oauth-status[data-status="authorized"]');
    assert.match(await page.$eval("#oauth-status", (el) => el.textContent), new RegExp(`Signed in at ${issuer.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: tools:read`));
    await page.waitForSelector('#conn-status[data-status="ready"]');
    await waitKeys(page, "tools", ALICE_TOOLS); // the token's user is the connection's
    await page.waitForFunction(() => /alice/.test(document.querySelector("#whoami")?.textContent ?? ""));

    const before = await stats();
    await page.click("#oauth-signout");
    await page.waitForFunction(() => ["none", "needs-authorization"].includes(document.querySelector("#oauth-status")?.dataset.status));
    // Sign-out revokes the refresh token, then the access token.
    for (let s = await stats(); s.revocation < before.revocation + 1; s = await stats()) await new Promise((r) => setTimeout(r, 50));
    // Only the 401s of the protected endpoint may reach the console.
    assert.deepEqual(page.problems.filter((p) => !/status of 401/.test(p)), []);
  });

  test("the URL field: a protected URL asks to sign in, and signs in the same way", async (t) => {
    const page = await openDemo(b.newPage, server, { query: "transport=http" });
    t.after(() => page.context().close());
    await page.fill("#connect-url", `${base}/protected/mcp`);
    await page.click("#connect-form button[type=submit]");
    await page.waitForSelector('#oauth-status[data-status="needs-authorization"]');
    await page.waitForSelector("#sit-oauth:not([hidden])");
    const popupP = page.waitForEvent("popup");
    await page.click("#oauth-signin");
    await consent(await popupP);
    await page.waitForSelector('#oauth-status[data-status="authorized"]');
    await waitKeys(page, "tools", ALICE_TOOLS);
  });
});
