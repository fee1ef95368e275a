package mcplive_test

import (
	"go/build"
	"os"
	"regexp"
	"strings"
	"testing"
)

const modulePath = "github.com/mcplive/mcplive"

// docLayers reads doc.go's layer diagram (the section "Layers"): one layer
// a line, from the top, each line's packages (relative to the module,
// "mcplive" for the root) before its first run of two spaces.
func docLayers(t *testing.T) [][]string {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	start := strings.Index(text, "// # Layers")
	if start < 0 {
		t.Fatal(`doc.go has no section "# Layers"`)
	}
	var layers [][]string
	row := regexp.MustCompile(`^//\t(\S.*?)(?:\s{2,}|$)`)
	for _, l := range strings.Split(text[start:], "\n")[1:] {
		if strings.HasPrefix(l, "// #") || !strings.HasPrefix(l, "//") {
			break
		}
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var layer []string
		for _, p := range strings.Split(m[1], ",") {
			p = strings.TrimSuffix(strings.TrimSpace(p), "/")
			if p == "mcplive" {
				p = "."
			}
			layer = append(layer, p)
		}
		layers = append(layers, layer)
	}
	if len(layers) < 3 {
		t.Fatalf("doc.go's layer diagram has %d layers", len(layers))
	}
	return layers
}

// TestLayers holds the module's packages to doc.go's layer diagram: each
// package of a layer imports only packages of the layers below it (never
// one of its own layer or above, never one outside the diagram), in every
// build the module makes (native, and GOOS=js GOARCH=wasm with and without
// the tag mcplive_rawitems). Lower never imports upper: the compiler keeps
// the layers apart, and this test keeps the diagram true.
func TestLayers(t *testing.T) {
	t.Parallel()
	layers := docLayers(t)
	layerOf := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("doc.go's layer %d names %s: %v", i+1, p, err)
			}
			layerOf[p] = i
		}
	}
	native := build.Default
	native.GOOS, native.GOARCH = "linux", "amd64"
	native.CgoEnabled = false
	wasm := build.Default
	wasm.GOOS, wasm.GOARCH = "js", "wasm"
	wasm.CgoEnabled = false
	rawitems := wasm
	rawitems.BuildTags = []string{"mcplive_rawitems"}
	for _, ctx := range []build.Context{native, wasm, rawitems} {
		for p, li := range layerOf {
			pkg, err := ctx.ImportDir(p, 0)
			if err != nil {
				if _, ok := err.(*build.NoGoError); ok {
					continue // wasm/ is js-only, and so on
				}
				t.Fatalf("%s/%s: %v", ctx.GOOS, p, err)
			}
			for _, imp := range pkg.Imports {
				if imp != modulePath && !strings.HasPrefix(imp, modulePath+"/") {
					continue
				}
				rel := strings.TrimPrefix(strings.TrimPrefix(imp, modulePath), "/")
				if rel == "" {
					rel = "."
				}
				lj, ok := layerOf[rel]
				switch {
				case !ok:
					t.Errorf("%s/%s: %s (layer %d) imports %s, which doc.go's layer diagram does not place", ctx.GOOS, ctx.GOARCH, p, li+1, rel)
				case lj <= li:
					t.Errorf("%s/%s: %s (layer %d) imports %s (layer %d): a layer imports only those below it", ctx.GOOS, ctx.GOARCH, p, li+1, rel, lj+1)
				}
			}
		}
	}
}
