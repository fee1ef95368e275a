// prepack: refuses to pack (npm pack, npm publish) a package without the
// wasm and the wasm_exec.js that must ship with it, and packs the wasm
// without an executable bit.
// Prints nothing on success.
import { chmodSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("..", import.meta.url));
const problems = [];

function check(name, ok) {
  let st;
  try {
    st = statSync(dir + name);
  } catch {
    problems.push(`${name} is missing`);
    return;
  }
  if (!st.isFile() || st.size === 0) {
    problems.push(`${name} is empty or not a file`);
    return;
  }
  const why = ok(readFileSync(dir + name));
  if (why) {
    problems.push(`${name} ${why}`);
    return;
  }
  // go build writes the wasm with mode 0755; a module is no program.
  if (st.mode & 0o111) chmodSync(dir + name, 0o644);
}

check("mcplive.wasm", (b) => (b.subarray(0, 4).equals(Buffer.from("\0asm")) ? "" : "is not a WebAssembly module"));
check("wasm_exec.js", (b) => (b.includes("globalThis.Go") ? "" : "is not Go's wasm_exec.js"));

if (problems.length) {
  console.error(`mcplive: refusing to pack: ${problems.join("; ")}.
Build them first: run ./build.sh in the mcplive repository (it writes js/mcplive.wasm
and the matching js/wasm_exec.js), then pack again.`);
  process.exit(1);
}
