package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/architecture.md's generated section with what pathtrace measures")

// TestArchitectureDoc measures the path of one list_changed over each
// transport (a real run: the root package's TestPathTrace against go-sdk
// servers) and fails when docs/architecture.md's generated section is not
// what pathtrace writes from it. With -update it rewrites the section:
//
//	go test ./internal/cmd/pathtrace -run TestArchitectureDoc -update
func TestArchitectureDoc(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	doc := filepath.Join(root, "docs", "architecture.md")
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	section, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	if !*update && section != Section(string(b)) {
		// Measured once more before failing: a loaded machine can still
		// reorder what a run passes (the functions known to vary are left
		// out of the section: generate.go's runs); a changed path differs
		// in every run.
		t.Log("the measured path differs from the committed one: measuring again")
		if section, err = Generate(root); err != nil {
			t.Fatal(err)
		}
	}
	if *update {
		out, err := Replace(string(b), section)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(doc, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got := Section(string(b))
	if got == section {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(section, "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("docs/architecture.md's generated path differs from what pathtrace measures, first at line %d of the section:\ncommitted: %s\nmeasured:  %s\n(the code's path changed: go test ./internal/cmd/pathtrace -run TestArchitectureDoc -update, and read the diff)", i+1, g, w)
			return
		}
	}
}
