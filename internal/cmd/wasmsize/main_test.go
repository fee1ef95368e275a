package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestPackageOfName(t *testing.T) {
	n := newNamer([]string{"github.com/coder/websocket", "github.com/coder/websocket/internal/wsjs", "github.com/hack-pad/safejs", "encoding/json", "runtime"})
	for name, want := range map[string]string{
		"github.com_coder_websocket.__Conn_.Read":                 "github.com/coder/websocket",
		"github.com_coder_websocket_internal_wsjs.WebSocket.Send": "github.com/coder/websocket/internal/wsjs",
		"github.com_hack_pad_safejs.Value.Call.func1":             "github.com/hack-pad/safejs",
		"encoding_json.__decodeState_.unmarshal":                  "encoding/json",
		"runtime.mallocgc":                                        "runtime",
		"main.__bridge_.call":                                     "main (./wasm)",
		"type_.eq.strconv.NumError":                               "(type: equality and hash functions)",
		"github.com_other_pkg.F":                                  "github.com_other_pkg",
		"memchr":                                                  "memchr",
		"":                                                        "(unnamed)",
	} {
		if got := n.of(name); got != want {
			t.Errorf("of(%q) = %q; want %q", name, got, want)
		}
	}
}

// TestReportOnAGoProgram reports on a small Go program built for js/wasm
// with its name section: every code byte lands in a row, and its own
// package and the runtime are named.
func TestReportOnAGoProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program for js/wasm (-short)")
	}
	dir := t.TempDir()
	src := "package main\n\nimport \"strconv\"\n\nfunc main() { println(strconv.Quote(\"x\")) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-trimpath", "-o", "hello.wasm", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "hello.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := report(b, []string{"runtime", "strconv"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]row{}
	total := 0
	for _, r := range rows {
		got[r.name] = r
		total += r.raw
	}
	for _, name := range []string{"runtime", "strconv", "main (./wasm)"} {
		if got[name].raw == 0 || got[name].fns == 0 {
			t.Errorf("no code for %s in %v", name, rows)
		}
	}
	if total >= len(b) || total < len(b)*9/10 {
		t.Errorf("rows add up to %d bytes of %d (the name section left out)", total, len(b))
	}
	fns, err := funcSizes(b)
	if err != nil {
		t.Fatal(err)
	}
	sum, mainMain := 0, 0
	for _, f := range fns {
		sum += f.raw
		if f.name == "main.main" {
			mainMain = f.raw
		}
	}
	code := 0
	for _, r := range rows[:len(rows)-2] { // the code rows, without data and the rest
		code += r.raw
	}
	if sum != code || mainMain == 0 {
		t.Errorf("funcSizes: %d functions, %d bytes (main.main %d); the report's code rows: %d bytes", len(fns), sum, mainMain, code)
	}
	if _, err := report(b[:len(b)/2], nil); err == nil {
		t.Error("no error on a truncated module")
	}
	stripped := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", "stripped.wasm", ".")
	stripped.Dir = dir
	stripped.Env = build.Env
	if out, err := stripped.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "stripped.wasm")); err != nil {
		t.Fatal(err)
	} else if _, err := report(b, nil); err == nil {
		t.Error("no error on a module without a name section")
	}
}
