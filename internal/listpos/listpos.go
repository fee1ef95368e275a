// Package listpos hands the wasm binding what a list's walk knew of where
// the items of the new list were in the last one: the binding's positional
// list messages (seq, removedAt) are read from it rather than derived
// again. Package mcplive keeps it in its ViewUpdate, unexported, and sets
// Of.
package listpos

// Positions says a new list by positions in the list before it. Runs
// holds pairs: (x ≥ 0, n) is the items x to x+n-1 of the list before, the
// same items (their raw JSON the same bytes in memory); (-1, n) is n items
// decoded anew, which are the update's Added and Changed items in the new
// list's order (but for a list that repeats a key: a repeated key's item is
// neither, and a Changed item may be one of the list before). RemovedAt
// holds the positions of the update's Removed items in the list before,
// in its order. A run of the list before ends where the next item is not
// its next one.
type Positions struct {
	Runs      []int
	RemovedAt []int
}

// Of returns the positions of an update (a *mcplive.ViewUpdate); ok is
// false when they are not known.
var Of func(update any) (p Positions, ok bool)
