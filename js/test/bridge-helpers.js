// mcplive-bridge (cmd/mcplive-bridge) for the JS tests: startBridge runs it
// with -json on a free port and reads its first line.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The stdio server of npm's @modelcontextprotocol/server-everything (a devDependency), in its stdio mode. */
export const EVERYTHING = ["node", fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url)), "stdio"];
/** The go-sdk stdio server of internal/cmd/mcplive-stdioserver (its tools add and remove tools). */
export const GO_STDIO = () => [process.env.MCPLIVE_STDIOSERVER];

/** startBridge runs the bridge with args; it stops with stop() or when this process exits. */
export async function startBridge(args) {
  const bin = process.env.MCPLIVE_BRIDGE;
  if (!bin || !process.env.MCPLIVE_STDIOSERVER) throw new Error("MCPLIVE_BRIDGE is not set: run the tests with `npm test` (test/run.js builds it)");
  const proc = spawn(bin, ["-json", "-addr", "127.0.0.1:0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const log = [];
  createInterface({ input: proc.stderr }).on("line", (l) => log.push(l));
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  const line = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("the bridge did not start: " + log.join("\n"))), 20000);
    createInterface({ input: proc.stdout }).once("line", (l) => (clearTimeout(t), resolve(l)));
    proc.once("error", reject);
    proc.once("exit", (code) => reject(new Error(`the bridge exited (${code}): ${log.join("\n")}`)));
  });
  const facts = JSON.parse(line);
  return {
    ...facts,
    origin: new URL(facts.http).origin,
    log,
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGINT");
      await exited;
    },
  };
}
