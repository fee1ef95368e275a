// node scripts/bridge-packages.mjs OUT BINDIR: the npm packages of
// mcplive-bridge (./build.sh npm-packages runs it after cross-compiling
// cmd/mcplive-bridge into BINDIR/<platform>-<arch>/). For each platform
// built, OUT/mcplive-bridge-<platform>-<arch>-<version>.tgz, the package
// @mcplive/bridge-<platform>-<arch> (os and cpu set, so npm installs it only
// there); and OUT/mcplive-<version>.tgz, the mcplive package with those
// packages as optional dependencies (esbuild's pattern). They are added
// only here, to a copy: in js/package.json they would break npm ci until
// they are published.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [out, bindir] = process.argv.slice(2).map((p) => resolve(p));
if (!out || !bindir) {
  console.error("usage: node scripts/bridge-packages.mjs OUT BINDIR");
  process.exit(2);
}
const js = fileURLToPath(new URL("..", import.meta.url));
const main = JSON.parse(readFileSync(join(js, "package.json"), "utf8"));
const PLATFORMS = [
  ["linux", "x64"],
  ["linux", "arm64"],
  ["darwin", "x64"],
  ["darwin", "arm64"],
  ["win32", "x64"],
];
mkdirSync(out, { recursive: true });
const stage = mkdtempSync(join(tmpdir(), "mcplive-npm-"));
const pack = (dir) => execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: dir, encoding: "utf8" }).trim().split("\n").at(-1);
const tarballs = [];
const optional = {};
try {
  for (const [os, cpu] of PLATFORMS) {
    const exe = os === "win32" ? "mcplive-bridge.exe" : "mcplive-bridge";
    const bin = join(bindir, `${os}-${cpu}`, exe);
    if (!existsSync(bin)) continue;
    const name = `@mcplive/bridge-${os}-${cpu}`;
    const dir = join(stage, `bridge-${os}-${cpu}`);
    mkdirSync(join(dir, "bin"), { recursive: true });
    cpSync(bin, join(dir, "bin", exe));
    chmodSync(join(dir, "bin", exe), 0o755);
    cpSync(join(js, "LICENSE"), join(dir, "LICENSE"));
    writeFileSync(join(dir, "README.md"), `# ${name}\n\nThe \`mcplive-bridge\` binary for ${os} ${cpu}: installed with [mcplive](https://www.npmjs.com/package/mcplive) as an optional dependency, run by \`npx mcplive-bridge\`. See mcplive's docs/reach-any-server.md.\n`);
    writeFileSync(join(dir, "package.json"), JSON.stringify({
      name,
      version: main.version,
      description: `The mcplive-bridge binary for ${os} ${cpu} (see the mcplive package)`,
      license: main.license,
      homepage: main.homepage,
      repository: main.repository,
      os: [os],
      cpu: [cpu],
      files: ["bin/"],
      preferUnplugged: true,
    }, null, 2) + "\n");
    tarballs.push(join(out, pack(dir)));
    optional[name] = main.version;
  }
  if (Object.keys(optional).length === 0) throw new Error(`no binary in ${bindir}/<platform>-<arch>/`);
  const dir = join(stage, "mcplive");
  cpSync(js, dir, { recursive: true, filter: (src) => !["node_modules", "test"].includes(basename(src)) || src === js });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ ...main, optionalDependencies: { ...main.optionalDependencies, ...optional } }, null, 2) + "\n");
  tarballs.push(join(out, pack(dir)));
} finally {
  rmSync(stage, { recursive: true, force: true });
}
console.log(tarballs.join("\n"));
