// Command wasmmerge merges the data segments of a WebAssembly module that
// lie less than 64 bytes apart, filling the gaps with zeros, and rewrites
// the file; build.sh runs it on js/mcplive.wasm after go build.
//
// Why: Go's linker writes one data segment per run of non-zero bytes. The
// runtime's findfunctab alone (16 zero bytes in every 20-byte bucket)
// splits into about 52,000 segments, and the wasm of 2026-12-07 had 56,908
// with 453 KB of segment headers; merged, the download is 68 KB smaller
// brotli (100 KB gzip) and the program the same: linear memory starts
// zeroed, and the merge refuses modules in which a gap could be written
// by another segment (see merge).
//
//	go run ./internal/cmd/wasmmerge [-o out.wasm] in.wasm
//
// Without -o it rewrites in.wasm (through a temporary file and a rename).
// Only the standard library: it runs wherever the module builds.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("o", "", "write the merged module here (default: rewrite the input)")
	quiet := flag.Bool("q", false, "print nothing on success")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: wasmmerge [-o out.wasm] [-q] in.wasm")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "wasmmerge:", err)
		os.Exit(1)
	}
}

func run(in, out string, quiet bool) error {
	if out == "" {
		out = in
	}
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	m, st, err := merge(b)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(in); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".wasmmerge-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename: a no-op
	if _, err := tmp.Write(m); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return err
	}
	if !quiet {
		fmt.Printf("wasmmerge: %d data segments -> %d (%d zero bytes filled in), %d -> %d bytes\n", st.Before, st.After, st.ZeroBytes, len(b), len(m))
	}
	return nil
}
