//go:build mcplive_rawitems

package mcplive

// rawItemsOnly: built with the tag mcplive_rawitems, every Client keeps its
// lists' items raw, as with Options.RawItems (typed items are decoded when
// asked for). The npm package's wasm is built so (build.sh): it reads only
// the raw items, and the code that decodes a page into typed items (about
// 15 KB of the wasm per kind) is then left out.
const rawItemsOnly = true
