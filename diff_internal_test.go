package mcplive

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDiffAlignedMatchesByKey checks diff's in-place comparison against its
// comparison by key on random edits of random lists, repeated keys included.
func TestDiffAlignedMatchesByKey(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	tool := func(k int, v int) Tool {
		return Tool{Name: fmt.Sprint("k", k), Raw: json.RawMessage(fmt.Sprintf(`{"name":"k%d","v":%d}`, k, v))}
	}
	keys := func(e itemSlice) []string {
		var out []string
		for i := range e.Len() {
			out = append(out, e.Key(i)+"="+string(e.RawJSON(i)))
		}
		return out
	}
	for n := range 20000 {
		var old []Tool
		size := r.IntN(40)
		unique := n%3 != 0
		for i := range size {
			k := i
			if !unique {
				k = r.IntN(size + 1)
			}
			old = append(old, tool(k, 0))
		}
		cur := slices.Clone(old)
		for range r.IntN(6) {
			switch op := r.IntN(5); {
			case op == 0 && len(cur) > 0: // remove
				i := r.IntN(len(cur))
				cur = slices.Delete(cur, i, i+1)
			case op == 1: // insert a new or a repeated key
				cur = slices.Insert(cur, r.IntN(len(cur)+1), tool(r.IntN(size+5), 0))
			case op == 2 && len(cur) > 0: // change
				i := r.IntN(len(cur))
				cur[i] = tool(r.IntN(size+2), 1)
			case op == 3 && len(cur) > 1: // swap
				i, j := r.IntN(len(cur)), r.IntN(len(cur))
				cur[i], cur[j] = cur[j], cur[i]
			case op == 4 && len(cur) > 0: // new raw, same key
				i := r.IntN(len(cur))
				cur[i].Raw = json.RawMessage(fmt.Sprintf(`{"name":%q,"v":%d}`, cur[i].Name, 2+r.IntN(2)))
			}
		}
		oldUnique := len(dupKeys(old)) == 0
		a1, r1, c1, re1, u1 := diff(entries[Tool](old), entries[Tool](cur), false)
		a2, r2, c2, re2, u2 := diff(entries[Tool](old), entries[Tool](cur), oldUnique)
		if !slices.Equal(keys(a1), keys(a2)) || !slices.Equal(keys(r1), keys(r2)) || !slices.Equal(keys(c1), keys(c2)) {
			t.Fatalf("old %v cur %v: by key +%v -%v ~%v, aligned +%v -%v ~%v", names(old), names(cur), keys(a1), keys(r1), keys(c1), keys(a2), keys(r2), keys(c2))
		}
		visible := a1.Len()+r1.Len()+c1.Len() > 0
		if visible || re1 || re2 {
			if (visible || re1) != (visible || re2) {
				t.Fatalf("old %v cur %v: reordered %v by key, %v aligned", names(old), names(cur), re1, re2)
			}
		}
		if want := len(dupKeys(cur)) == 0; u1 != want || (u2 != want) {
			t.Fatalf("old %v cur %v: unique %v/%v, want %v", names(old), names(cur), u1, u2, want)
		}
	}
}

func names(ts []Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func dupKeys(ts []Tool) []string {
	seen := map[string]bool{}
	var d []string
	for _, t := range ts {
		if seen[t.Name] {
			d = append(d, t.Name)
		}
		seen[t.Name] = true
	}
	return d
}
