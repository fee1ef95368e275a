package mcplive

import (
	"fmt"
	"github.com/mcplive/mcplive/internal/jsonrpc"
	"strings"
	"testing"
)

// benchPage is a tools/list answer of 100 tools as the browser benchmark's
// server sends them (bench/server): about 26 KB.
func benchPage() []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":7,"result":{"tools":[`)
	for i := range 100 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"description":"Benchmark tool number %d: looks things up.","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"What to look for"},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"]},"name":"t%05d"}`, i, i)
	}
	b.WriteString(`],"nextCursor":"eyJsYXN0IjoidDAwMDk5In0="}}`)
	return []byte(b.String())
}

// BenchmarkReadListPage is what every page of a walk costs before its items
// are compared: one pass that validates the message and splits the page's
// items. Run it in wasm too (GOOS=js GOARCH=wasm, under Node), where it is
// 3-5× slower.
func BenchmarkReadListPage(b *testing.B) {
	page := benchPage()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		m, _, err := jsonrpc.Decode(page)
		if err != nil {
			b.Fatal(err)
		}
		p, next, _, err := parseListPage(m.Result, m.Index, "tools")
		if err != nil || len(p.items) != 100 || next == nil {
			b.Fatalf("%d items, %v", len(p.items), err)
		}
	}
}

// BenchmarkReadListPageParts: the message alone (its pass indexes the
// result), and the result read again on its own (what a walk does with a
// result the envelope could not index).
func BenchmarkReadListPageParts(b *testing.B) {
	page := benchPage()
	m, _, _ := jsonrpc.Decode(page)
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := jsonrpc.Decode(page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("result alone", func(b *testing.B) {
		for b.Loop() {
			if p, _, _, err := parseListPage(m.Result, nil, "tools"); err != nil || len(p.items) != 100 {
				b.Fatalf("%d items, %v", len(p.items), err)
			}
		}
	})
}
