// Command wasmsize prints where the bytes of a Go wasm go, package by
// package: `./build.sh size` runs it on a build of js/mcplive.wasm that
// keeps the name section (so that each function's code can be given to the
// package its name starts with), merged as the shipped one is.
//
//	go run ./internal/cmd/wasmsize [-brotli N] [-top 40] named.wasm
//
// Code is attributed by function name; data by the symbol tables Go writes
// in the data segments is not, so data shows as one row (with the runtime's
// tables, type data and strings of every package in it). The compressed
// column is an estimate: each package's code compressed alone (DEFLATE,
// the standard library's), scaled so that the rows add up to -brotli, the
// whole file's brotli size (build.sh measures it with Node's zlib).
// Functions compress better together than alone, so small packages are
// overstated a little; the raw column is exact.
package main

import (
	"bytes"
	"compress/flate"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

func main() {
	deps := flag.String("deps", "", "a file of the program's import paths, one a line (go list -deps): names them in the report as paths")
	brotli := flag.Int("brotli", 0, "the whole file's brotli size, to scale the compressed column to (0: DEFLATE sizes, unscaled)")
	top := flag.Int("top", 40, "rows to print (the rest summed in one)")
	funcs := flag.String("funcs", "", "a regular expression: print the functions whose names match it, largest first, instead of the report")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: wasmsize [-brotli N] [-top 40] named.wasm")
		os.Exit(2)
	}
	b, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
	var paths []string
	if *deps != "" {
		d, err := os.ReadFile(*deps)
		if err != nil {
			fmt.Fprintln(os.Stderr, "wasmsize:", err)
			os.Exit(1)
		}
		paths = strings.Fields(string(d))
	}
	if *funcs != "" {
		re, err := regexp.Compile(*funcs)
		if err == nil {
			err = printFuncs(os.Stdout, b, re)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "wasmsize:", err)
			os.Exit(1)
		}
		return
	}
	rows, err := report(b, paths)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
	print(os.Stdout, rows, *brotli, *top)
}

// row is one line of the report: a package's code, or a section.
type row struct {
	name string
	raw  int
	comp int // DEFLATE size of its bytes alone
	fns  int
}

// printFuncs prints the size of each function whose name matches re,
// largest first, and their sum.
func printFuncs(w *os.File, wasm []byte, re *regexp.Regexp) error {
	fns, err := funcSizes(wasm)
	if err != nil {
		return err
	}
	var matched []row
	total := 0
	for _, f := range fns {
		if re.MatchString(f.name) {
			matched = append(matched, f)
			total += f.raw
		}
	}
	sort.Slice(matched, func(i, j int) bool { return matched[i].raw > matched[j].raw })
	for _, f := range matched {
		fmt.Fprintf(w, "%8d  %s\n", f.raw, f.name)
	}
	fmt.Fprintf(w, "%8d  (%d functions)\n", total, len(matched))
	return nil
}

// funcSizes returns every function of a module with a name section, by
// name, with the size of its body.
func funcSizes(wasm []byte) ([]row, error) {
	m, err := parseModule(wasm)
	if err != nil {
		return nil, err
	}
	fns := make([]row, len(m.bodies))
	for i, body := range m.bodies {
		fns[i] = row{name: m.names[m.imports+i], raw: len(body), fns: 1}
	}
	return fns, nil
}

// module is what the report reads of a module with a name section.
type module struct {
	imports int // imported functions come first in the function index space
	bodies  [][]byte
	names   map[int]string // function index → name
	data    []byte
	other   []byte // the bytes of every other section, and the headers of code and data
}

// parseModule reads a module's sections; the name section (not in the
// shipped wasm: -ldflags=-s) is read, not counted.
func parseModule(wasm []byte) (*module, error) {
	if !bytes.HasPrefix(wasm, []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, errors.New("not a WebAssembly module")
	}
	r := &reader{b: wasm, pos: 8}
	m := &module{other: wasm[:8:8]}
	for r.pos < len(r.b) {
		start := r.pos
		id := r.byte()
		body := r.bytes(int(r.u32()))
		if r.err != nil {
			return nil, fmt.Errorf("section at byte %d: %w", start, r.err)
		}
		var err error
		switch id {
		case 2:
			m.imports, err = countFuncImports(body)
		case 10:
			m.bodies, err = readBodies(body)
		case 11:
			m.data = body
		case 0:
			sr := &reader{b: body}
			if sr.name() == "name" && sr.err == nil {
				if m.names, err = readNames(body[sr.pos:]); err != nil {
					return nil, err
				}
				continue
			}
		}
		if err != nil {
			return nil, err
		}
		if id != 10 && id != 11 {
			m.other = append(m.other, wasm[start:r.pos]...)
		} else {
			m.other = append(m.other, wasm[start:r.pos-len(body)]...)
		}
	}
	if m.names == nil {
		return nil, errors.New("no name section: build without -ldflags=-s -w (./build.sh size does)")
	}
	return m, nil
}

// report reads a module with a name section and returns one row per
// package of code, one for data and one for the rest of the file.
func report(wasm []byte, paths []string) ([]row, error) {
	pkgs := newNamer(paths)
	m, err := parseModule(wasm)
	if err != nil {
		return nil, err
	}
	imports, bodies, names, data, other := m.imports, m.bodies, m.names, m.data, m.other
	byPkg := map[string]*row{}
	for i, body := range bodies {
		pkg := pkgs.of(names[imports+i])
		rw := byPkg[pkg]
		if rw == nil {
			rw = &row{name: pkg}
			byPkg[pkg] = rw
		}
		rw.raw += len(body)
		rw.fns++
	}
	// Compress each package's code alone.
	buf := map[string]*bytes.Buffer{}
	for i, body := range bodies {
		pkg := pkgs.of(names[imports+i])
		if buf[pkg] == nil {
			buf[pkg] = &bytes.Buffer{}
		}
		buf[pkg].Write(body)
	}
	var rows []row
	for pkg, rw := range byPkg {
		rw.comp = deflated(buf[pkg].Bytes())
		rows = append(rows, *rw)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].raw > rows[j].raw })
	rows = append(rows,
		row{name: "(data: every package's tables, types and strings)", raw: len(data), comp: deflated(data)},
		row{name: "(other sections: types, imports, exports, section headers)", raw: len(other), comp: deflated(other)},
	)
	return rows, nil
}

func deflated(b []byte) int {
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.BestCompression)
	w.Write(b)
	w.Close()
	return out.Len()
}

// namer finds the package of a function by its name in the name
// section, where Go's linker writes "/" and the punctuation of methods as
// "_": "github.com_coder_websocket.__Conn_.Read" is a method of
// github.com/coder/websocket.
type namer struct {
	mangled []string // the paths as they appear, longest first
	real    map[string]string
}

func newNamer(paths []string) *namer {
	n := &namer{real: map[string]string{}}
	for _, p := range paths {
		m := strings.Map(mangle, p)
		n.real[m] = p
		n.mangled = append(n.mangled, m)
	}
	sort.Slice(n.mangled, func(i, j int) bool { return len(n.mangled[i]) > len(n.mangled[j]) })
	return n
}

// mangle is how the linker writes a character of a package path in a
// function's name.
func mangle(r rune) rune {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_':
		return r
	}
	return '_'
}

// of returns name's package: its import path when known; else the name
// up to its first dot (after a leading domain such as github.com); the
// linker's own functions ("type:.eq.T", shown as type_) keep their prefix.
func (n *namer) of(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	if strings.HasPrefix(name, "main.") {
		return "main (./wasm)"
	}
	if strings.HasPrefix(name, "type_.") {
		return "(type: equality and hash functions)"
	}
	for _, m := range n.mangled {
		if strings.HasPrefix(name, m) && len(name) > len(m) && name[len(m)] == '.' {
			return n.real[m]
		}
	}
	start := 0
	if dot := strings.IndexByte(name, '.'); dot > 0 {
		if u := strings.IndexByte(name[dot:], '_'); u > 0 && !strings.Contains(name[dot+1:dot+u], ".") {
			start = dot + 1 // a domain: github.com_…
		}
	}
	if dot := strings.IndexByte(name[start:], '.'); dot >= 0 {
		return name[:start+dot]
	}
	return name
}

func print(w *os.File, rows []row, brotli, top int) {
	var raw, comp int
	for _, r := range rows {
		raw += r.raw
		comp += r.comp
	}
	scale := 1.0
	label := "deflate"
	if brotli > 0 {
		scale = float64(brotli) / float64(comp)
		label = "~brotli"
	}
	fmt.Fprintf(w, "%-58s %9s %9s %6s %6s\n", "package", "raw", label, "share", "funcs")
	shown := rows
	var rest row
	if top > 0 && len(rows) > top+2 {
		// Keep the data and other rows (the last two) in sight.
		shown = append(append([]row{}, rows[:top]...), rows[len(rows)-2:]...)
		for _, r := range rows[top : len(rows)-2] {
			rest.raw += r.raw
			rest.comp += r.comp
			rest.fns += r.fns
		}
		rest.name = fmt.Sprintf("(%d more packages)", len(rows)-2-top)
	}
	for _, r := range shown {
		line(w, r, scale, comp)
	}
	if rest.name != "" {
		line(w, rest, scale, comp)
	}
	fmt.Fprintf(w, "%-58s %9d %9.0f\n", "total", raw, float64(comp)*scale)
}

func line(w *os.File, r row, scale float64, comp int) {
	fns := ""
	if r.fns > 0 {
		fns = fmt.Sprint(r.fns)
	}
	fmt.Fprintf(w, "%-58s %9d %9.0f %5.1f%% %6s\n", r.name, r.raw, float64(r.comp)*scale, 100*float64(r.comp)/float64(comp), fns)
}

func countFuncImports(body []byte) (int, error) {
	r := &reader{b: body}
	n := int(r.u32())
	funcs := 0
	for i := 0; i < n && r.err == nil; i++ {
		r.name()
		r.name()
		switch kind := r.byte(); kind {
		case 0: // function: type index
			r.u32()
			funcs++
		case 1: // table: reftype, limits
			r.byte()
			r.limits()
		case 2: // memory
			r.limits()
		case 3: // global: valtype, mut
			r.byte()
			r.byte()
		default:
			return 0, fmt.Errorf("import %d: unknown kind %d", i, kind)
		}
	}
	if r.err != nil {
		return 0, fmt.Errorf("import section: %w", r.err)
	}
	return funcs, nil
}

func readBodies(body []byte) ([][]byte, error) {
	r := &reader{b: body}
	n := int(r.u32())
	if n > len(body) {
		return nil, errors.New("code section: bad count")
	}
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		size := r.u32()
		out = append(out, r.bytes(int(size)))
		if r.err != nil {
			return nil, fmt.Errorf("code section, body %d: %w", i, r.err)
		}
	}
	return out, nil
}

// readNames reads the function names (subsection 1) of a name section.
func readNames(body []byte) (map[int]string, error) {
	r := &reader{b: body}
	names := map[int]string{}
	for r.pos < len(r.b) && r.err == nil {
		id := r.byte()
		sub := r.bytes(int(r.u32()))
		if id != 1 {
			continue
		}
		sr := &reader{b: sub}
		n := int(sr.u32())
		for i := 0; i < n && sr.err == nil; i++ {
			idx := int(sr.u32())
			names[idx] = sr.name()
		}
		if sr.err != nil {
			return nil, fmt.Errorf("name section: %w", sr.err)
		}
	}
	if r.err != nil {
		return nil, fmt.Errorf("name section: %w", r.err)
	}
	return names, nil
}

// reader reads the binary format; its first error sticks.
type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) byte() byte {
	if r.err != nil || r.pos >= len(r.b) {
		r.err = errors.New("unexpected end of input")
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.pos {
		r.err = errors.New("unexpected end of input")
		return nil
	}
	b := r.b[r.pos : r.pos+n]
	r.pos += n
	return b
}

func (r *reader) u32() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.err = errors.New("malformed LEB128")
	return 0
}

func (r *reader) name() string { return string(r.bytes(int(r.u32()))) }

func (r *reader) limits() {
	if flag := r.byte(); flag&1 != 0 {
		r.u32()
	}
	r.u32()
}
