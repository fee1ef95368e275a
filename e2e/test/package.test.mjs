// The npm package as it would be published: npm pack's file list and modes
// (no executable wasm), prepack refusing a tarball without the wasm or
// wasm_exec.js, and `npm publish --dry-run` without warnings about fields.
// Each runs on a copy of ../js, so nothing here touches the real folder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../lib/demo-server.mjs";

const JS = join(ROOT, "js");
const env = { ...process.env, npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false" };

/** npm runs npm in dir; resolves { stdout, stderr }, or rejects with them. */
function npm(dir, ...args) {
  return promisify(execFile)("npm", args, { cwd: dir, env, timeout: 60_000 });
}

/** copy makes a copy of ../js without node_modules and tests (and with the built wasm). */
function copy(t) {
  if (!existsSync(join(JS, "mcplive.wasm")) || !existsSync(join(JS, "wasm_exec.js"))) {
    throw new Error("js/mcplive.wasm or js/wasm_exec.js is missing: run ../build.sh first (./build.sh test does)");
  }
  const dir = mkdtempSync(join(tmpdir(), "mcplive-e2e-pkg-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(JS, dir, { recursive: true, filter: (src) => !["node_modules", "test"].includes(basename(src)) || src === JS });
  return dir;
}

/** packed runs `npm pack --dry-run --json` and returns [{ path, mode }]. */
async function packed(dir) {
  const { stdout } = await npm(dir, "pack", "--dry-run", "--json", "--silent");
  return JSON.parse(stdout)[0].files.map(({ path, mode }) => ({ path, mode }));
}

test("npm pack: the package's files, none executable (go build writes the wasm as 0755)", async (t) => {
  const dir = copy(t);
  chmodSync(join(dir, "mcplive.wasm"), 0o755);
  const files = await packed(dir);
  const paths = files.map((f) => f.path);
  for (const want of ["LICENSE", "README.md", "package.json", "index.js", "index.d.ts", "oauth.d.ts", "oauth-node.d.ts", "react.d.ts", "vue.d.ts", "mcplive.wasm", "wasm_exec.js", "src/loader.js", "src/oauth/index.js", "src/oauth/node.js", "src/react.js", "src/vue.js", "src/bindings.js", "bin/mcplive-bridge.js"]) {
    assert.ok(paths.includes(want), `${want} is not packed: ${paths.join(", ")}`);
  }
  const stray = paths.filter((p) => !/^(LICENSE|README\.md|package\.json|index\.js|(index|oauth|oauth-node|react|vue)\.d\.ts|mcplive\.wasm|wasm_exec\.js|src\/(oauth\/)?[\w-]+\.js|bin\/mcplive-bridge\.js)$/.test(p));
  assert.deepEqual(stray, [], "packed files that are no part of the package");
  assert.deepEqual(
    files.filter((f) => f.mode !== 0o644).map((f) => `${f.path} ${f.mode.toString(8)}`),
    [],
    "files not packed as 0644",
  );
  assert.equal(statSync(join(dir, "mcplive.wasm")).mode & 0o777, 0o644, "prepack left the wasm executable");
});

for (const [breakIt, why] of [
  [(dir) => unlinkSync(join(dir, "mcplive.wasm")), "mcplive.wasm is missing"],
  [(dir) => unlinkSync(join(dir, "wasm_exec.js")), "wasm_exec.js is missing"],
  [(dir) => writeFileSync(join(dir, "mcplive.wasm"), ""), "mcplive.wasm is empty"],
  [(dir) => writeFileSync(join(dir, "mcplive.wasm"), "<!doctype html>"), "mcplive.wasm is not a WebAssembly module"],
]) {
  test(`prepack refuses to pack when ${why}, and says how to build it`, async (t) => {
    const dir = copy(t);
    breakIt(dir);
    const err = await npm(dir, "pack", "--dry-run").then(
      () => assert.fail("npm pack succeeded"),
      (e) => e,
    );
    assert.notEqual(err.code, 0);
    assert.match(err.stderr, new RegExp(`mcplive: refusing to pack: ${why}`));
    assert.match(err.stderr, /run \.\/build\.sh/);
  });
}

test("the README's install names the tarball npm pack writes for this version", () => {
  const { name, version } = JSON.parse(readFileSync(join(JS, "package.json"), "utf8"));
  const install = readFileSync(join(ROOT, "e2e", "snippets", "install.sh"), "utf8");
  assert.match(install, new RegExp(`npm install \\./${name}-${version.replaceAll(".", "\\.")}\\.tgz\\n`), "update e2e/snippets/install.sh and the READMEs to the new version");
});

test("npm publish --dry-run: no warnings about the package", async (t) => {
  const dir = copy(t);
  // A registry on a closed local port: nothing leaves the machine, and npm's
  // only warning is that no one is logged in there.
  const { stderr } = await npm(dir, "publish", "--dry-run", "--registry", "http://127.0.0.1:9/", "--fetch-retries", "0");
  const warnings = stderr.split("\n").filter((l) => /\bwarn\b/i.test(l) && !/requires you to be logged in/.test(l));
  assert.deepEqual(warnings, []);
  assert.match(stderr, /total files:/);
});

test("mcplive/react and mcplive/vue: subpath exports with their types, React and Vue optional peers, nothing of them in the main entry's module graph", () => {
  const pkg = JSON.parse(readFileSync(join(JS, "package.json"), "utf8"));
  assert.deepEqual(pkg.exports["./react"], { types: "./react.d.ts", default: "./src/react.js" });
  assert.deepEqual(pkg.exports["./vue"], { types: "./vue.d.ts", default: "./src/vue.js" });
  for (const peer of ["react", "vue"]) {
    assert.ok(pkg.peerDependencies?.[peer], `${peer} is no peer dependency`);
    assert.equal(pkg.peerDependenciesMeta?.[peer]?.optional, true, `${peer} is not an optional peer`);
    assert.equal(pkg.dependencies?.[peer], undefined, `${peer} is a dependency`);
  }
  // The main entry's static and dynamic imports, followed through the package's own files.
  const seen = new Set();
  const walk = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const src = readFileSync(file, "utf8");
    for (const [, spec] of [...src.matchAll(/(?:^|[\s;])(?:import|export)\s[^"'`]*?from\s*["']([^"']+)["']|import\(\s*(?:\/\*[^*]*\*\/\s*)*["']([^"']+)["']\s*\)/gm)].map((m) => [m[0], m[1] ?? m[2]])) {
      assert.ok(!/^(react|vue)(\/|$)/.test(spec), `${basename(file)} imports ${spec}`);
      if (spec.startsWith(".")) walk(join(file, "..", spec));
    }
  };
  walk(join(JS, "index.js"));
  const names = [...seen].map((f) => f.slice(JS.length + 1));
  assert.ok(names.includes("src/loader.js") && names.includes("src/hub.js"), `the walk missed the main entry's modules: ${names}`);
  assert.deepEqual(names.filter((n) => /react|vue|bindings/.test(n)), [], "the main entry reaches the framework modules");
});
