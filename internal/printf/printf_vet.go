//go:build printfvet

package printf

import "fmt"

// With the tag printfvet (build.sh's test_go: go vet -tags printfvet), the
// functions forward to fmt's, so that go vet's printf check knows them as
// fmt's wrappers and checks every call's format and operands, %w included.
// No build ships this file.

func Errorf(format string, args ...any) error             { return fmt.Errorf(format, args...) }
func Sprintf(format string, args ...any) string           { return fmt.Sprintf(format, args...) }
func Appendf(b []byte, format string, args ...any) []byte { return fmt.Appendf(b, format, args...) }
func Sprint(v any) string                                 { return fmt.Sprint(v) }
