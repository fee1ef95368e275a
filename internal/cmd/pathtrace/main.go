// Command pathtrace prints the path of one list_changed through the root
// package and the internal packages it calls (profiles made with
// -coverpkg=.,./internal/...): the files and functions whose coverage
// count is higher in a profile of the change (MCPLIVE_PATH_TRACE=change)
// than in one of the same run without it (MCPLIVE_PATH_TRACE=base); see
// TestPathTrace and docs/architecture.md. Run it from the module's root.
//
//	go run ./internal/cmd/pathtrace base.out change.out
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

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
	f, err := parser.ParseFile(fset, file, nil, 0)
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
	if len(os.Args) != 3 {
		fail(fmt.Errorf("usage: pathtrace base.out change.out"))
	}
	base, change := read(os.Args[1]), read(os.Args[2])
	cache := map[string][]fn{}
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
	var files []string
	total := 0
	for f := range hit {
		files = append(files, f)
		total += len(hit[f])
	}
	sort.Strings(files)
	fmt.Printf("%d files, %d functions, %d cross-file calls\n", len(files), total, crossCalls(hit, cache))
	for _, f := range files {
		var names []string
		for n := range hit[f] {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Printf("%s: %s\n", f, strings.Join(names, " "))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pathtrace:", err)
	os.Exit(1)
}

// crossCalls counts the calls on the path from a function of one file to
// a function of another: the pairs (caller, callee), both on the path,
// where the caller's body calls the callee by name (a method by its name
// alone, when no function of the caller's file on the path has it), as
// one counts them by reading the code.
func crossCalls(hit map[string]map[string]bool, cache map[string][]fn) int {
	where := map[string][]string{} // a short name → the files on the path with it
	for file, names := range hit {
		for n := range names {
			short := n[strings.LastIndexByte(n, '.')+1:]
			where[short] = append(where[short], file)
		}
	}
	pairs := map[[2]string]bool{}
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
					pairs[[2]string{file + ":" + f.name, to + ":" + c}] = true
				}
			}
		}
	}
	if os.Getenv("PATHTRACE_EDGES") != "" { // the calls between files, one per line
		var lines []string
		for p := range pairs {
			lines = append(lines, p[0]+" -> "+p[1])
		}
		sort.Strings(lines)
		for _, l := range lines {
			fmt.Println("  " + l)
		}
	}
	return len(pairs)
}
