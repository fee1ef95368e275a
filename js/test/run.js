// npm test: builds what the tests need, runs the node:test suites (real
// wasm, real go-sdk server, headless Chromium) and the TypeScript type test.
//
// The wasm is built by ../build.sh; when js/mcplive.wasm is missing it is
// built here too. The Go test server is always (re)built (the Go build
// cache makes that quick).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, copyFileSync, readdirSync } from "node:fs";
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

if (!existsSync(path.join(js, "mcplive.wasm")) || !existsSync(path.join(js, "wasm_exec.js"))) {
  console.log("npm test: js/mcplive.wasm missing, building it (../build.sh does this with the size check)");
  run("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", path.join(js, "mcplive.wasm"), "./wasm"], {
    cwd: root,
    env: { ...process.env, GOOS: "js", GOARCH: "wasm" },
  });
  const goroot = spawnSync("go", ["env", "GOROOT"], { encoding: "utf8" }).stdout.trim();
  copyFileSync(path.join(goroot, "lib", "wasm", "wasm_exec.js"), path.join(js, "wasm_exec.js"));
}

const bin = path.join(js, "node_modules", ".cache", "mcplive", "mcplive-testserver");
mkdirSync(path.dirname(bin), { recursive: true });
run("go", ["build", "-o", bin, "./internal/cmd/mcplive-testserver"], { cwd: root });

const env = { ...process.env, MCPLIVE_TESTSERVER: bin };
if (typeof globalThis.WebSocket !== "function") {
  // Node 20: the global WebSocket is behind a flag (Node 22 has it).
  env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} --experimental-websocket --no-warnings=ExperimentalWarning`.trim();
}
const files = readdirSync(path.join(js, "test"))
  .filter((f) => f.endsWith(".test.js"))
  .map((f) => path.join("test", f));
run(process.execPath, ["--test", "--test-reporter=spec", ...files], { cwd: js, env });

console.log("npm test: type test (tsc --noEmit)");
run(process.execPath, [path.join(js, "node_modules", "typescript", "bin", "tsc"), "-p", "test/types/tsconfig.json"], { cwd: js });
console.log("npm test: type test passed");
