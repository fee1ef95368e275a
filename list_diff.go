package mcplive

import (
	"github.com/mcplive/mcplive/internal/listpos"
)

// alignment is a walk's new list by positions in the list it started
// from, the list of version base (relister.runs; runs nil: not known),
// with room for what the diff and the update derive from it: after a
// change of a few items, one allocation for all of it.
type alignment struct {
	base    uint64
	runs    []int
	pos     listpos.Positions // what the update hands on (apply)
	runsBuf [6]int
	idx     [3][2]int // diffRuns's added, removed and changed, while few
}

// diff compares two lists by key. Items whose key is in both but whose raw
// JSON differs are changed. reordered reports the same set of keys in a
// different order. A key repeated within a list counts once (first wins).
// oldUnique says that old has no repeated key (known from the diff that
// made it current); curUnique says the same of cur, for the next diff.
//
// Most diffs are of lists that differ in a few places: given al, the walk's
// alignment of cur with old, they are compared in the places where the
// walk found new items (diffRuns), without hashing every key of both
// lists; in wasm, where maps hash without AES, two maps of 10,000 keys
// cost more than the rest of the diff. rem is the positions of removed in
// old.
func diff(old, cur itemSlice, oldUnique bool, al *alignment) (added, removed, changed itemSlice, reordered, curUnique bool, rem []int) {
	if oldUnique && al != nil && al.runs != nil {
		if add, rem, chg, ok := diffRuns(old, cur, al.runs, &al.idx); ok {
			return cur.pick(add), old.pick(rem), cur.pick(chg), false, true, rem
		}
	}
	nOld, nCur := old.Len(), cur.Len()
	var add, chg []int
	oldByKey := make(map[string]int, nOld)
	for i := range nOld {
		k := old.Key(i)
		if _, dup := oldByKey[k]; !dup {
			oldByKey[k] = i
		}
	}
	curUnique = true
	seen := make(map[string]bool, nCur)
	for i := range nCur {
		k := cur.Key(i)
		if seen[k] {
			curUnique = false
			continue
		}
		seen[k] = true
		j, ok := oldByKey[k]
		switch {
		case !ok:
			add = append(add, i)
		case !sameBytes(old.RawJSON(j), cur.RawJSON(i)):
			chg = append(chg, i)
		}
		if ok && (i >= nOld || old.Key(i) != k) {
			reordered = true
		}
	}
	for i := range nOld {
		if k := old.Key(i); !seen[k] {
			rem = append(rem, i)
			seen[k] = true // report a duplicate key once
		}
	}
	if nOld != nCur {
		reordered = reordered || (len(add) == 0 && len(rem) == 0)
	}
	return cur.pick(add), old.pick(rem), cur.pick(chg), reordered, curUnique, rem
}

// diffRuns is diff for an old list without repeated keys and a new one
// given by runs, its alignment with old (relister.runs): a reused run is
// old's items as they are; the fresh items between two reused runs are
// changed versions of old's items between them, with the same key in the
// same order, or added; old's other items there are removed. It gives up
// (ok false) on a reused run that goes back (a move), on more than
// maxAligned added items, and on an added key that old has (a move) or
// that is added twice (a repeat), which diff then compares by key. It
// compares keys only in the gaps of the reused runs.
func diffRuns(old, cur itemSlice, runs []int, idx *[3][2]int) (add, rem, chg []int, ok bool) {
	nOld, nCur := old.Len(), cur.Len()
	add, rem, chg = idx[0][:0], idx[1][:0], idx[2][:0]
	i, o := 0, 0 // the next items of cur and of old
	fresh := 0   // items of cur from i on, decoded anew
	// Past the last run, the gap up to the end of old.
	for r := 0; r <= len(runs); r += 2 {
		x, n := nOld, 0
		if r < len(runs) {
			if x, n = runs[r], runs[r+1]; x < 0 {
				fresh += n
				continue
			}
		}
		if x < o || x+n > nOld || i+fresh+n > nCur {
			return nil, nil, nil, false
		}
		// The gap: old[o:x] and the fresh items before x.
		for ; fresh > 0; fresh, i = fresh-1, i+1 {
			p := indexKey(old, cur.Key(i), o, x)
			if p < 0 {
				if len(add) >= maxAligned {
					return nil, nil, nil, false
				}
				add = append(add, i)
				continue
			}
			for ; o < p; o++ {
				rem = append(rem, o)
			}
			chg = append(chg, i)
			o++
		}
		for ; o < x; o++ {
			rem = append(rem, o)
		}
		i, o = i+n, x+n
	}
	if i != nCur {
		return nil, nil, nil, false
	}
	for n, a := range add {
		k := cur.Key(a)
		if hasKey(old, k, 0, nOld) {
			return nil, nil, nil, false
		}
		for _, b := range add[:n] {
			if cur.Key(b) == k {
				return nil, nil, nil, false
			}
		}
	}
	return add, rem, chg, true
}

// indexKey returns the index of key k in e[from:to], or -1.
func indexKey(e Entries, k string, from, to int) int {
	for i := from; i < to; i++ {
		if e.Key(i) == k {
			return i
		}
	}
	return -1
}

func hasKey(e Entries, k string, from, to int) bool { return indexKey(e, k, from, to) >= 0 }
