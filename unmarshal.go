//go:build !(js && mcplive_rawitems)

package mcplive

import "encoding/json"

// unmarshalJSON decodes typed items (walk.go): json.Unmarshal, in every
// build but the npm package's wasm (unmarshal_rawonly.go).
func unmarshalJSON(data []byte, v any) error { return json.Unmarshal(data, v) }
