// Takes the screenshots of the demo's protected mode (docs/demo-oauth-*.png,
// 1280×800 and 390 px wide): the demo server with its protected endpoint,
// in front of the authorization server of ../authserver (oidc-provider),
// signed in with the page's own "Sign in" and the popup's login and
// consent page (also shot: docs/demo-oauth-consent.png). It fails when any
// step of the sign-in does.
//
//   cd e2e && node screenshots-auth.mjs     (needs ../js built and ../authserver installed)
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { launch } from "./lib/browser.mjs";
import { startDemo, freePort, ROOT } from "./lib/demo-server.mjs";

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const secret = randomBytes(16).toString("hex");
const as = spawn(process.execPath, [join(ROOT, "authserver", "server.mjs"), "--resource", `${base}/protected/mcp`, "--origin", base, "--introspection-secret", secret], { stdio: ["pipe", "pipe", "inherit"] });
const { issuer } = JSON.parse(await new Promise((resolve) => createInterface({ input: as.stdout }).once("line", resolve)));
const server = await startDemo({ port, args: ["-auth-issuer", issuer, "-auth-secret", secret] });
const b = await launch();
try {
  for (const shot of [
    { file: "demo-oauth-desktop.png", width: 1280, height: 800, deviceScaleFactor: 1 },
    { file: "demo-oauth-phone.png", width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  ]) {
    const { file, ...opts } = shot;
    const page = await b.newPage(opts);
    await page.goto(`${server.url}/?transport=http`);
    await page.waitForSelector('#conn-status[data-status="ready"]', { timeout: 10000 }).catch((err) => {
      throw new Error(`the demo page did not connect: ${page.problems.join("; ")}`, { cause: err });
    });
    await page.waitForSelector("#sit-oauth:not([hidden])");
    const popupP = page.waitForEvent("popup");
    await page.click("#oauth-signin");
    const popup = await popupP;
    await popup.waitForSelector("#username");
    await popup.fill("#username", "alice");
    await popup.fill("#password", "wonderland");
    await popup.click("#signin");
    await popup.waitForSelector("#allow");
    if (file === "demo-oauth-desktop.png") {
      await popup.screenshot({ path: join(ROOT, "docs", "demo-oauth-consent.png") });
      console.log("docs/demo-oauth-consent.png");
    }
    await popup.click("#allow");
    await page.waitForSelector('#oauth-status[data-status="authorized"]');
    await page.waitForSelector('#conn-status[data-status="ready"]');
    await page.$eval("#sit-oauth", (el) => el.scrollIntoView({ block: "nearest" }));
    await page.screenshot({ path: join(ROOT, "docs", file) });
    console.log(`docs/${file}`, page.problems.length ? page.problems : "");
    await page.context().close();
  }
} finally {
  await b.close();
  await server.stop();
  as.stdin.end();
}
