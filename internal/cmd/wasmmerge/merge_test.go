package main

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// seg is a data segment of a hand-made module.
type seg struct {
	flag   uint32
	mem    uint32
	offset int32
	expr   []byte // overrides the i32.const offset when set
	data   string
}

// module builds a module with a memory section, the given data segments
// and, when count, a DataCount section.
func module(count bool, segs ...seg) []byte {
	b := []byte("\x00asm\x01\x00\x00\x00")
	// memory section: one memory, min 1 page
	b = append(b, 5, 3, 1, 0, 1)
	if count {
		body := appendU32(nil, uint32(len(segs)))
		b = append(b, secDataCount)
		b = appendU32(b, uint32(len(body)))
		b = append(b, body...)
	}
	body := appendU32(nil, uint32(len(segs)))
	for _, s := range segs {
		body = appendU32(body, s.flag)
		if s.flag == 2 {
			body = appendU32(body, s.mem)
		}
		if s.flag != 1 {
			if s.expr != nil {
				body = append(body, s.expr...)
			} else {
				body = appendConstExpr(body, s.offset)
			}
		}
		body = appendU32(body, uint32(len(s.data)))
		body = append(body, s.data...)
	}
	b = append(b, secData)
	b = appendU32(b, uint32(len(body)))
	return append(b, body...)
}

// parsed reads back a module's segments and DataCount.
func parsed(t *testing.T, wasm []byte) (segs []segment, count int) {
	t.Helper()
	count = -1
	r := &reader{b: wasm, pos: 8}
	for r.pos < len(r.b) {
		id := r.byte()
		body := r.bytes(int(r.u32()))
		if r.err != nil {
			t.Fatalf("re-read: %v", r.err)
		}
		switch id {
		case secData:
			var err error
			if segs, err = readSegments(body); err != nil {
				t.Fatalf("re-read data section: %v", err)
			}
		case secDataCount:
			count = int((&reader{b: body}).u32())
		}
	}
	return segs, count
}

// image is linear memory 0 after instantiation, as its non-zero bytes by
// address: the active segments of memory 0 applied in order to zeroed
// memory.
func image(t *testing.T, segs []segment) map[int64]byte {
	t.Helper()
	for _, s := range segs {
		if s.flag != 1 && s.mem == 0 && !s.constOff {
			t.Fatalf("segment %d: offset not constant", s.index)
		}
	}
	return imageOf(segs)
}

func TestMergeJoinsCloseSegments(t *testing.T) {
	in := module(false,
		seg{offset: 100, data: "abc"},
		seg{offset: 1000, data: "far"},                    // 1000-115 apart: stays
		seg{offset: 103, data: "def"},                     // adjacent
		seg{offset: 106 + maxGap - 1, data: "near"},       // gap of maxGap-1: merged
		seg{offset: 1003 + maxGap, data: "gap of maxGap"}, // stays
	)
	out, st, err := merge(in)
	if err != nil {
		t.Fatal(err)
	}
	segs, _ := parsed(t, out)
	if st.Before != 5 || st.After != 3 || len(segs) != 3 || st.ZeroBytes != maxGap-1 {
		t.Fatalf("stats %+v, %d segments; want 5 -> 3, %d zeros", st, len(segs), maxGap-1)
	}
	want := "abcdef" + strings.Repeat("\x00", maxGap-1) + "near"
	if segs[0].offset != 100 || string(segs[0].data) != want {
		t.Fatalf("first segment at %d: %q; want at 100: %q", segs[0].offset, segs[0].data, want)
	}
	before, _ := parsed(t, in)
	if !maps.Equal(image(t, before), image(t, segs)) {
		t.Fatal("memory image changed")
	}
}

func TestMergeLeavesFarSegments(t *testing.T) {
	in := module(false, seg{offset: 0, data: "a"}, seg{offset: 1 + maxGap, data: "b"})
	out, st, err := merge(in)
	if err != nil {
		t.Fatal(err)
	}
	if st.After != 2 || !bytes.Equal(out, in) {
		t.Fatalf("stats %+v; want the module unchanged", st)
	}
}

func TestMergeRefusesOverlap(t *testing.T) {
	for name, in := range map[string][]byte{
		"overlap":   module(false, seg{offset: 10, data: "abcd"}, seg{offset: 12, data: "xy"}),
		"same":      module(false, seg{offset: 10, data: "ab"}, seg{offset: 10, data: "xy"}),
		"contained": module(false, seg{offset: 10, data: "abcdefgh"}, seg{offset: 30, data: "z"}, seg{offset: 12, data: "x"}),
	} {
		_, _, err := merge(in)
		if err == nil || !strings.Contains(err.Error(), "overlap") {
			t.Errorf("%s: err %v; want an overlap error", name, err)
		}
	}
}

func TestMergeRefusesUnknownOffsets(t *testing.T) {
	globalGet := []byte{0x23, 0, 0x0b}
	in := module(false, seg{offset: 0, data: "a"}, seg{expr: globalGet, data: "b"}, seg{offset: 2, data: "c"})
	if _, _, err := merge(in); err == nil || !strings.Contains(err.Error(), "not an i32.const") {
		t.Fatalf("err %v; want a refusal of the global.get offset", err)
	}
}

func TestMergeKeepsPassiveSegmentsAndDataCount(t *testing.T) {
	in := module(true,
		seg{offset: 0, data: "a"},
		seg{offset: 1, data: "b"}, // before the passive one: keeps its index
		seg{flag: 1, data: "passive"},
		seg{offset: 2, data: "c"},
		seg{offset: 3, data: "d"},
		seg{flag: 2, mem: 1, offset: 4, data: "other memory"},
		seg{offset: 5, data: "e"},
		seg{offset: 4, data: ""}, // empty: kept as is
	)
	out, st, err := merge(in)
	if err != nil {
		t.Fatal(err)
	}
	segs, count := parsed(t, out)
	if count != len(segs) || st.After != len(segs) {
		t.Fatalf("DataCount %d, %d segments, stats %+v", count, len(segs), st)
	}
	var got []string
	for _, s := range segs[:3] {
		got = append(got, string(s.data))
	}
	if strings.Join(got, ",") != "a,b,passive" {
		t.Fatalf("first segments %q; want a, b, passive at their indices", got)
	}
	if len(segs) != 6 { // a, b, passive, other memory, empty, "cd\x00e"
		t.Fatalf("%d segments; want 6", len(segs))
	}
	if last := segs[len(segs)-1]; last.offset != 2 || string(last.data) != "cd\x00e" {
		t.Fatalf("merged run at %d: %q; want cd\\x00e at 2", last.offset, last.data)
	}
	if s := segs[3]; s.flag != 2 || s.mem != 1 || string(s.data) != "other memory" {
		t.Fatalf("segment of memory 1: %+v", s)
	}
	before, _ := parsed(t, in)
	if !maps.Equal(image(t, before), image(t, segs)) {
		t.Fatal("memory image changed")
	}
}

func TestMergeMalformedInput(t *testing.T) {
	good := module(true, seg{offset: 0, data: "ab"}, seg{offset: 3, data: "cd"})
	wrongCount := module(true, seg{offset: 0, data: "a"})
	wrongCount[len("\x00asm\x01\x00\x00\x00")+5+2] = 2 // DataCount says 2
	bad := map[string][]byte{
		"empty":       nil,
		"magic":       []byte("\x00asn\x01\x00\x00\x00"),
		"huge count":  append([]byte("\x00asm\x01\x00\x00\x00"), secData, 5, 0xff, 0xff, 0xff, 0xff, 0x0f),
		"bad flag":    module(false, seg{flag: 7, data: "x"}),
		"bad expr":    module(false, seg{expr: []byte{0x41, 0x80}, data: "x"}),
		"long expr":   module(false, seg{expr: []byte{0x41, 0, 0x41, 0, 0x0b}, data: "x"}),
		"wrong count": wrongCount,
	}
	for i := 9; i < len(good); i++ {
		if i == 13 { // after the memory section: a valid module
			continue
		}
		bad["truncated at "+itoa(i)] = good[:i]
	}
	for name, in := range bad {
		if out, _, err := merge(in); err == nil {
			t.Errorf("%s: no error (%d bytes out)", name, len(out))
		}
	}
	// Every byte of a good module changed: an error or a module, never a panic.
	for i := 8; i < len(good); i++ {
		for _, v := range []byte{0x00, 0x01, 0x0b, 0x41, 0x7f, 0x80, 0xff} {
			b := bytes.Clone(good)
			b[i] = v
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("byte %d = %#x: panic %v", i, v, p)
					}
				}()
				merge(b)
			}()
		}
	}
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

func FuzzMerge(f *testing.F) {
	f.Add(module(true, seg{offset: 0, data: "ab"}, seg{flag: 1, data: "p"}, seg{offset: 3, data: "cd"}, seg{offset: 9, data: "e"}))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _, err := merge(in)
		if err != nil {
			return
		}
		a, _ := parsedOK(in)
		b, ok := parsedOK(out)
		if !ok {
			t.Fatal("merge wrote a module it cannot read back")
		}
		if a != nil && !maps.Equal(imageOf(a), imageOf(b)) {
			t.Fatal("memory image changed")
		}
	})
}

func parsedOK(wasm []byte) ([]segment, bool) {
	r := &reader{b: wasm, pos: 8}
	for r.pos < len(r.b) {
		id := r.byte()
		body := r.bytes(int(r.u32()))
		if r.err != nil {
			return nil, false
		}
		if id == secData {
			segs, err := readSegments(body)
			return segs, err == nil
		}
	}
	return nil, true
}

func imageOf(segs []segment) map[int64]byte {
	m := map[int64]byte{}
	for _, s := range segs {
		if s.flag == 1 || s.mem != 0 || !s.constOff {
			continue
		}
		for i, c := range s.data {
			if c != 0 {
				m[s.offset+int64(i)] = c
			} else {
				delete(m, s.offset+int64(i))
			}
		}
	}
	return m
}

// TestMergeRealGoProgram merges a Go program built for js/wasm (the
// runtime's findfunctab and all) and checks that its memory image is the
// same and that, under Node, it prints what the unmerged one prints,
// a panic's stack trace included (which reads the runtime's tables).
func TestMergeRealGoProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program for js/wasm (-short)")
	}
	dir := t.TempDir()
	src := `package main

import (
	"os"
	"strconv"
	"strings"
)

var table = map[string]int{"one": 1, "two": 2}

func main() {
	os.Stdout.WriteString("hello " + strings.Repeat("wasm ", 2) + strconv.Itoa(table["two"]) + "\n")
	defer func() { recover(); os.Stdout.WriteString("recovered\n"); panic("really") }()
	var m map[string]int
	m["x"] = 1
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", "hello.wasm", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	in, err := os.ReadFile(filepath.Join(dir, "hello.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	out, st, err := merge(in)
	if err != nil {
		t.Fatal(err)
	}
	if st.After*10 > st.Before {
		t.Fatalf("%d segments -> %d: expected most of the runtime's to merge", st.Before, st.After)
	}
	a, _ := parsed(t, in)
	b, _ := parsed(t, out)
	if !maps.Equal(image(t, a), image(t, b)) {
		t.Fatal("memory image changed")
	}
	if err := os.WriteFile(filepath.Join(dir, "merged.wasm"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the merged program's run under Node needs it (the memory image is checked above)")
	}
	runner := filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec_node.js")
	run := func(f string) string {
		cmd := exec.Command(node, runner, filepath.Join(dir, f))
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("%s: exited 0; want the panic's exit status\n%s", f, out)
		}
		return string(out)
	}
	want, got := run("hello.wasm"), run("merged.wasm")
	if !strings.Contains(want, "hello wasm wasm 2\nrecovered\n") || !strings.Contains(want, "main.main") {
		t.Fatalf("the unmerged program printed:\n%s", want)
	}
	if got != want {
		t.Fatalf("merged program printed:\n%s\nthe unmerged one:\n%s", got, want)
	}
}
