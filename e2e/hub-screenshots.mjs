// Screenshots of the demo's hub page (demo/static/hub.html):
// docs/hub-desktop.png (1280×800) and docs/hub-phone.png (390×844): this
// demo server's /mcp over WebSocket (2026-07-28), over Streamable HTTP
// pinned to 2025-11-25, and over Streamable HTTP 2026-07-28 (added by URL,
// ?add=), in one hub.
//
//   cd e2e && node hub-screenshots.mjs     (needs ../js built: ../build.sh)
import { join } from "node:path";
import { launch } from "./lib/browser.mjs";
import { startDemo, ROOT } from "./lib/demo-server.mjs";

const server = await startDemo();
const b = await launch();
try {
  for (const { file, ...opts } of [
    { file: "hub-desktop.png", width: 1280, height: 800, deviceScaleFactor: 1 },
    { file: "hub-phone.png", width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  ]) {
    const page = await b.newPage(opts);
    await page.goto(`${server.url}/hub.html?add=modern=${encodeURIComponent(`${server.url}/mcp`)}`);
    await page.waitForSelector('html[data-hub="ready"]');
    await page.waitForSelector('#servers li[data-status="ready"]:nth-child(3)');
    await page.screenshot({ path: join(ROOT, "docs", file) });
    if (page.problems.length) throw new Error(page.problems.join("\n"));
    console.log(`docs/${file}`);
    await page.context().close();
  }
} finally {
  await b.close();
  await server.stop();
}
