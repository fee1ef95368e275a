// Command pathtrace prints the path of one list_changed through the root
// package and the internal packages it calls: the files and functions
// whose coverage count (-covermode=count) is higher in a profile of the
// change (MCPLIVE_PATH_TRACE=change: a go-sdk server adds one tool) than
// in one of the same run without it (MCPLIVE_PATH_TRACE=base); see the
// root package's TestPathTrace. Run it from the module's root.
//
//	go run ./internal/cmd/pathtrace base.out change.out
//
// prints the path of two profiles;
//
//	go run ./internal/cmd/pathtrace -doc docs/architecture.md
//
// measures the path over WebSocket (2025-11-25) and Streamable HTTP
// (2026-07-28) and writes it into the generated section of
// docs/architecture.md (TestArchitectureDoc fails when the committed
// section differs from what this writes).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// rootDir is the module's root, where the profiles' files are read.
var rootDir = "."

// module is the import path the profiles name files by.
const module = "github.com/mcplive/mcplive"

type block struct {
	file       string
	start, end int // lines
}

func read(name string) map[block]int {
	f, err := os.Open(name)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	out := map[block]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") {
			continue
		}
		// name.go:l.c,l.c stmts count
		file, rest, _ := strings.Cut(line, ":")
		fields := strings.Fields(rest)
		if len(fields) != 3 {
			continue
		}
		a, b, _ := strings.Cut(fields[0], ",")
		sl, _, _ := strings.Cut(a, ".")
		el, _, _ := strings.Cut(b, ".")
		s, _ := strconv.Atoi(sl)
		e, _ := strconv.Atoi(el)
		n, _ := strconv.Atoi(fields[2])
		out[block{strings.TrimPrefix(file, module+"/"), s, e}] += n
	}
	return out
}

type fn struct {
	name       string
	start, end int
	calls      []string // the names it calls: f, or m for a method or another package's function
}

// funcs returns the top-level functions of a file (a path from the
// module's root).
func funcs(file string, cache map[string][]fn) []fn {
	if fs, ok := cache[file]; ok {
		return fs
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(rootDir, file), nil, 0)
	if err != nil {
		fail(err)
	}
	var fs []fn
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			t := fd.Recv.List[0].Type
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			if ix, ok := t.(*ast.IndexExpr); ok {
				t = ix.X
			}
			if ix, ok := t.(*ast.IndexListExpr); ok {
				t = ix.X
			}
			if id, ok := t.(*ast.Ident); ok {
				name = id.Name + "." + name
			}
		}
		var calls []string
		if fd.Body != nil {
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					switch f := c.Fun.(type) {
					case *ast.Ident:
						calls = append(calls, f.Name)
					case *ast.SelectorExpr:
						calls = append(calls, f.Sel.Name)
					case *ast.IndexExpr: // a generic function
						if id, ok := f.X.(*ast.Ident); ok {
							calls = append(calls, id.Name)
						}
					}
				}
				return true
			})
		}
		fs = append(fs, fn{name, fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line, calls})
	}
	cache[file] = fs
	return fs
}

func main() {
	doc := flag.String("doc", "", "measure the path over each transport and write it into `FILE`'s generated section")
	flag.Parse()
	if *doc != "" {
		b, err := os.ReadFile(*doc)
		if err != nil {
			fail(err)
		}
		section, err := Generate(".")
		if err != nil {
			fail(err)
		}
		out, err := Replace(string(b), section)
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(*doc, []byte(out), 0o644); err != nil {
			fail(err)
		}
		return
	}
	if flag.NArg() != 2 {
		fail(fmt.Errorf("usage: pathtrace base.out change.out, or pathtrace -doc FILE"))
	}
	base, change := read(flag.Arg(0)), read(flag.Arg(1))
	cache := map[string][]fn{}
	hit := trace(base, change, cache)
	var files []string
	total := 0
	for f := range hit {
		files = append(files, f)
		total += len(hit[f])
	}
	sort.Strings(files)
	edges := crossCalls(hit, cache)
	fmt.Printf("%d files, %d functions, %d cross-file calls\n", len(files), total, len(edges))
	if os.Getenv("PATHTRACE_EDGES") != "" { // the calls between files, one per line
		for _, e := range edges {
			fmt.Println("  " + e.from + ":" + e.caller + " -> " + e.to + ":" + e.callee)
		}
	}
	for _, f := range files {
		var names []string
		for n := range hit[f] {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Printf("%s: %s\n", f, strings.Join(names, " "))
	}
}

// trace returns the functions, by file, whose blocks ran more often in
// change than in base.
func trace(base, change map[block]int, cache map[string][]fn) map[string]map[string]bool {
	hit := map[string]map[string]bool{}
	for b, n := range change {
		if n <= base[b] {
			continue
		}
		name := "?"
		for _, f := range funcs(b.file, cache) {
			if f.start <= b.start && b.end <= f.end {
				name = f.name
			}
		}
		if hit[b.file] == nil {
			hit[b.file] = map[string]bool{}
		}
		hit[b.file][name] = true
	}
	return hit
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pathtrace:", err)
	os.Exit(1)
}

// edge is a call on the path from a function of one file to a function
// of another.
type edge struct{ from, caller, to, callee string }

// crossCalls returns the calls on the path from a function of one file to
// a function of another, in order: the pairs (caller, callee), both on
// the path, where the caller's body calls the callee by name (a method by
// its name alone, when no function of the caller's file on the path has
// it), as one counts them by reading the code.
func crossCalls(hit map[string]map[string]bool, cache map[string][]fn) []edge {
	where := map[string][]string{} // a short name → the files on the path with it
	for file, names := range hit {
		for n := range names {
			short := n[strings.LastIndexByte(n, '.')+1:]
			where[short] = append(where[short], file)
		}
	}
	pairs := map[edge]bool{}
	for file, names := range hit {
		for _, f := range cache[file] {
			if !names[f.name] {
				continue
			}
			for _, c := range f.calls {
				files := where[c]
				if len(files) == 0 || slices.Contains(files, file) {
					continue // not on the path, or in the caller's own file
				}
				for _, to := range files {
					pairs[edge{file, f.name, to, c}] = true
				}
			}
		}
	}
	var out []edge
	for e := range pairs {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b edge) int {
		return strings.Compare(a.from+":"+a.caller+" "+a.to+":"+a.callee, b.from+":"+b.caller+" "+b.to+":"+b.callee)
	})
	return out
}
