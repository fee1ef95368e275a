package mcplive

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// jsKeyFields reads the table of js/src/kinds.js, KEY_FIELD: each kind and
// its key field, in the file's order.
func jsKeyFields(t *testing.T) [][2]string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("js", "src", "kinds.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)export const KEY_FIELD = Object\.freeze\(\{(.*?)\}\);`).FindSubmatch(src)
	if m == nil {
		t.Fatal(`js/src/kinds.js has no "export const KEY_FIELD = Object.freeze({ … });"`)
	}
	entry := regexp.MustCompile(`^(\w+): "(\w+)",?$`)
	var out [][2]string
	for _, l := range strings.Split(string(m[1]), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		e := entry.FindStringSubmatch(l)
		if e == nil {
			t.Fatalf("js/src/kinds.js: KEY_FIELD has a line this test cannot read: %q", l)
		}
		out = append(out, [2]string{e[1], e[2]})
	}
	return out
}

// The JS package's kinds and key fields (js/src/kinds.js, which the demo
// page imports too) are the Go kind registry's, in Kinds order.
func TestJSKindsMatchRegistry(t *testing.T) {
	js := jsKeyFields(t)
	var gos [][2]string
	for _, s := range kindTable {
		if string(s.kind) != s.field {
			t.Errorf("kind %q: its page member is %q: the JS table names a kind by both", s.kind, s.field)
		}
		gos = append(gos, [2]string{string(s.kind), s.key})
	}
	if len(js) != len(gos) {
		t.Fatalf("js/src/kinds.js KEY_FIELD has %d kinds %v, the Go registry %d %v", len(js), js, len(gos), gos)
	}
	for i := range gos {
		if js[i] != gos[i] {
			t.Errorf("kind %d: js/src/kinds.js has %s: %q, the Go registry %s: %q", i, js[i][0], js[i][1], gos[i][0], gos[i][1])
		}
		if i < len(Kinds) && string(Kinds[i]) != js[i][0] {
			t.Errorf("kind %d: js/src/kinds.js has %q, Kinds %q", i, js[i][0], Kinds[i])
		}
	}
}

// No other copy of the table: the package's modules and the demo page
// import the kinds and key fields from js/src/kinds.js rather than spell
// them again.
func TestJSKindsOneTable(t *testing.T) {
	def := regexp.MustCompile(`(?m)^\s*(?:export\s+)?(?:const|let|var)\s+(KINDS|KEY_FIELD)\s*=`)
	literal := regexp.MustCompile(`\[\s*"tools",\s*"prompts",\s*"resources",\s*"resourceTemplates"\s*\]|(?:resources|resourceTemplates):\s*(?:"uri(?:Template)?"|\(\w+\)\s*=>\s*\w+\.uri(?:Template)?\b)`)
	var files []string
	for _, glob := range []string{"js/src/*.js", "demo/static/*.js"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found only %d JS files: %v", len(files), files)
	}
	for _, f := range files {
		if f == filepath.Join("js", "src", "kinds.js") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := literal.Find(src); m != nil {
			t.Errorf("%s spells the kinds or their key fields itself (%q): import KINDS and KEY_FIELD from js/src/kinds.js", f, m)
		}
		if m := def.FindSubmatch(src); m != nil {
			t.Errorf("%s defines its own %s: import it from js/src/kinds.js", f, m[1])
		}
	}
}
