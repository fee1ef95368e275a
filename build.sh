#!/usr/bin/env bash
# build.sh — build, test, demo and benchmark mcplive.
#
#   ./build.sh          build the wasm into js/ and print its size
#   ./build.sh demo     build everything and serve the demo on http://127.0.0.1:8080
#   ./build.sh test     every test: Go (-race), fuzz smoke, wasm build, JS package, browser e2e,
#                       benchmark smoke run
#   ./build.sh bench    the benchmarks (Go and browser side by side with the TS SDK)
#   ./build.sh bridge ARGS...  run mcplive-bridge (cmd/mcplive-bridge), e.g.
#                       ./build.sh bridge -allow-origin http://localhost:5173 -- npx -y @modelcontextprotocol/server-everything
#   ./build.sh npm-packages [OUT]  the npm tarballs into OUT (default dist/npm): mcplive, with
#                       mcplive-bridge cross-compiled for linux and macOS (x64, arm64) and Windows
#                       x64 in companion packages @mcplive/bridge-<os>-<cpu> (BRIDGE_PLATFORMS
#                       narrows the list, e.g. BRIDGE_PLATFORMS=linux-x64)
#   ./build.sh docs     the API reference (TypeDoc, from js/*.d.ts) into docs/api/
#   ./build.sh size     the wasm's size by package (code by function name, data in one row)
#   ./build.sh conformance  the official MCP conformance suite against the npm package
#                       (Node 22 from npm), every client scenario of 2025-11-25
#                       and 2026-07-28; fails on any result not listed in conformance/run.mjs
#
# Each command installs what it needs (Go modules, npm ci, Debian chromium when
# missing and we are root) and fails with a clear message otherwise.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
die() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

# Size budget for the brotli-compressed wasm (issue: keep every user's download small).
# 0.92 MB on 2026-12-02 (without net/http and net: wasm/modfile.sh; without
# encoding/json's decoder and encoder: jsonwire*.go, jsonenc.go); 830,939 B on
# 2026-12-07 (data segments merged: internal/cmd/wasmmerge; without fmt,
# encoding/json, os, runtime/debug and encoding/base64: internal/printf); the
# budget keeps 2 % of room. ./build.sh size shows what a change costs.
MAX_BROTLI_BYTES=${MAX_BROTLI_BYTES:-847600}

need_go() {
  command -v go >/dev/null || die "Go is not installed (need Go >= 1.26 on PATH)"
  go mod download || die "go mod download failed (is the Go module proxy reachable?)"
}

need_node() {
  command -v node >/dev/null || die "Node.js >= 20 is not installed"
  local major; major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || die "Node.js >= 20 required, found $(node --version)"
  # Node 20 has a global WebSocket only behind a flag; Node 22 has it by default.
  if [ "$major" -lt 22 ]; then
    export NODE_OPTIONS="${NODE_OPTIONS:-} --experimental-websocket --no-warnings=ExperimentalWarning"
  fi
}

npm_ci() { # npm_ci DIR
  local dir=$1
  [ -f "$dir/package-lock.json" ] || die "$dir/package-lock.json missing"
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    say "npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed in $dir"
  fi
}

need_chromium() {
  if [ -n "${CHROMIUM:-}" ] && [ -x "$CHROMIUM" ]; then return; fi
  for c in /usr/bin/chromium /usr/bin/chromium-browser; do
    if [ -x "$c" ]; then export CHROMIUM=$c; return; fi
  done
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing Debian chromium (apt-get)"
    apt-get update -qq >/dev/null || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || die "apt-get install chromium failed"
    export CHROMIUM=/usr/bin/chromium
    return
  fi
  die "Chromium not found: install Debian's 'chromium' package (apt-get install chromium) or set CHROMIUM=/path/to/chromium"
}

build_wasm() {
  need_go
  say "building js/mcplive.wasm"
  local modfile; modfile=$(wasm/modfile.sh) || die "could not prepare the wasm's go.mod (wasm/modfile.sh)"
  # The wasm must not link net/http (see wasm/modfile.sh: about 390 KB of
  # the compressed download) nor package net (33 KB, and its initialisation
  # at every start); a dependency that brings them back fails here.
  local heavy; heavy=$(GOOS=js GOARCH=wasm go list -modfile="$modfile" -deps ./wasm | grep -xE 'net|net/http|crypto/tls|crypto/x509' || true)
  [ -z "$heavy" ] || die "the wasm links $(echo $heavy) (through: $(GOOS=js GOARCH=wasm go list -modfile="$modfile" -deps -f '{{.ImportPath}} {{join .Imports " "}}' ./wasm | grep -E ' net(/http)?( |$)' | cut -d' ' -f1 | tr '\n' ' ')); keep net and net/http out of every package the wasm imports"
  # Nor fmt (with the reflection it prints with, ~33 KB brotli), encoding/json
  # (its package initialisation alone keeps reflection, fmt and os: ~26 KB),
  # os or runtime/debug (they import fmt's and os's initialisation): one
  # import anywhere, a dependency's included, links them (measured 2026-12-07).
  local deps; deps=$(GOOS=js GOARCH=wasm go list -modfile="$modfile" -tags mcplive_rawitems -deps -f '{{.ImportPath}} {{join .Imports " "}}' ./wasm)
  local pkg via
  for pkg in fmt encoding/json os runtime/debug; do
    via=$(echo "$deps" | grep -E " $pkg( |\$)" | cut -d' ' -f1 | tr '\n' ' ' || true)
    [ -z "$via" ] || die "the wasm imports $pkg (imported by: $via). Wasm-side code formats with internal/printf (printf.Errorf and printf.Sprintf: fmt's output for %s %d %q %v %w %T) or errors.New, strconv and string concatenation; JSON values are mcplive.RawMessage (not json.RawMessage) and are read and written with internal/jsontext; for a dependency, see wasm/modfile.sh's patches. List the importers: GOOS=js GOARCH=wasm go list -modfile=\$(wasm/modfile.sh) -tags mcplive_rawitems -deps -f '{{.ImportPath}}: {{.Imports}}' ./wasm | grep -w $pkg"
  done
  GOOS=js GOARCH=wasm go build -modfile="$modfile" -tags mcplive_rawitems -trimpath -ldflags="-s -w -buildid=" -o js/mcplive.wasm ./wasm
  # Go's linker writes one data segment per run of non-zero bytes (56,908 of
  # them, 453 KB of headers, on 2026-12-07): merged where less than 64 bytes
  # apart, the download is ~66 KB smaller brotli and the program the same
  # (internal/cmd/wasmmerge). js/test/run.js merges the wasm it builds too.
  go run ./internal/cmd/wasmmerge js/mcplive.wasm || die "merging the wasm's data segments failed (internal/cmd/wasmmerge)"
  # Every user downloads it: nothing of the machine that built it
  # (wasm/modfile.sh names the patched modules relative to the checkout).
  ! grep -a -q -F "$PWD" js/mcplive.wasm || die "js/mcplive.wasm records this checkout's path ($PWD): a replace in .build/wasm/go.mod is absolute (wasm/modfile.sh)"
  # Nor encoding/json's decoder (~190 KB of code) or encoder (~220 KB with
  # the reflection it keeps): the wasm reads JSON with the package's own
  # readers (jsonwire*.go) and writes it with its own writer (jsonenc.go),
  # and the binding reaches both through internal/wire. A build that keeps
  # the functions' names shows whether their entries are there;
  # -ldflags=-dumpdep names what reaches them.
  local tmp; tmp=$(mktemp -d)
  GOOS=js GOARCH=wasm go build -modfile="$modfile" -tags mcplive_rawitems -trimpath -o "$tmp/named.wasm" ./wasm
  if grep -a -q -F 'encoding_json.__decodeState_.unmarshal' "$tmp/named.wasm"; then
    rm -rf "$tmp"
    die "the wasm links encoding/json's decoder: read that JSON with the readers of jsonwire.go (GOOS=js GOARCH=wasm go build -ldflags=-dumpdep ./wasm names what reaches it)"
  fi
  if grep -a -q -F 'encoding_json.__encodeState_.marshal' "$tmp/named.wasm"; then
    rm -rf "$tmp"
    die "the wasm links encoding/json's encoder: write that JSON with marshalJSON (jsonenc.go; wire.Marshal in wasm/) (GOOS=js GOARCH=wasm go build -ldflags=-dumpdep ./wasm names what reaches it)"
  fi
  rm -rf "$tmp"
  chmod 644 js/mcplive.wasm # go build makes it executable; npm would pack it so
  cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" js/wasm_exec.js
  chmod 644 js/wasm_exec.js
  wasm_size
}

# brotli_size FILE prints the brotli size (quality 11) of FILE, as wasm_size measures it.
brotli_size() {
  node -e '
    const fs = require("fs"), zlib = require("zlib");
    const b = fs.readFileSync(process.argv[1]);
    console.log(zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length);
  ' "$1"
}

# cmd_size prints where the wasm's bytes go, package by package
# (internal/cmd/wasmsize): a build of js/mcplive.wasm that keeps the name
# section, merged as the shipped one; each function's code is given to its
# package, and the compressed column estimates each package's share of the
# shipped file's brotli size. TOP=n rows (default 40).
cmd_size() {
  build_wasm
  local modfile; modfile=$(wasm/modfile.sh)
  local tmp; tmp=$(mktemp -d)
  GOOS=js GOARCH=wasm go build -modfile="$modfile" -tags mcplive_rawitems -trimpath -o "$tmp/named.wasm" ./wasm
  go run ./internal/cmd/wasmmerge -q "$tmp/named.wasm"
  GOOS=js GOARCH=wasm go list -modfile="$modfile" -tags mcplive_rawitems -deps ./wasm >"$tmp/deps"
  say "js/mcplive.wasm by package (code by function name; ~brotli: each package's code compressed alone, scaled to the file's brotli size)"
  go run ./internal/cmd/wasmsize -deps "$tmp/deps" -brotli "$(brotli_size js/mcplive.wasm)" -top "${TOP:-40}" "$tmp/named.wasm"
  if [ -n "${FUNCS:-}" ]; then
    say "functions matching $FUNCS (raw bytes of code)"
    go run ./internal/cmd/wasmsize -funcs "$FUNCS" "$tmp/named.wasm"
  fi
  rm -rf "$tmp"
}

wasm_size() {
  need_node
  node -e '
    const fs = require("fs"), zlib = require("zlib");
    const b = fs.readFileSync("js/mcplive.wasm");
    const gz = zlib.gzipSync(b, { level: 9 }).length;
    const br = zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length;
    const f = (n) => (n / 1e6).toFixed(2) + " MB (" + n + " bytes)";
    console.log("wasm size: raw " + f(b.length) + ", gzip " + f(gz) + ", brotli " + f(br));
    const max = Number(process.argv[1]);
    if (br > max) { console.error("build.sh: brotli size " + br + " exceeds the budget of " + max + " bytes"); process.exit(1); }
  ' "$MAX_BROTLI_BYTES"
}

cmd_build() { build_wasm; }

# cmd_npm_packages packs the npm package and mcplive-bridge's companion
# packages (js/scripts/bridge-packages.mjs), from the wasm built by ./build.sh.
cmd_npm_packages() {
  need_go
  need_node
  [ -f js/mcplive.wasm ] || build_wasm
  local out=${1:-dist/npm} bins; bins=$(mktemp -d)
  local p goos goarch exe
  for p in ${BRIDGE_PLATFORMS:-linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64}; do
    case $p in
      linux-x64) goos=linux goarch=amd64 ;; linux-arm64) goos=linux goarch=arm64 ;;
      darwin-x64) goos=darwin goarch=amd64 ;; darwin-arm64) goos=darwin goarch=arm64 ;;
      win32-x64) goos=windows goarch=amd64 ;;
      *) rm -rf "$bins"; die "unknown platform $p in BRIDGE_PLATFORMS (use linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64)" ;;
    esac
    exe=mcplive-bridge; [ "$goos" = windows ] && exe=mcplive-bridge.exe
    say "mcplive-bridge for $p"
    CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -ldflags="-s -w" -o "$bins/$p/$exe" ./cmd/mcplive-bridge || { rm -rf "$bins"; die "cross-compiling mcplive-bridge for $p failed"; }
  done
  say "npm packages into $out"
  node js/scripts/bridge-packages.mjs "$out" "$bins" || { rm -rf "$bins"; die "packing failed (js/scripts/bridge-packages.mjs)"; }
  rm -rf "$bins"
}

# cmd_bridge runs mcplive-bridge from this checkout (docs/reach-any-server.md).
cmd_bridge() {
  need_go
  go build -o "${TMPDIR:-/tmp}/mcplive-bridge-$$" ./cmd/mcplive-bridge || die "could not build cmd/mcplive-bridge"
  exec "${TMPDIR:-/tmp}/mcplive-bridge-$$" "$@"
}

cmd_demo() {
  build_wasm
  local addr=${ADDR:-127.0.0.1:8080}
  # The protected mode: an authorization server (authserver/, oidc-provider)
  # for the demo's /protected/mcp. It reads its stdin from this shell (fd 3)
  # and exits when the shell does.
  npm_ci authserver
  local tmp; tmp=$(mktemp -d)
  local secret; secret=$(node -e 'console.log(require("crypto").randomBytes(18).toString("base64url"))')
  exec 3> >(exec node authserver/server.mjs --port "${AUTH_PORT:-0}" --resource "http://$addr/protected/mcp" \
    --origin "http://$addr" --introspection-secret "$secret" >"$tmp/as.json" 2>"$tmp/as.log")
  local issuer="" i
  for i in $(seq 1 100); do
    issuer=$(node -e 'try { console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]).issuer) } catch {}' "$tmp/as.json")
    [ -n "$issuer" ] && break
    sleep 0.1
  done
  [ -n "$issuer" ] || die "the authorization server did not start: $(cat "$tmp/as.log")"
  say "authorization server (sign in as alice / wonderland): $issuer"
  say "serving the demo on http://$addr"
  MCPLIVE_AUTH_SECRET=$secret go run ./demo -addr "$addr" -auth-issuer "$issuer" "$@"
}

test_go() {
  need_go
  say "go vet"
  go vet ./...
  # The calls of internal/printf (the wasm's packages format with it, not
  # fmt: build_wasm), checked as fmt's are: with the tag printfvet its
  # functions forward to fmt's (internal/printf/printf_vet.go).
  go vet -tags printfvet . ./internal/...
  GOOS=js GOARCH=wasm go vet -modfile="$(wasm/modfile.sh)" ./wasm/ ./bench/floor .
  GOOS=js GOARCH=wasm go vet -modfile="$(wasm/modfile.sh)" -tags printfvet ./wasm/
  GOOS=js GOARCH=wasm go vet -modfile="$(wasm/modfile.sh)" -tags mcplive_rawitems ./wasm/
  # The bench's fat floor (BENCH_FAT_FLOOR=1) builds with these tags.
  GOOS=js GOARCH=wasm go vet -modfile="$(wasm/modfile.sh)" -tags 'fatfloor mcplive_rawitems' ./bench/floor
  say "gofmt"
  local bad; bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './js/node_modules/*'))
  [ -z "$bad" ] || die "gofmt needed on: $bad"
  say "go test -race ./..."
  go test -race -count=1 -timeout 15m ./...
  say "fuzz smoke (a few seconds per target)"
  # A count of executions, not a duration: with -fuzztime 5s, Go 1.26's fuzz
  # coordinator can fail a target at the deadline with "context deadline
  # exceeded" and no failing input (go.dev/issue/75804, fixed in Go 1.27);
  # seen once in CI here (FuzzParseListPage, 2026-12-01). A count has no
  # deadline to race; FUZZTIME overrides it (e.g. FUZZTIME=60s for a long run).
  go test -run '^$' -fuzz '^FuzzDecodeMessage$' -fuzztime "${FUZZTIME:-30000x}" .
  go test -run '^$' -fuzz '^FuzzScanMatchesEncodingJSON$' -fuzztime "${FUZZTIME:-30000x}" ./internal/jsontext
  go test -run '^$' -fuzz '^FuzzParseListPage$' -fuzztime "${FUZZTIME:-30000x}" .
  go test -run '^$' -fuzz '^FuzzWireMatchesEncodingJSON$' -fuzztime "${FUZZTIME:-30000x}" .
  go test -run '^$' -fuzz '^FuzzWireEncodersMatchEncodingJSON$' -fuzztime "${FUZZTIME:-30000x}" .
  go test -run '^$' -fuzz '^FuzzWireResultsMatchEncodingJSON$' -fuzztime "${FUZZTIME:-30000x}" .
  go test -run '^$' -fuzz '^FuzzJSONEncMatchesEncodingJSON$' -fuzztime "${FUZZTIME:-30000x}" .
  go test -run '^$' -fuzz '^FuzzMerge$' -fuzztime "${FUZZTIME:-30000x}" ./internal/cmd/wasmmerge
  say "wasm build of the root package, and the binding's unit tests under Node"
  GOOS=js GOARCH=wasm go build -modfile="$(wasm/modfile.sh)" -o /dev/null .
  need_node
  PATH="$PATH:$(go env GOROOT)/lib/wasm" GOOS=js GOARCH=wasm go test -modfile="$(wasm/modfile.sh)" -count=1 ./wasm/
  # and as the npm package's wasm is built (mcplive.RawMessage its own type there)
  PATH="$PATH:$(go env GOROOT)/lib/wasm" GOOS=js GOARCH=wasm go test -modfile="$(wasm/modfile.sh)" -tags mcplive_rawitems -count=1 ./wasm/
  PATH="$PATH:$(go env GOROOT)/lib/wasm" GOOS=js GOARCH=wasm go test -modfile="$(wasm/modfile.sh)" -tags mcplive_rawitems -count=1 -run TestOwnRawMessage ./internal/jsontext
}

test_js() {
  need_node
  need_chromium # js/test/browser.test.js runs the package in headless Chromium
  npm_ci js
  npm_ci authserver # js/test/oauth-real*.test.js: a real authorization server (oidc-provider)
  say "JS package tests (node:test, real wasm, real server)"
  (cd js && npm test)
}

test_browser() {
  need_node
  need_chromium
  npm_ci e2e
  say "browser end-to-end tests (headless Chromium)"
  (cd e2e && npm test)
}

cmd_test() {
  test_go
  build_wasm
  test_js
  cmd_conformance --no-build
  if [ -d e2e ]; then test_browser; fi
  test_bench_smoke
  say "all tests passed"
}

# test_bench_smoke runs the browser benchmark's code on a tiny workload
# (about 20 s) so that it cannot rot; the numbers mean nothing.
test_bench_smoke() {
  need_node
  need_chromium
  npm_ci bench
  say "benchmark smoke run (tiny workload, headless Chromium)"
  (cd bench && npm run bench:smoke)
  say "hub benchmark smoke run (3 servers x 20 tools)"
  (cd bench && node --expose-gc hub.mjs --servers 3 --tools 20 --runs 3 >/dev/null) || die "the hub benchmark's smoke run failed (bench/hub.mjs)"
}

# cmd_conformance runs @modelcontextprotocol/conformance (conformance/: 0.1.16 for
# 2025-11-25, 0.2.0-alpha.12 for 2026-07-28, on the Node 22 of the npm package
# node@22) against conformance/client.mjs, the npm package with the real wasm.
# It prints one row per scenario; expected failures and their reasons live in
# conformance/run.mjs (and docs/conformance.md). About 3 minutes (61 scenarios).
# ./build.sh conformance NAME... runs only those scenarios (NAME or REVISION:NAME).
cmd_conformance() {
  if [ "${1:-}" = --no-build ]; then shift; else build_wasm; fi
  need_node
  npm_ci conformance
  local node22=conformance/node_modules/node/bin/node
  [ -x "$node22" ] || die "conformance/node_modules/node/bin/node missing: the npm package node@22 did not install its binary"
  say "MCP conformance suite ($("$node22" --version)): every client scenario of 2025-11-25 and 2026-07-28, authorization (mcplive/oauth) and its extensions included"
  (cd conformance && NODE_OPTIONS= ./node_modules/node/bin/node run.mjs "$@")
}

cmd_bench() {
  need_go
  say "go benchmarks"
  go test -run '^$' -bench . -benchmem -count "${COUNT:-1}" ./...
  if [ -d bench ]; then
    build_wasm
    need_chromium
    npm_ci bench
    say "browser benchmarks: mcplive vs the TypeScript SDK (a few minutes; results in bench/results/)"
    (cd bench && npm run bench)
    say "hub benchmark: 20 servers x 500 tools in one hub (Node, real wasm)"
    (cd bench && node --expose-gc --experimental-websocket --no-warnings hub.mjs)
  fi
}

# cmd_docs builds the API reference from js/index.d.ts, js/oauth.d.ts and
# js/oauth-node.d.ts and their doc comments (TypeDoc, js/typedoc.json) into
# docs/api/; a warning fails it (the JS tests build it too).
cmd_docs() {
  need_node
  npm_ci js
  say "API reference (TypeDoc) into docs/api/"
  (cd js && node node_modules/typedoc/bin/typedoc) || die "TypeDoc failed (a warning counts: fix the doc comment it names)"
  say "docs/api/index.html"
}

case "${1:-build}" in
  build) cmd_build ;;
  demo) shift; cmd_demo "$@" ;;
  test) cmd_test ;;
  bench) cmd_bench ;;
  conformance) shift; cmd_conformance "$@" ;;
  docs) cmd_docs ;;
  bridge) shift; cmd_bridge "$@" ;;
  npm-packages) shift; cmd_npm_packages "$@" ;;
  size) cmd_size ;;
  *) die "unknown command '$1' (use: build | demo | test | bench | conformance | docs | size | bridge | npm-packages)" ;;
esac
