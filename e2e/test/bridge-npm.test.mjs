// `npx mcplive-bridge` for a web developer without Go: the npm tarballs as
// ./build.sh npm-packages writes them (mcplive, and the companion package
// with the binary of this platform), installed in a scratch app with no Go
// on PATH; the bridge started through npx serves a stdio server
// (@modelcontextprotocol/server-everything, from js/node_modules) to the
// installed mcplive. Only this platform's binary is built here (CI time);
// ./build.sh npm-packages builds all five.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { ROOT } from "../lib/demo-server.mjs";

const run = promisify(execFile);
const PLATFORM = `${process.platform}-${process.arch}`;
const EVERYTHING = join(ROOT, "js", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
// PATH without Go: each folder that holds a go binary is left out, and
// node, npm and npx are reached through links in a folder of their own
// (in case one of those folders held them too).
const DIRS = process.env.PATH.split(delimiter).filter(Boolean);
const TOOLS = mkdtempSync(join(tmpdir(), "mcplive-npm-tools-"));
for (const tool of ["node", "npm", "npx"]) {
  const dir = DIRS.find((d) => existsSync(join(d, tool)));
  if (dir) symlinkSync(realpathSync(join(dir, tool)), join(TOOLS, tool));
}
const PATH = [TOOLS, ...DIRS.filter((d) => !existsSync(join(d, "go")))].join(delimiter);
const env = { ...process.env, PATH, GOROOT: "", npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false" };

let out, app, bare;
before(async () => {
  out = mkdtempSync(join(tmpdir(), "mcplive-npm-out-"));
  await run("bash", [join(ROOT, "build.sh"), "npm-packages", out], { env: { ...process.env, BRIDGE_PLATFORMS: PLATFORM }, timeout: 600_000 });
});
after(() => {
  for (const d of [out, app, bare, TOOLS]) if (d) rmSync(d, { recursive: true, force: true });
});

function tarball(prefix) {
  const f = readdirSync(out).find((n) => n.startsWith(prefix) && n.endsWith(".tgz"));
  assert.ok(f, `${prefix}*.tgz in ${readdirSync(out)}`);
  return join(out, f);
}

test("no Go on the scratch app's PATH", async () => {
  await assert.rejects(run("sh", ["-c", "command -v go"], { env }));
});

test("npm install mcplive (with its binary package), then npx mcplive-bridge serves a stdio server to the installed mcplive", async () => {
  app = mkdtempSync(join(tmpdir(), "mcplive-npm-app-"));
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "scratch-app", private: true, type: "module" }));
  await run("npm", ["install", tarball("mcplive-0"), tarball(`mcplive-bridge-${PLATFORM}-`)], { cwd: app, env, timeout: 300_000 });

  const help = await run("npx", ["--no-install", "mcplive-bridge", "-h"], { cwd: app, env }).catch((e) => e);
  assert.match(help.stderr, /Usage:[\s\S]*-allow-origin/);

  const bridge = spawn("npx", ["--no-install", "mcplive-bridge", "-json", "-addr", "127.0.0.1:0", "--", process.execPath, EVERYTHING, "stdio"], { cwd: app, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const log = [];
  createInterface({ input: bridge.stderr }).on("line", (l) => log.push(l));
  const exited = new Promise((r) => bridge.once("exit", (code, signal) => r({ code, signal })));
  try {
    const line = await new Promise((resolve, reject) => {
      createInterface({ input: bridge.stdout }).once("line", resolve);
      bridge.once("exit", (code) => reject(new Error(`npx mcplive-bridge exited (${code}): ${log.join("\n")}`)));
    });
    const { http, token } = JSON.parse(line);
    writeFileSync(join(app, "use.mjs"), `
import { connect, viaBridge } from "mcplive";
const [url, token] = process.argv.slice(2);
const client = await connect(url, { fetch: viaBridge(new URL(url).origin, { token }) });
const res = await client.callTool("echo", { message: "from npm" });
console.log(JSON.stringify({ tools: client.tools.get().items.map((t) => t.name), echo: res.content[0].text }));
await client.close();
`);
    const { stdout } = await run(process.execPath, ["use.mjs", http, token], { cwd: app, env, timeout: 60_000 });
    const got = JSON.parse(stdout);
    assert.ok(got.tools.includes("echo") && got.tools.includes("get-sum"), stdout);
    assert.match(got.echo, /from npm/);
  } finally {
    process.kill(-bridge.pid, "SIGINT"); // npx and the bridge: the launcher passes it on
  }
  const end = await exited;
  assert.ok(end.code === 0 || end.signal === "SIGINT", `the bridge ended with ${JSON.stringify(end)}: ${log.join("\n")}`);
});

test("without its binary package, npx mcplive-bridge says what to install, and how to run it with Go", async () => {
  bare = mkdtempSync(join(tmpdir(), "mcplive-npm-bare-"));
  writeFileSync(join(bare, "package.json"), JSON.stringify({ name: "scratch-bare", private: true, type: "module" }));
  await run("npm", ["install", "--omit=optional", tarball("mcplive-0")], { cwd: bare, env, timeout: 300_000 });
  const err = await run("npx", ["--no-install", "mcplive-bridge", "-h"], { cwd: bare, env }).then(() => assert.fail("it ran"), (e) => e);
  assert.equal(err.code, 1);
  assert.match(err.stderr, new RegExp(`@mcplive/bridge-${PLATFORM}[\\s\\S]*not installed`));
  assert.match(err.stderr, /go run github\.com\/mcplive\/mcplive\/cmd\/mcplive-bridge@latest/);
});
