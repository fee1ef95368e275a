#!/usr/bin/env node
// npx mcplive-bridge: runs the mcplive-bridge binary of this platform, from
// its companion package (@mcplive/bridge-<platform>-<arch>, an optional
// dependency of mcplive that npm installs only on its platform: esbuild's
// pattern), with the same arguments, standard streams and exit status.
// Go users: go run github.com/mcplive/mcplive/cmd/mcplive-bridge@latest.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const PLATFORMS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];
const platform = `${process.platform}-${process.arch}`;
const pkg = `@mcplive/bridge-${platform}`;
const exe = process.platform === "win32" ? "mcplive-bridge.exe" : "mcplive-bridge";

function binary() {
  if (process.env.MCPLIVE_BRIDGE_BINARY) return process.env.MCPLIVE_BRIDGE_BINARY;
  if (!PLATFORMS.includes(platform)) {
    fail(`no prebuilt binary for ${platform} (there are: ${PLATFORMS.join(", ")}).`);
  }
  try {
    return join(dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)), "bin", exe);
  } catch {
    fail(`the package ${pkg}, which holds the binary for this platform, is not installed.
It is an optional dependency of mcplive: reinstall without --no-optional / --omit=optional
(npm install mcplive), or install it yourself: npm install ${pkg}`);
  }
}

function fail(why) {
  console.error(`mcplive-bridge: ${why}
With Go installed: go run github.com/mcplive/mcplive/cmd/mcplive-bridge@latest [flags] -- command [args...]`);
  process.exit(1);
}

const child = spawn(binary(), process.argv.slice(2), { stdio: "inherit", windowsHide: true });
child.on("error", (err) => fail(`cannot run ${err.path ?? "the binary"}: ${err.message}`));
// Ctrl-C reaches the whole process group; a kill of this process is passed on.
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal); // die of the same signal
    process.kill(process.pid, signal);
  }
  else process.exit(code ?? 1);
});
