// Screenshots of the demo page's error and switch states (issue 33): a
// failed connect (banner, note), another server (the resource picker, an
// empty Templates panel). Writes /tmp/errors-shots/*.png.
import { mkdirSync } from "node:fs";
import { spawn } from "node:child_process";
import { launch } from "./lib/browser.mjs";
import { startDemo } from "./lib/demo-server.mjs";

const out = "/tmp/errors-shots";
mkdirSync(out, { recursive: true });
// Another server: the JS tests' go-sdk server.
const ts = spawn(process.env.TESTSERVER, ["-addr", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
const other = await new Promise((r) => ts.stdout.on("data", (d) => { const m = /http:\/\/[^\s"]+/.exec(String(d)); if (m) r(m[0]); }));
console.log("other server", other);
const server = await startDemo();
const server2 = await startDemo();
const otherURL = process.env.OTHER === "demo" ? `${server2.url}/mcp` : null;
const b = await launch();
try {
  for (const [name, opts] of [["desktop", { width: 1280, height: 800 }], ["phone", { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true }]]) {
    const page = await b.newPage(opts);
    await page.goto(`${server.url}/?transport=http`);
    await page.waitForSelector('#conn-status[data-status="ready"]');
    await page.click('#dock-btn-try').catch(() => {});
    await page.screenshot({ path: `${out}/${name}-own.png` });
    const go = async (url) => {
      if (name === "phone") await page.click("#url-toggle");
      await page.fill("#connect-url", url);
      await page.press("#connect-url", "Enter");
    };
    await go("ws://127.0.0.1:9/mcp");
    await page.waitForSelector('#conn-status[data-status="failed"]');
    await page.screenshot({ path: `${out}/${name}-failed.png` });
    await go(otherURL ?? other.replace(/\/?$/, "").replace(/(\/mcp)?$/, "/mcp"));
    await page.waitForSelector('#conn-status[data-status="ready"]', { timeout: 15000 }).catch(() => {});
    await page.click('#dock-btn-try').catch(() => {});
    await page.screenshot({ path: `${out}/${name}-other.png` });
    console.log(name, "resource select:", await page.evaluate(() => document.querySelector("#resource-select").value), await page.evaluate(() => document.querySelector("#resource-select").selectedOptions[0]?.text));
  }
} finally {
  await b.close();
  await server.stop?.();
  ts.kill();
}
