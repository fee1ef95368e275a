#!/usr/bin/env bash
# Prints the path of the go.mod that the wasm is built with (go build
# -modfile=…): this module's go.mod and go.sum, with github.com/coder/websocket
# replaced by a copy of the same version from the module cache to which
# wasm/coder-websocket.patch is applied.
#
# Why: coder/websocket's browser build (ws_js.go) imports net/http only to name
# *http.Response in Dial's signature and http.ResponseWriter in its Accept
# stub. Importing net/http runs its package initialisation, which keeps Go's
# TLS, X.509 and elliptic-curve code in the binary: about 390 KB of the
# brotli-compressed wasm (1.38 MB → 1.00 MB, measured 2026-11-30) that a page
# never runs, since the browser's WebSocket and fetch do that work. The patch
# replaces those two types, names net.ErrClosed's error itself and leaves
# NetConn out of the browser build (so that package net, its tables and its
# initialisation at every start stay out too: 33 KB brotli, 180 KB raw and
# 128 KB of linear memory, measured 2026-12-02), and adds two hooks,
# Conn.SetTextReader and Conn.SetTextWriter, through which the npm package's
# loader moves a text message's bytes into and out of Go's memory
# (docs/wasm-size.md). It also writes ws_js.go's errors without fmt (the
# same texts, strconv and a wrapError of its own): fmt and the reflection it
# prints with cost about 33 KB brotli, and one call links them.
#
# github.com/hack-pad/safejs is replaced the same way by a copy with
# wasm/safejs.patch: its errors without fmt, and its caught panics without
# the stack trace that only fmt's %+v printed. The rest of both packages is
# upstream's. When a module's version changes and its patch no longer
# applies, this fails and says so.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build/wasm"
cd "$root"
# module, its folder in $out, its patch
mods=(
  "github.com/coder/websocket coder-websocket wasm/coder-websocket.patch"
  "github.com/hack-pad/safejs safejs wasm/safejs.patch"
)
stamp=""
for m in "${mods[@]}"; do
  read -r mod _ patchfile <<<"$m"
  stamp="$stamp $(go list -m -f '{{.Version}}' "$mod")"
done
stamp="$stamp $(sha256sum wasm/modfile.sh wasm/coder-websocket.patch wasm/safejs.patch go.mod go.sum | sha256sum | cut -c1-16)"
if [ ! -f "$out/stamp" ] || [ "$(cat "$out/stamp")" != "$stamp" ]; then
  # Made aside and moved in place: a build that runs beside this one reads
  # either the old copy or the new one.
  mkdir -p "$root/.build"
  tmp=$(mktemp -d "$root/.build/wasm.XXXXXX")
  cp go.mod "$tmp/go.mod"
  cp go.sum "$tmp/go.sum"
  for m in "${mods[@]}"; do
    read -r mod dir patchfile <<<"$m"
    ver=$(go list -m -f '{{.Version}}' "$mod")
    src=$(go list -m -f '{{.Dir}}' "$mod")
    if [ -z "$src" ] || [ ! -f "$src/go.mod" ]; then
      go mod download "$mod"
      src=$(go list -m -f '{{.Dir}}' "$mod")
    fi
    cp -R "$src" "$tmp/$dir"
    chmod -R u+w "$tmp/$dir"
    # patch(1), or git apply where it is missing (the copy lies inside this
    # checkout: the ceiling keeps git from treating it as part of the repository).
    if command -v patch >/dev/null; then
      apply() { patch --quiet --forward --batch -p1 -d "$tmp/$dir" <"$patchfile"; }
    else
      apply() { GIT_CEILING_DIRECTORIES="$tmp" git -C "$tmp/$dir" apply -p1 "$root/$patchfile"; }
    fi
    if ! apply >"$tmp/patch.log" 2>&1; then
      cat "$tmp/patch.log" >&2
      rm -rf "$tmp"
      echo "wasm/modfile.sh: $patchfile does not apply to $mod $ver; update the patch (see the top of wasm/modfile.sh)" >&2
      exit 1
    fi
    # Relative to the module's root (where go.mod is): the build info in
    # the wasm records the path as written, so an absolute one would put
    # this checkout's location into every download and make the bytes
    # depend on where it was built.
    printf '\nreplace %s => ./.build/wasm/%s\n' "$mod" "$dir" >>"$tmp/go.mod"
  done
  echo "$stamp" >"$tmp/stamp"
  rm -rf "$out.old"
  [ ! -d "$out" ] || mv "$out" "$out.old"
  mv "$tmp" "$out"
  rm -rf "$out.old"
fi
echo "$out/go.mod"
