package printf_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPrintableOperands type-checks the module's packages as the browser
// build (GOOS=js, the tags of ./build.sh) and the native Go package build
// them, and fails on any value handed to a parameter of type any (a printf
// operand, a logger's attribute: wasm/logger.go prints those with
// printf.Sprint) that printf would not print as fmt does: one of a named
// type of a plain kind without a String or Error method (a `type Kind
// string`), or of a plain kind printf leaves out (a byte, int8, int16,
// uint16, uintptr, float32, complex). printf reads no values through reflection
// (reflect's Value methods cost the wasm about 1 KB brotli), so such a
// value would print as %!s(TYPE). Convert it at the call site
// (string(kind)), or give the type a String method.
func TestPrintableOperands(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the browser build's dependencies (-short)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, build := range []struct {
		env  []string
		pkgs string
	}{
		{[]string{"GOOS=js", "GOARCH=wasm"}, "./wasm"}, // the browser build
		{nil, "."}, // the native build of the Go package
	} {
		checkOperands(t, root, build.env, build.pkgs)
	}
}

// checkOperands type-checks the module's packages among pkgs and their
// dependencies, built in env.
func checkOperands(t *testing.T, root string, env []string, pkgs string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-tags", "mcplive_rawitems",
		"-json=ImportPath,Export,Dir,GoFiles,Standard,Module", pkgs)
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), "GOFLAGS="), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type pkg struct {
		ImportPath, Export, Dir string
		GoFiles                 []string
		Standard                bool
		Module                  *struct{ Path string }
	}
	exports := map[string]string{}
	var own []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == "github.com/mcplive/mcplive" {
			own = append(own, p)
		}
	}
	if len(own) < 5 {
		t.Fatalf("%v go list %s: %d of the module's packages", env, pkgs, len(own))
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	checked := 0
	for _, p := range own {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: imp, GoVersion: "", FakeImportC: true}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", p.ImportPath, err)
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || call.Ellipsis.IsValid() {
					return true
				}
				sig, ok := info.Types[call.Fun].Type.(*types.Signature)
				if !ok {
					return true
				}
				checked++
				params := sig.Params()
				for i, arg := range call.Args {
					var pt types.Type
					switch {
					case sig.Variadic() && i >= params.Len()-1:
						pt = params.At(params.Len() - 1).Type().(*types.Slice).Elem()
					case i < params.Len():
						pt = params.At(i).Type()
					default:
						continue
					}
					if iface, ok := pt.Underlying().(*types.Interface); !ok || iface.NumMethods() > 0 {
						continue
					}
					if why := unprinted(info.Types[arg].Type); why != "" {
						t.Errorf("%s: a %s handed to a parameter of type any: printf prints it as %%!v(%s), not its value; convert it (or give the type a String method)", fset.Position(arg.Pos()), why, why)
					}
				}
				return true
			})
		}
	}
	if checked < 1000 {
		t.Fatalf("%v %s: checked %d calls: the scan misses the packages' code", env, pkgs, checked)
	}
}

// unprinted returns the name of t when printf would not print a value of
// it (a named type of a plain kind without a String or Error method in its
// value's method set, or a plain kind printf leaves out), else "".
func unprinted(t types.Type) string {
	if t == nil {
		return ""
	}
	if b, ok := types.Unalias(t).(*types.Basic); ok {
		switch b.Kind() {
		case types.Int8, types.Int16, types.Uint8, types.Uint16, types.Uintptr, types.Float32, types.Complex64, types.Complex128:
			return b.String()
		}
		return ""
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return ""
	}
	if _, ok := named.Underlying().(*types.Basic); !ok {
		return ""
	}
	ms := types.NewMethodSet(named)
	for _, m := range []string{"String", "Error"} {
		if ms.Lookup(nil, m) != nil || ms.Lookup(named.Obj().Pkg(), m) != nil {
			return ""
		}
	}
	if named.Obj().Pkg() == nil {
		return named.Obj().Name()
	}
	return named.Obj().Pkg().Name() + "." + named.Obj().Name()
}
