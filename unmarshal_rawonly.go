//go:build js && mcplive_rawitems

package mcplive

import "errors"

// unmarshalJSON is never reached in the npm package's wasm (GOOS=js with
// the build tag mcplive_rawitems): its lists keep their items raw
// (rawonly_tag.go) and the binding reads only those. Leaving
// encoding/json out of that build keeps its package initialisation, and
// the reflection, fmt and os it links, out of the wasm (about 26 KB
// brotli); RawMessage is then internal/jsontext's own type. A Go program
// built with the tag gets this error from a typed list read instead.
func unmarshalJSON(data []byte, v any) error {
	return errors.New("mcplive: typed items are not decoded in a build with -tags mcplive_rawitems (read the raw items)")
}
