package mcplive_test

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeGoSnippet keeps the README's Go example identical to the body
// of ExampleConnect, which the compiler checks.
func TestReadmeGoSnippet(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	assertNoErr(t, err, "read README.md")
	src, err := os.ReadFile("example_test.go")
	assertNoErr(t, err, "read example_test.go")

	const marker = "<!-- snippet: example_test.go ExampleConnect -->\n```go\n"
	md := string(readme)
	i := strings.Index(md, marker)
	if i < 0 {
		t.Fatal("README.md has no Go snippet marked as ExampleConnect")
	}
	snippet := md[i+len(marker):]
	snippet = snippet[:strings.Index(snippet, "\n```")]

	const head = "func ExampleConnect() {\n"
	code := string(src)
	j := strings.Index(code, head)
	if j < 0 {
		t.Fatal("example_test.go has no ExampleConnect")
	}
	body := code[j+len(head):]
	body = body[:strings.Index(body, "\n}\n")]
	lines := strings.Split(body, "\n")
	for k, l := range lines {
		lines[k] = strings.TrimPrefix(l, "\t")
	}
	if want := strings.Join(lines, "\n"); snippet != want {
		t.Errorf("README.md's Go snippet differs from ExampleConnect:\n--- README\n%s\n--- example_test.go\n%s", snippet, want)
	}
}
