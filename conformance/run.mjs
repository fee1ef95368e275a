// Runs the official MCP conformance suite against mcplive (client.mjs, the
// npm package with the real wasm in Node 22) and prints one row per scenario.
//
//   node run.mjs                 every scenario below
//   node run.mjs tools_call ...  only these (by name, or revision:name)
//
// Which scenarios: every client scenario that the suite's requirement set of
// each revision lists, the authorization ones (auth/*) through mcplive/oauth
// included, the 2025-03-26 back-compat authorization scenarios, the client
// credentials extension's (clientCredentials()), plus the scenarios the
// suite runs but does not score (json-schema-2020-12-preservation, added
// after the release).
// Each revision runs with the suite version that carries it: 0.1.16 for
// 2025-11-25 (its latest release), 0.2.0-alpha.12 for 2026-07-28.
//
// A scenario passes when the suite says so (no FAILURE and no WARNING check,
// the client exited 0 in time) and it produced at least one SUCCESS check (a
// scenario whose server never heard from the client reports nothing, which
// the suite counts as a pass). EXPECTED_FAILURES lists the scenarios that
// cannot pass today, each with its reason and the checks it is known to fail;
// the run fails when any other scenario fails, when a listed one fails another
// check, and when a listed one passes (the list is then stale: remove the
// entry, and update docs/conformance.md).

import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

// The two suite versions (package.json installs both under these names).
const V01 = "conformance-2025-11-25"; // 0.1.16: the 2025-11-25 requirements
const V02 = "conformance-2026-07-28"; // 0.2.0-alpha.12: 2026-07-28, run with --spec-version

// The authorization scenarios each revision's requirement set lists.
const AUTH_2025 = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
];
const AUTH_2026 = [
  ...AUTH_2025,
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/authorization-server-migration",
  "auth/iss-supported",
  "auth/iss-not-advertised",
  "auth/iss-supported-missing",
  "auth/iss-wrong-issuer",
  "auth/iss-unexpected",
  "auth/iss-normalized",
  "auth/metadata-issuer-mismatch",
];

// [revision, scenario, suite package]
const SCENARIOS = [
  ["2025-11-25", "initialize", V01],
  ["2025-11-25", "tools_call", V01],
  ["2025-11-25", "elicitation-sep1034-client-defaults", V01],
  ["2025-11-25", "sse-retry", V01],
  // Added to the suite after 0.1.16 (not scored by either requirement set).
  ["2025-11-25", "json-schema-2020-12-preservation", V02],
  ["2026-07-28", "tools_call", V02],
  ["2026-07-28", "request-metadata", V02],
  ["2026-07-28", "sep-2322-client-request-state", V02],
  ["2026-07-28", "http-standard-headers", V02],
  ["2026-07-28", "http-custom-headers", V02],
  ["2026-07-28", "http-invalid-tool-headers", V02],
  ["2026-07-28", "json-schema-ref-no-deref", V02],
  ["2026-07-28", "json-schema-2020-12-preservation", V02],
  // MCP authorization, through mcplive/oauth (client.mjs).
  ...AUTH_2025.map((name) => ["2025-11-25", name, V01]),
  ...AUTH_2026.map((name) => ["2026-07-28", name, V02]),
  // The 2025-03-26 back-compat scenarios: no protected resource metadata.
  ["2025-03-26", "auth/2025-03-26-oauth-metadata-backcompat", V02],
  ["2025-03-26", "auth/2025-03-26-oauth-endpoint-fallback", V02],
  // Extensions (not in either requirement set): client credentials (SEP-1046).
  ["2025-11-25", "auth/client-credentials-basic", V01],
  ["2025-11-25", "auth/client-credentials-jwt", V01],
  ["2026-07-28", "auth/client-credentials-basic", V02],
  ["2026-07-28", "auth/client-credentials-jwt", V02],
  // DPoP (RFC 9449, SEP-1932): oauth({ dpop: true }).
  ["2026-07-28", "auth/dpop", V02],
  ["2026-07-28", "auth/dpop-nonce", V02],
  // Workload identity federation (SEP-1933): the JWT bearer grant.
  ["2026-07-28", "auth/wif-jwt-bearer", V02],
];

// The extensions' scenarios (on no revision's timeline): 0.2 runs them with --force.
const EXTENSIONS = new Set(["auth/client-credentials-basic", "auth/client-credentials-jwt", "auth/dpop", "auth/dpop-nonce", "auth/enterprise-managed-authorization", "auth/wif-jwt-bearer"]);

// "revision:scenario" → why it cannot pass, and the checks (ids) it is known
// to fail: a failing or warning check outside that list fails the run too,
// so an expected failure cannot hide a new regression in the same scenario.
// Keep docs/conformance.md in step.
const EXPECTED_FAILURES = {};

// Checks whose outcome depends on wall-clock timing on a loaded machine: when
// they are a scenario's only failing or warning checks, it runs once more.
const TIMING_CHECKS = {
  "2025-11-25:sse-retry": ["client-sse-retry-timing"],
};

const SUITE_TIMEOUT_MS = 120_000;

function suiteVersion(pkg) {
  return JSON.parse(readFileSync(path.join(here, "node_modules", pkg, "package.json"), "utf8")).version;
}

function runScenario(revision, scenario, pkg, outDir) {
  const bin = path.join(here, "node_modules", pkg, "dist", "index.js");
  const args = [bin, "client", "--command", `${process.execPath} ${path.join(here, "client.mjs")}`, "--scenario", scenario, "-o", outDir, "--timeout", "30000"];
  // 0.1.16 has one wire per scenario; 0.2 serves the revision it is told
  // (an extension's scenario, on no revision's timeline, runs with --force).
  if (pkg !== V01) args.push("--spec-version", revision);
  if (pkg !== V01 && EXTENSIONS.has(scenario)) args.push("--force");
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { cwd: here, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    // The suite bounds the client (--timeout); this bounds the suite itself.
    const watchdog = setTimeout(() => {
      output += `\nrun.mjs: the suite did not finish within ${SUITE_TIMEOUT_MS / 1000} s; killed\n`;
      child.kill("SIGKILL");
    }, SUITE_TIMEOUT_MS);
    child.on("close", (code) => {
      clearTimeout(watchdog);
      resolve({ code: code ?? 1, output, ms: Date.now() - started });
    });
  });
}

function readResults(outDir) {
  // -o writes <outDir>/<scenario>-<timestamp>/{checks.json,stdout.txt,stderr.txt};
  // a scenario named auth/x writes <outDir>/auth/x-<timestamp>/.
  const find = (dir) => {
    if (!existsSync(dir)) return null;
    if (existsSync(path.join(dir, "checks.json"))) return dir;
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      if (d.isDirectory()) {
        const f = find(path.join(dir, d.name));
        if (f) return f;
      }
    }
    return null;
  };
  const dir = find(outDir);
  if (!dir) return { checks: [], clientStderr: "" };
  const read = (f) => (existsSync(path.join(dir, f)) ? readFileSync(path.join(dir, f), "utf8") : "");
  const checks = read("checks.json") ? JSON.parse(read("checks.json")) : [];
  return { checks, clientStderr: read("stderr.txt") };
}

async function main() {
  const only = process.argv.slice(2);
  const selected = SCENARIOS.filter(([rev, name]) => only.length === 0 || only.includes(name) || only.includes(`${rev}:${name}`));
  if (selected.length === 0) throw new Error(`no scenario matches ${only.join(" ")}`);
  const tmp = mkdtempSync(path.join(tmpdir(), "mcplive-conformance-"));
  const rows = [];
  let unexpected = 0;
  try {
    for (const [revision, scenario, pkg] of selected) {
      const key = `${revision}:${scenario}`;
      const outDir = path.join(tmp, key.replace(/[^a-z0-9.-]/gi, "_"));
      let { code, output, ms } = await runScenario(revision, scenario, pkg, outDir);
      let { checks, clientStderr } = readResults(outDir);
      const timing = TIMING_CHECKS[key];
      const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
      if (timing && bad.length > 0 && bad.every((c) => timing.includes(c.id))) {
        console.log(`rerun            ${key}: only timing checks failed (${bad.map((c) => c.errorMessage).join("; ")})`);
        rmSync(outDir, { recursive: true, force: true });
        ({ code, output, ms } = await runScenario(revision, scenario, pkg, outDir));
        ({ checks, clientStderr } = readResults(outDir));
      }
      const count = (s) => checks.filter((c) => c.status === s).length;
      const ok = count("SUCCESS"),
        failed = count("FAILURE"),
        warnings = count("WARNING");
      const passed = code === 0 && ok > 0 && failed === 0 && warnings === 0;
      const expected = EXPECTED_FAILURES[key];
      const outside = expected ? [...new Set(checks.filter((c) => (c.status === "FAILURE" || c.status === "WARNING") && !expected.checks.includes(c.id)).map((c) => c.id))] : [];
      let verdict;
      if (passed && !expected) verdict = "pass";
      else if (passed && expected) verdict = "UNEXPECTED PASS";
      else if (!passed && expected && outside.length === 0) verdict = "expected failure";
      else verdict = "FAIL";
      if (verdict === "FAIL" || verdict === "UNEXPECTED PASS") unexpected++;
      const failing = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING").map((c) => `${c.status === "WARNING" ? "warning " : ""}${c.name}${c.errorMessage ? `: ${c.errorMessage}` : ""}`);
      if (ok === 0 && failed === 0) failing.push("no check reported (the scenario's server heard nothing it could judge)");
      if (outside.length > 0) failing.unshift(`failing outside the known failures of this expected failure: ${outside.join(", ")}`);
      rows.push({ revision, scenario, suite: suiteVersion(pkg), verdict, checks: `${ok}/${ok + failed}${warnings ? ` (${warnings} warn)` : ""}`, seconds: (ms / 1000).toFixed(1), failing, expected: expected?.reason });
      console.log(`${verdict.padEnd(16)} ${key} (${(ms / 1000).toFixed(1)} s)`);
      if (verdict === "FAIL" || verdict === "UNEXPECTED PASS" || process.env.VERBOSE) {
        for (const f of failing) console.log(`    ${f}`);
        if (verdict === "FAIL" || process.env.VERBOSE) {
          console.log("    --- suite output ---\n" + indent(output) + "\n    --- client stderr ---\n" + indent(clientStderr));
        }
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  printTable(rows);
  const counts = { pass: 0, "expected failure": 0 };
  for (const r of rows) counts[r.verdict] = (counts[r.verdict] ?? 0) + 1;
  console.log(`\n${counts["expected failure"]} expected failures (reasons above)`);
  console.log(`conformance: ${counts.pass} passed, ${unexpected} failed`);
  if (unexpected > 0) {
    console.log("Unexpected results: a FAIL is a regression (or a new requirement); an UNEXPECTED PASS means EXPECTED_FAILURES in conformance/run.mjs and docs/conformance.md are stale.");
    process.exit(1);
  }
}

function indent(s) {
  return s.trimEnd().split("\n").slice(-60).map((l) => "    " + l).join("\n");
}

function printTable(rows) {
  console.log("\n| revision | scenario | suite | result | checks passed | s |\n| --- | --- | --- | --- | --- | ---: |");
  for (const r of rows) console.log(`| ${r.revision} | ${r.scenario} | ${r.suite} | ${r.verdict} | ${r.checks} | ${r.seconds} |`);
  const notes = rows.filter((r) => r.verdict !== "pass");
  if (notes.length) console.log("");
  for (const r of notes) {
    console.log(`${r.revision} ${r.scenario}: ${r.expected ?? "unexpected"}`);
    for (const f of r.failing.slice(0, 8)) console.log(`    - ${f.slice(0, 240)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
