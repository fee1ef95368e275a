package printf_test

import (
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplive/mcplive/internal/printf"
)

type named string
type code int
type stringer struct{ s string }

func (s stringer) String() string { return "str:" + s.s }

type errT struct{ msg string }

func (e *errT) Error() string { return e.msg }

// errAndString has both: fmt prefers Error.
type errAndString struct{}

func (errAndString) Error() string  { return "as error" }
func (errAndString) String() string { return "as string" }

var values = []any{
	nil, "", "plain", "quote\"d\n\x00é", 0, -42, int64(1 << 40), int32(-7), uint(7),
	uint64(1 << 63), uint32(1 << 31), true, false, 1.5, 1e21, 0.000001,
	[]byte("bytes"), errors.New("an error"), &errT{"custom"}, (*errT)(nil), errAndString{},
	stringer{"x"}, 1500 * time.Millisecond, time.Duration(0), strconv.ErrSyntax,
	fmt.Errorf("wrapped: %w", errors.New("inner")),
}

// TestUnprintedKinds: a value of a named type of a plain kind without a
// String method, or of a kind printf does not print, prints its type alone
// (printf reads no values through reflection; TestPrintableOperands keeps
// such values from its calls).
func TestUnprintedKinds(t *testing.T) {
	for _, c := range []struct {
		format string
		v      any
		want   string
	}{
		{"%s", named("x"), "%!s(printf_test.named)"},
		{"%v", code(3), "%!v(printf_test.code)"},
		{"%q", named("x"), "%!q(printf_test.named)"},
		{"%T", code(3), "printf_test.code"},
		{"%d", int8(-3), "%!d(int8)"},
		{"%q", byte('x'), "%!q(uint8)"},
		{"%v", float32(0.1), "%!v(float32)"},
	} {
		if got := printf.Sprintf(c.format, c.v); got != c.want {
			t.Errorf("Sprintf(%q, %#v) = %q; want %q", c.format, c.v, got, c.want)
		}
	}
}

// TestMatchesFmt holds every verb of the package, with each kind of value
// the packages format, to what fmt prints.
func TestMatchesFmt(t *testing.T) {
	for _, verb := range []string{"%s", "%d", "%q", "%v", "%T"} {
		for _, v := range values {
			if _, ok := v.([]byte); ok && (verb == "%v" || verb == "%d") {
				continue // fmt prints a slice's elements: not supported here
			}
			switch v.(type) {
			case error, fmt.Stringer:
				if verb == "%d" {
					continue // fmt prints a struct's fields: not supported here
				}
			}
			format := "a " + verb + " b %%"
			want := fmt.Sprintf(format, v)
			if got := printf.Sprintf(format, v); got != want {
				t.Errorf("Sprintf(%q, %#v) = %q; fmt: %q", format, v, got, want)
			}
		}
	}
	for _, v := range values {
		if _, ok := v.([]byte); ok {
			continue
		}
		if got, want := printf.Sprint(v), fmt.Sprint(v); got != want {
			t.Errorf("Sprint(%#v) = %q; fmt: %q", v, got, want)
		}
	}
	for _, c := range []struct {
		format string
		args   []any
	}{
		{"missing %s and %d", []any{"one"}},
		{"extra %s", []any{"one", 2, "three"}},
		{"extra nil", []any{nil}},
		{"trailing %", nil},
		{"%s%s%s", []any{"a", "b", "c"}},
		{"%w", []any{"not an error"}},
		{"é %s ü", []any{"ö"}},
	} {
		want := fmt.Sprintf(c.format, c.args...)
		if c.format == "%w" {
			want = fmt.Errorf(c.format, c.args...).Error()
			if got := printf.Errorf(c.format, c.args...).Error(); got != want {
				t.Errorf("Errorf(%q, %#v) = %q; fmt: %q", c.format, c.args, got, want)
			}
			continue
		}
		if got := printf.Sprintf(c.format, c.args...); got != want {
			t.Errorf("Sprintf(%q, %#v) = %q; fmt: %q", c.format, c.args, got, want)
		}
	}
}

func TestErrorfWraps(t *testing.T) {
	a, b := errors.New("a"), &errT{"b"}
	one := printf.Errorf("x: %w", a)
	if !errors.Is(one, a) || one.Error() != "x: a" {
		t.Fatalf("one %%w: %v (Is %v)", one, errors.Is(one, a))
	}
	if errors.Unwrap(one) != a {
		t.Fatal("errors.Unwrap of one %w")
	}
	two := printf.Errorf("%w (%w): %v", b, a, errors.New("c"))
	var target *errT
	if !errors.Is(two, a) || !errors.As(two, &target) || target != b || two.Error() != "b (a): c" {
		t.Fatalf("two %%w: %v", two)
	}
	if fe := fmt.Errorf("%w (%w): %v", b, a, errors.New("c")); fe.Error() != two.Error() {
		t.Fatalf("fmt: %q; printf: %q", fe, two)
	}
	none := printf.Errorf("no wrap: %v", a)
	if errors.Is(none, a) || errors.Unwrap(none) != nil {
		t.Fatal("Errorf wraps an operand of a plain verb")
	}
	nested := printf.Errorf("outer: %w", printf.Errorf("inner: %w", a))
	if !errors.Is(nested, a) {
		t.Fatal("nested wrap lost")
	}
}

var update = flag.Bool("update", false, "rewrite testdata/wordings.txt from the packages' formats, printed by fmt")

// wasmPackages are the folders of the packages the wasm links (their
// non-test files): every format string they pass to printf, fmt or
// protocolError.
var wasmPackages = []string{"../..", "../../wasm", "../jsontext", "../jsonrpc", "../wire", "../methods", "../textframes"}

// TestEveryWording prints every format string of the wasm's packages with
// sample operands (a string, a number, an error, a duration, by verb) and
// holds what printf prints to testdata/wordings.txt, written by fmt from
// the formats before the packages moved from fmt to printf (-update
// rewrites it, with fmt): an error message a user sees does not change.
// It also fails on a format with a verb or flag printf does not support.
func TestEveryWording(t *testing.T) {
	formats := map[string]string{} // format → where
	fset := token.NewFileSet()
	for _, dir := range wasmPackages {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				name, at := callee(call)
				if at < 0 || at >= len(call.Args) {
					return true
				}
				if id, ok := call.Args[at].(*ast.Ident); ok && id.Name == "format" {
					return true // a wrapper's own format, pinned at its callers (protocolError)
				}
				lit, ok := call.Args[at].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					if name != "" {
						t.Errorf("%s: %s with a format that is not a literal: cannot pin its wording", fset.Position(call.Pos()), name)
					}
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				if _, seen := formats[s]; !seen {
					p := fset.Position(call.Pos())
					formats[s] = filepath.Base(filepath.Dir(p.Filename)) + "/" + filepath.Base(p.Filename)
				}
				return true
			})
		}
	}
	if len(formats) < 100 {
		t.Fatalf("found %d formats: the scan misses the packages' calls", len(formats))
	}
	var lines []string
	for format := range formats {
		args := samples(t, format)
		var got string
		if strings.Contains(format, "%w") {
			got = printf.Errorf(format, args...).Error()
		} else {
			got = printf.Sprintf(format, args...)
		}
		want := fmt.Sprintf(strings.ReplaceAll(format, "%w", "%v"), args...)
		if got != want {
			t.Errorf("%s: %q prints %q; fmt: %q", formats[format], format, got, want)
		}
		lines = append(lines, strconv.Quote(format)+" → "+strconv.Quote(want))
	}
	sort.Strings(lines)
	golden := filepath.Join("testdata", "wordings.txt")
	text := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s missing: go test ./internal/printf -run TestEveryWording -update", golden)
		}
		t.Fatal(err)
	}
	pinned := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		pinned[l] = true
	}
	for _, l := range lines {
		if !pinned[l] {
			t.Errorf("a wording not in %s (a new or changed message: check it, then -update): %s", golden, l)
		}
	}
}

// callee names a formatting call and the index of its format argument:
// fmt.X / printf.X with f in the name, and protocolError.
func callee(call *ast.CallExpr) (string, int) {
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		pkg, ok := fn.X.(*ast.Ident)
		if !ok || (pkg.Name != "fmt" && pkg.Name != "printf") {
			return "", -1
		}
		switch fn.Sel.Name {
		case "Errorf", "Sprintf":
			return pkg.Name + "." + fn.Sel.Name, 0
		case "Fprintf", "Appendf":
			return pkg.Name + "." + fn.Sel.Name, 1
		}
	case *ast.Ident:
		if fn.Name == "protocolError" {
			return fn.Name, 0
		}
	}
	return "", -1
}

// samples are operands for format's verbs.
func samples(t *testing.T, format string) []any {
	var args []any
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i == len(format) {
			t.Errorf("format %q ends in %%", format)
			break
		}
		switch format[i] {
		case '%':
		case 's':
			args = append(args, "text")
		case 'q':
			args = append(args, "quote\"d")
		case 'd':
			args = append(args, 42)
		case 'v':
			args = append(args, 1500*time.Millisecond)
		case 'w':
			args = append(args, errors.New("cause"))
		case 'T':
			args = append(args, map[string]int{})
		default:
			t.Errorf("format %q: verb or flag %%%c is not supported by printf", format, format[i])
		}
	}
	return args
}
