// npm test: builds what the tests need, runs the node:test suites (real
// wasm, real go-sdk server, headless Chromium) and the TypeScript type test.
// `node test/run.js test/x.test.js …` runs only those suites (no type test).
//
// The wasm is built by ../build.sh; when js/mcplive.wasm is missing, or
// older than a Go source of the package or the binding, it is built here
// too (a stale wasm fails tests of new code in confusing ways). The Go test server and the test build of the wasm (with
// the debugPanic hook of wasm/debug.go, which the shipped wasm lacks) are
// always (re)built (the Go build cache makes that quick).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, copyFileSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const js = fileURLToPath(new URL("..", import.meta.url));
const root = path.dirname(js);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    console.error(`npm test: ${cmd} ${args.join(" ")} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
}

// The wasm is built with wasm/modfile.sh's go.mod (coder/websocket without
// net/http), as ../build.sh builds the shipped one.
const modfile = spawnSync("bash", [path.join(root, "wasm", "modfile.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
if (modfile.status !== 0) {
  console.error("npm test: wasm/modfile.sh failed");
  process.exit(1);
}
const modflag = `-modfile=${modfile.stdout.trim()}`;

/** newestSource is the latest mtime (ms) of the Go sources the shipped wasm is built from: the root package, the binding and the internal packages they import. */
function newestSource() {
  let newest = 0;
  const internal = path.join(root, "internal");
  const dirs = [root, path.join(root, "wasm"), ...readdirSync(internal, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => path.join(internal, d.name))];
  for (const dir of dirs) {
    for (const f of readdirSync(dir)) {
      if (/\.go$/.test(f) && !/_test\.go$/.test(f) || f === "go.mod" || f === "go.sum") newest = Math.max(newest, statSync(path.join(dir, f)).mtimeMs);
    }
  }
  return newest;
}

/** mergeSegments merges the wasm's data segments in place, as ../build.sh does after go build (internal/cmd/wasmmerge): the tests run the program as it ships. */
function mergeSegments(file) {
  run("go", ["run", "./internal/cmd/wasmmerge", "-q", file], { cwd: root });
}

const shipped = path.join(js, "mcplive.wasm");
const missing = !existsSync(shipped) || !existsSync(path.join(js, "wasm_exec.js"));
if (missing || statSync(shipped).mtimeMs < newestSource()) {
  console.log(`npm test: js/mcplive.wasm ${missing ? "missing" : "older than the Go sources"}, building it (../build.sh does this with the size check)`);
  run("go", ["build", modflag, "-tags", "mcplive_rawitems", "-trimpath", "-ldflags=-s -w -buildid=", "-o", path.join(js, "mcplive.wasm"), "./wasm"], {
    cwd: root,
    env: { ...process.env, GOOS: "js", GOARCH: "wasm" },
  });
  mergeSegments(path.join(js, "mcplive.wasm"));
  const goroot = spawnSync("go", ["env", "GOROOT"], { encoding: "utf8" }).stdout.trim();
  copyFileSync(path.join(goroot, "lib", "wasm", "wasm_exec.js"), path.join(js, "wasm_exec.js"));
}

const cache = path.join(js, "node_modules", ".cache", "mcplive");
const bin = path.join(cache, "mcplive-testserver");
const testWasm = path.join(cache, "mcplive-test.wasm");
mkdirSync(cache, { recursive: true });
run("go", ["build", "-o", bin, "./internal/cmd/mcplive-testserver"], { cwd: root });
// mcplive-bridge and its go-sdk stdio test server (test/bridge*.test.js).
const bridgeBin = path.join(cache, "mcplive-bridge");
const stdioBin = path.join(cache, "mcplive-stdioserver");
// Built as ../build.sh npm-packages builds it (e2e/test/bridge-npm.test.mjs) and
// as cmd/mcplive-bridge's tests do, so that each finds the packages compiled.
run("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", bridgeBin, "./cmd/mcplive-bridge"], { cwd: root, env: { ...process.env, CGO_ENABLED: "0" } });
run("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", stdioBin, "./internal/cmd/mcplive-stdioserver"], { cwd: root, env: { ...process.env, CGO_ENABLED: "0" } });
run("go", ["build", modflag, "-tags", "mcplivetest,mcplive_rawitems", "-trimpath", "-ldflags=-s -w -buildid=", "-o", testWasm, "./wasm"], {
  cwd: root,
  env: { ...process.env, GOOS: "js", GOARCH: "wasm" },
});
mergeSegments(testWasm);

const env = { ...process.env, MCPLIVE_TESTSERVER: bin, MCPLIVE_TEST_WASM: testWasm, MCPLIVE_BRIDGE: bridgeBin, MCPLIVE_STDIOSERVER: stdioBin };
if (typeof globalThis.WebSocket !== "function") {
  // Node 20: the global WebSocket is behind a flag (Node 22 has it).
  env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} --experimental-websocket --no-warnings=ExperimentalWarning`.trim();
}
const only = process.argv.slice(2);
const files = only.length
  ? only
  : readdirSync(path.join(js, "test"))
      .filter((f) => f.endsWith(".test.js"))
      .map((f) => path.join("test", f));
run(process.execPath, ["--test", "--test-reporter=spec", ...files], { cwd: js, env });
if (only.length) process.exit(0);

console.log("npm test: type test (tsc --noEmit)");
run(process.execPath, [path.join(js, "node_modules", "typescript", "bin", "tsc"), "-p", "test/types/tsconfig.json"], { cwd: js });
// The hub's model API shapes against the APIs' own packages (their .d.ts need skipLibCheck).
run(process.execPath, [path.join(js, "node_modules", "typescript", "bin", "tsc"), "-p", "test/types/tsconfig.apis.json"], { cwd: js });
console.log("npm test: type test passed");

// The API reference (../build.sh docs) builds from the same declarations;
// TypeDoc's warnings (a broken {@link}, a type it cannot name) fail it.
console.log("npm test: API reference (TypeDoc, warnings are errors)");
const apiOut = path.join(cache, "api");
run(process.execPath, [path.join(js, "node_modules", "typedoc", "bin", "typedoc"), "--out", apiOut, "--logLevel", "Warn"], { cwd: js });
console.log("npm test: API reference built");
