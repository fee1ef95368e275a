// Takes the README's screenshots of the demo page: docs/demo-desktop.png
// (1280×800, over Streamable HTTP) and docs/demo-phone.png (390×844, over
// WebSocket), each right after a login
// and a role switch made with the page's own controls, so the highlights
// of added and the fading of removed items are in the picture, next to the
// control that caused them and the event log.
//
//   cd e2e && npm run screenshots     (needs ../js built: ../build.sh)
import { join } from "node:path";
import { launch } from "./lib/browser.mjs";
import { startDemo, ROOT } from "./lib/demo-server.mjs";

const server = await startDemo();
const b = await launch();
try {
  for (const shot of [
    // The desktop over Streamable HTTP, the phone over WebSocket: the switch in the header shows which.
    { file: "demo-desktop.png", transport: "http", width: 1280, height: 800, deviceScaleFactor: 1 },
    { file: "demo-phone.png", transport: "ws", width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  ]) {
    const { file, transport, ...opts } = shot;
    const page = await b.newPage(opts);
    await page.goto(`${server.url}/?admin=e2e-admin-token&transport=${transport}`);
    await page.waitForSelector('#conn-status[data-status="ready"]');
    await page.waitForSelector('#admin-state[data-state="ok"]');
    await page.waitForSelector("#conn-id");

    // Some history for the event log.
    await page.check('#admin-resources input[data-name="changelog"]');
    await page.waitForSelector('#panel-resources li[data-key="demo://docs/changelog"]');
    await page.click('#panel-tools li[data-key="echo"] .try-btn');
    await page.fill('#tool-fields input[data-name="text"]', "hello from the demo page");
    await page.click("#tool-call");
    await page.waitForSelector("#tool-result pre");
    await page.click("#dock-btn-change");

    // The change in the picture: log in, then become an editor.
    await page.click("#login-btn");
    await page.waitForSelector('#panel-tools li[data-key="logout"]');
    await page.selectOption("#role-select", "editor");
    await page.click('#role-form button[type="submit"]');
    await page.waitForSelector('#panel-tools li[data-key="write_note"]');
    await page.$eval("#sit-role", (el) => el.scrollIntoView({ block: "end" })); // the control just used, in the dock
    await page.waitForTimeout(350); // into the highlight and the fade, not past them
    await page.screenshot({ path: join(ROOT, "docs", file) });
    console.log(`docs/${file}`);
    await page.context().close();
    await server.control("POST", "resources/changelog/offline");
  }
} finally {
  await b.close();
  await server.stop();
}
