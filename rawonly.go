//go:build !mcplive_rawitems

package mcplive

// rawItemsOnly is set by the build tag mcplive_rawitems (rawonly_tag.go).
const rawItemsOnly = false
