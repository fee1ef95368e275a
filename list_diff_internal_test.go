package mcplive

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWalkAlignment checks the alignment a re-list carries up (relister's
// runs) against one made from scratch on the list it built, the diff that
// reads it (diffRuns) against the diff by key, and the positions an update
// then carries (listpos) against the items they must give, on random edits
// of random lists, repeated keys and repeated items included, with both
// builders (decoded and raw items).
func TestWalkAlignment(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	spec, _ := specOf(KindTools)
	raw := func(k, v int) RawMessage { return RawMessage(fmt.Sprintf(`{"name":"k%d","v":%d}`, k, v)) }
	key := func(e Entries, i int) string { return e.Key(i) + "=" + string(e.RawJSON(i)) }
	keys := func(e Entries) []string {
		var out []string
		for i := range e.Len() {
			out = append(out, key(e, i))
		}
		return out
	}
	same := func(a, b RawMessage) bool { return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0] }
	viaRuns := 0
	for n := range 4000 {
		// The list before, as a walk built it: each item its own memory.
		size := r.IntN(40)
		unique := n%3 != 0
		var olds []RawMessage
		for i := range size {
			k := i
			if !unique {
				k = r.IntN(size + 1)
			}
			olds = append(olds, raw(k, r.IntN(2)))
		}
		// The server's new list: old's items, edited.
		cur := slices.Clone(olds)
		for range r.IntN(8) {
			switch op := r.IntN(7); {
			case op == 0 && len(cur) > 0: // remove
				i := r.IntN(len(cur))
				cur = slices.Delete(cur, i, i+1)
			case op == 1: // insert a new or a repeated key
				cur = slices.Insert(cur, r.IntN(len(cur)+1), raw(r.IntN(size+5), r.IntN(3)))
			case op == 2 && len(cur) > 0: // change
				i := r.IntN(len(cur))
				cur[i] = raw(r.IntN(size+2), 2+r.IntN(2))
			case op == 3 && len(cur) > 1: // swap
				i, j := r.IntN(len(cur)), r.IntN(len(cur))
				cur[i], cur[j] = cur[j], cur[i]
			case op == 4 && len(cur) > 1: // move a run
				i := r.IntN(len(cur))
				j := i + r.IntN(len(cur)-i)
				run := slices.Clone(cur[i : j+1])
				cur = slices.Delete(cur, i, j+1)
				cur = slices.Insert(cur, r.IntN(len(cur)+1), run...)
			case op == 5 && len(cur) > 0: // repeat an item
				cur = slices.Insert(cur, r.IntN(len(cur)+1), cur[r.IntN(len(cur))])
			case op == 6 && len(cur) > 20: // remove many
				i := r.IntN(len(cur) - 10)
				cur = slices.Delete(cur, i, i+10)
			}
		}
		var old itemSlice
		newB := newBuild[Tool, *Tool]
		if n%2 == 1 {
			newB = newRawBuild(spec)
		}
		var oldB builder = newB(nil)
		if size > 0 || n%2 == 0 {
			oldB.grow(size)
			for _, o := range olds {
				if _, err := oldB.add(o); err != nil {
					t.Fatal(err)
				}
			}
		}
		old = oldB.items()
		oldUnique := len(dupKeysOf(old)) == 0

		// The walk, the page's items being fresh copies of the bytes.
		b := newB(old)
		al := &alignment{}
		rl := relister{prev: old, b: b, runs: al.runsBuf[:0]}
		b.grow(old.Len() + 1)
		for _, c := range cur {
			if _, _, err := rl.item(slices.Clone(c)); err != nil {
				t.Fatal(err)
			}
		}
		rl.flush()
		got := b.items()
		if got.Len() != len(cur) {
			t.Fatalf("old %s cur %s: built %d items", olds, cur, got.Len())
		}
		for i := range cur {
			if !slices.Equal(got.RawJSON(i), cur[i]) {
				t.Fatalf("old %s cur %s: item %d is %s", olds, cur, i, got.RawJSON(i))
			}
		}

		// The alignment from scratch: each item's position in old, as
		// the same memory, in runs that end where the next item is not
		// old's next one.
		want := []int{}
		for i := range got.Len() {
			j := -1
			for k := range old.Len() {
				if same(old.RawJSON(k), got.RawJSON(i)) {
					j = k
					break
				}
			}
			last := len(want) - 2
			switch {
			case j < 0 && last >= 0 && want[last] < 0:
				want[last+1]++
			case j < 0:
				want = append(want, -1, 1)
			case last >= 0 && want[last] >= 0 && want[last]+want[last+1] == j:
				want[last+1]++
			default:
				want = append(want, j, 1)
			}
		}
		if !slices.Equal(rl.runs, want) {
			t.Fatalf("old %s cur %s: walk's runs %v, from scratch %v", olds, cur, rl.runs, want)
		}

		// The diff that reads the runs against the diff by key.
		a1, r1, c1, re1, u1, _ := diff(old, got, false, nil)
		al.runs = rl.runs
		a2, r2, c2, re2, u2, rem := diff(old, got, oldUnique, al)
		if !slices.Equal(keys(a1), keys(a2)) || !slices.Equal(keys(r1), keys(r2)) || !slices.Equal(keys(c1), keys(c2)) {
			t.Fatalf("old %s cur %s runs %v: by key +%v -%v ~%v, by runs +%v -%v ~%v", olds, cur, rl.runs, keys(a1), keys(r1), keys(c1), keys(a2), keys(r2), keys(c2))
		}
		visible := a1.Len()+r1.Len()+c1.Len() > 0
		if visible || re1 != re2 {
			if (visible || re1) != (visible || re2) {
				t.Fatalf("old %s cur %s: reordered %v by key, %v by runs", olds, cur, re1, re2)
			}
		}
		if u1 != u2 {
			t.Fatalf("old %s cur %s: unique %v by key, %v by runs", olds, cur, u1, u2)
		}
		if oldUnique && len(rl.runs) > 0 {
			if _, _, _, ok := diffRuns(old, got, rl.runs, new([3][2]int)); ok {
				viaRuns++
			}
		}

		// The positions apply hands on (both lists unique): the runs
		// give the new list from old, Added and Changed; RemovedAt the
		// removed items in old.
		if !oldUnique || !u2 {
			continue
		}
		fresh := append(slices.Clone(keys(a2)), keys(c2)...)
		var built []string
		for p := 0; p < len(rl.runs); p += 2 {
			x, cnt := rl.runs[p], rl.runs[p+1]
			for k := range cnt {
				if x >= 0 {
					built = append(built, key(old, x+k))
					continue
				}
				i := len(built)
				f := slices.Index(fresh, key(got, i))
				if f < 0 || (f < a2.Len() && !same(a2.RawJSON(f), got.RawJSON(i))) || (f >= a2.Len() && !same(c2.RawJSON(f-a2.Len()), got.RawJSON(i))) {
					t.Fatalf("old %s cur %s runs %v: fresh item %d is not in added or changed", olds, cur, rl.runs, i)
				}
				fresh[f] = ""
				built = append(built, key(got, i))
			}
		}
		if !slices.Equal(built, keys(got)) || slices.ContainsFunc(fresh, func(s string) bool { return s != "" }) {
			t.Fatalf("old %s cur %s runs %v: positions give %v", olds, cur, rl.runs, built)
		}
		if len(rem) != r2.Len() {
			t.Fatalf("old %s cur %s: removedAt %v, removed %v", olds, cur, rem, keys(r2))
		}
		for k, at := range rem {
			if !same(old.RawJSON(at), r2.RawJSON(k)) {
				t.Fatalf("old %s cur %s: removedAt %v, removed %v", olds, cur, rem, keys(r2))
			}
		}
	}
	if viaRuns < 600 {
		t.Fatalf("only %d of the cases were diffed by their runs", viaRuns)
	}
}

func dupKeysOf(e Entries) []string {
	seen := map[string]bool{}
	var d []string
	for i := range e.Len() {
		if seen[e.Key(i)] {
			d = append(d, e.Key(i))
		}
		seen[e.Key(i)] = true
	}
	return d
}
