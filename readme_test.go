package mcplive_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The documentation's code blocks: every fenced block of README.md,
// CONTRIBUTING.md and docs/*.md is preceded by a comment that says how it is
// tested (CONTRIBUTING.md, "How the documentation's snippets are tested"):
//
//	<!-- snippet: e2e/snippets/NAME -->      that file, verbatim; e2e runs it
//	<!-- snippet: e2e/apps/PATH -->          a file of an app e2e runs (bindings.test.mjs), verbatim
//	<!-- snippet: FILE_test.go ExampleX -->  the body of that Go example
//	<!-- typecheck: js/test/types/NAME.ts --> the end of that file, which tsc checks
//	<!-- not-run: REASON -->                 not runnable, and why (3 words or more)

// docFiles are the documents whose code blocks are checked.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md"}
	docs, err := filepath.Glob("docs/*.md")
	assertNoErr(t, err, "glob docs/*.md")
	if len(docs) == 0 {
		t.Fatal("docs/ has no .md files")
	}
	return append(files, docs...)
}

// codeBlock is one fenced block of a document.
type codeBlock struct {
	line   int    // 1-based line of the opening fence
	lang   string // the fence's info string
	marker string // the comment on the last non-blank line before the fence ("" if none)
	body   string // the block's text, without the fences, dedented by the fence's indent
}

var fenceRE = regexp.MustCompile("^( *)(```+|~~~+)(.*)$")

// codeBlocks splits a Markdown document into its fenced blocks.
func codeBlocks(md string) ([]codeBlock, error) {
	var blocks []codeBlock
	lines := strings.Split(md, "\n")
	prev := ""
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			if s := strings.TrimSpace(lines[i]); s != "" {
				prev = s
			}
			continue
		}
		indent, fence := m[1], m[2]
		b := codeBlock{line: i + 1, lang: strings.TrimSpace(m[3])}
		if strings.HasPrefix(prev, "<!--") {
			b.marker = prev
		}
		var body []string
		closed := false
		for i++; i < len(lines); i++ {
			if l := strings.TrimLeft(lines[i], " "); strings.HasPrefix(l, fence) && strings.TrimSpace(strings.TrimLeft(l, fence[:1])) == "" {
				closed = true
				break
			}
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		if !closed {
			return blocks, fmt.Errorf("line %d: the code block is never closed", b.line)
		}
		b.body = strings.Join(body, "\n")
		blocks = append(blocks, b)
		prev = ""
	}
	return blocks, nil
}

var markerRE = regexp.MustCompile(`^<!-- (snippet|typecheck|not-run): (.*?) -->$`)

// docChecks collects what the checks of the blocks found across documents.
type docChecks struct {
	snippets map[string]bool // e2e/snippets files shown
}

// checkBlock returns what is wrong with one block ("" when nothing is).
// read reads a file of the repository.
func (c *docChecks) checkBlock(b codeBlock, read func(string) (string, error)) string {
	if b.marker == "" {
		return "no <!-- snippet: … -->, <!-- typecheck: … --> or <!-- not-run: reason --> comment before it"
	}
	m := markerRE.FindStringSubmatch(b.marker)
	if m == nil {
		return fmt.Sprintf("the comment before it, %s, is none of snippet, typecheck, not-run", b.marker)
	}
	kind, arg := m[1], strings.TrimSpace(m[2])
	switch kind {
	case "not-run":
		if len(strings.Fields(arg)) < 3 {
			return fmt.Sprintf("not-run needs a reason of a few words, not %q", arg)
		}
		return ""
	case "typecheck":
		if !strings.HasPrefix(arg, "js/test/types/") || !strings.HasSuffix(arg, ".ts") {
			return fmt.Sprintf("typecheck names %q, not a js/test/types/*.ts file", arg)
		}
		src, err := read(arg)
		if err != nil {
			return err.Error()
		}
		if !strings.HasSuffix(src, "\n"+b.body+"\n") {
			return fmt.Sprintf("%s does not end with this block, verbatim", arg)
		}
		cfg, err := read("js/test/types/tsconfig.json")
		if err != nil {
			return err.Error()
		}
		var tsconfig struct {
			Files   []string `json:"files"`
			Include []string `json:"include"`
		}
		if err := json.Unmarshal([]byte(cfg), &tsconfig); err != nil {
			return "js/test/types/tsconfig.json: " + err.Error()
		}
		rel := strings.TrimPrefix(arg, "js/test/types/")
		listed := slices.Contains(tsconfig.Files, rel)
		for _, pat := range tsconfig.Include {
			if ok, _ := path.Match(pat, rel); ok {
				listed = true
			}
		}
		if !listed {
			return fmt.Sprintf("%s is not in js/test/types/tsconfig.json, so tsc does not check it", arg)
		}
		return ""
	}
	// snippet
	fields := strings.Fields(arg)
	switch {
	case len(fields) == 1 && (strings.HasPrefix(fields[0], "e2e/snippets/") || strings.HasPrefix(fields[0], "e2e/apps/")):
		src, err := read(fields[0])
		if err != nil {
			return err.Error()
		}
		if b.body != strings.TrimSuffix(src, "\n") {
			return fmt.Sprintf("differs from %s:\n--- document\n%s\n--- %s\n%s", fields[0], b.body, fields[0], src)
		}
		c.snippets[fields[0]] = true
		return ""
	case len(fields) == 2 && strings.HasSuffix(fields[0], "_test.go") && strings.HasPrefix(fields[1], "Example"):
		src, err := read(fields[0])
		if err != nil {
			return err.Error()
		}
		head := "func " + fields[1] + "() {\n"
		j := strings.Index(src, head)
		if j < 0 {
			return fmt.Sprintf("%s has no %s", fields[0], fields[1])
		}
		body := src[j+len(head):]
		body = body[:strings.Index(body, "\n}\n")]
		lines := strings.Split(body, "\n")
		for k, l := range lines {
			lines[k] = strings.TrimPrefix(l, "\t")
		}
		if want := strings.Join(lines, "\n"); b.body != want {
			return fmt.Sprintf("differs from %s in %s:\n--- document\n%s\n--- %s\n%s", fields[1], fields[0], b.body, fields[0], want)
		}
		return ""
	}
	return fmt.Sprintf("snippet names %q: want e2e/snippets/NAME, e2e/apps/PATH or FILE_test.go ExampleName", arg)
}

func readRepoFile(name string) (string, error) {
	if filepath.IsAbs(name) || strings.Contains(name, "..") {
		return "", fmt.Errorf("%s: not a path inside the repository", name)
	}
	b, err := os.ReadFile(filepath.FromSlash(name))
	return string(b), err
}

// TestReadmeCodeBlocks holds every code block of the documentation to what
// the comment before it says.
func TestReadmeCodeBlocks(t *testing.T) {
	t.Parallel()
	c := &docChecks{snippets: map[string]bool{}}
	total := 0
	for _, doc := range docFiles(t) {
		md, err := os.ReadFile(doc)
		assertNoErr(t, err, "read "+doc)
		blocks, err := codeBlocks(string(md))
		if err != nil {
			t.Errorf("%s: %v", doc, err)
		}
		for _, b := range blocks {
			total++
			if problem := c.checkBlock(b, readRepoFile); problem != "" {
				t.Errorf("%s:%d: %s", doc, b.line, problem)
			}
		}
	}
	if total == 0 {
		t.Fatal("no code blocks found")
	}
	// Every file of e2e/snippets and e2e/apps is shown, so every snippet and app the tests run is one a user reads.
	files, err := filepath.Glob("e2e/snippets/*")
	assertNoErr(t, err, "glob e2e/snippets")
	assertNoErr(t, filepath.WalkDir("e2e/apps", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	}), "walk e2e/apps")
	for _, f := range files {
		if f = filepath.ToSlash(f); !c.snippets[f] {
			t.Errorf("%s is shown in none of README.md, CONTRIBUTING.md, docs/*.md", f)
		}
	}
}

// TestReadmeCodeBlocksCheckerFails shows that the checks above can fail: each
// document here breaks one rule.
func TestReadmeCodeBlocksCheckerFails(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"e2e/snippets/a.js":           "console.log(1);\n",
		"example_x_test.go":           "package x\n\nfunc ExampleA() {\n\tfmt.Println(1)\n}\n",
		"js/test/types/a.ts":          "declare const x: number;\nconsole.log(x);\n",
		"js/test/types/tsconfig.json": `{"files": ["a.ts"]}`,
	}
	read := func(name string) (string, error) {
		if s, ok := files[name]; ok {
			return s, nil
		}
		return "", fmt.Errorf("%s: no such file", name)
	}
	for _, tc := range []struct{ md, want string }{
		{"```js\nx\n```\n", "no <!-- snippet"},
		{"<!-- maybe -->\n```js\nx\n```\n", "none of snippet"},
		{"<!-- not-run: no -->\n```js\nx\n```\n", "a reason of a few words"},
		{"<!-- not-run: -->\n```js\nx\n```\n", "none of snippet"},
		{"<!-- snippet: e2e/snippets/a.js -->\n```js\nconsole.log(2);\n```\n", "differs from e2e/snippets/a.js"},
		{"<!-- snippet: e2e/snippets/b.js -->\n```js\nx\n```\n", "no such file"},
		{"<!-- snippet: example_x_test.go ExampleA -->\n```go\nfmt.Println(2)\n```\n", "differs from ExampleA"},
		{"<!-- snippet: example_x_test.go ExampleB -->\n```go\nx\n```\n", "has no ExampleB"},
		{"<!-- typecheck: js/test/types/a.ts -->\n```js\nconsole.log(y);\n```\n", "does not end with this block"},
		{"<!-- typecheck: js/test/types/b.ts -->\n```js\nx\n```\n", "no such file"},
		{"<!-- snippet: README.md -->\n```js\nx\n```\n", "want e2e/snippets/NAME"},
		{"<!-- not-run: a shell session here -->\n\nSome text.\n\n```sh\nls\n```\n", "no <!-- snippet"},
	} {
		blocks, err := codeBlocks(tc.md)
		if err != nil || len(blocks) != 1 {
			t.Fatalf("%q: %d blocks, %v", tc.md, len(blocks), err)
		}
		c := &docChecks{snippets: map[string]bool{}}
		if got := c.checkBlock(blocks[0], read); !strings.Contains(got, tc.want) {
			t.Errorf("%q: got %q, want a problem with %q", tc.md, got, tc.want)
		}
	}
	// And what passes does.
	files["js/test/types/tsconfig.json"] = `{"files": ["usage.ts"], "include": ["*.ts"]}`
	for _, md := range []string{
		"<!-- not-run: HTTP headers, not code -->\n```\nX-A: b\n```\n",
		"<!-- snippet: e2e/snippets/a.js -->\n\n```js\nconsole.log(1);\n```\n",
		"<!-- snippet: example_x_test.go ExampleA -->\n```go\nfmt.Println(1)\n```\n",
		"<!-- typecheck: js/test/types/a.ts -->\n```js\nconsole.log(x);\n```\n",
		"- a list item:\n\n  <!-- snippet: e2e/snippets/a.js -->\n  ```js\n  console.log(1);\n  ```\n",
	} {
		blocks, err := codeBlocks(md)
		if err != nil || len(blocks) != 1 {
			t.Fatalf("%q: %d blocks, %v", md, len(blocks), err)
		}
		c := &docChecks{snippets: map[string]bool{}}
		if got := c.checkBlock(blocks[0], read); got != "" {
			t.Errorf("%q: %s", md, got)
		}
	}
	if _, err := codeBlocks("```js\nx\n"); err == nil {
		t.Error("an unclosed block is no error")
	}
}

// TestReadmeFuzzTargets keeps CONTRIBUTING.md's fuzz targets those that
// build.sh runs, and its count in words.
func TestReadmeFuzzTargets(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile("build.sh")
	assertNoErr(t, err, "read build.sh")
	var run []string
	for _, m := range regexp.MustCompile(`-fuzz '\^(Fuzz\w+)\$'`).FindAllStringSubmatch(string(script), -1) {
		run = append(run, m[1])
	}
	if len(run) == 0 {
		t.Fatal("build.sh runs no fuzz target (the pattern of this test is out of date)")
	}
	contributing, err := os.ReadFile("CONTRIBUTING.md")
	assertNoErr(t, err, "read CONTRIBUTING.md")
	doc := string(contributing)
	for _, name := range run {
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("CONTRIBUTING.md does not name %s, which build.sh runs", name)
		}
	}
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	m := regexp.MustCompile("`build.sh` runs (\\w+) fuzz targets").FindStringSubmatch(doc)
	if m == nil {
		t.Fatal("CONTRIBUTING.md does not say how many fuzz targets build.sh runs (\"`build.sh` runs N fuzz targets\")")
	}
	if len(run) >= len(words) || m[1] != words[len(run)] {
		t.Errorf("CONTRIBUTING.md says build.sh runs %s fuzz targets; it runs %d", m[1], len(run))
	}
	// Every fuzz target the documents name exists.
	tests, err := filepath.Glob("*_test.go")
	assertNoErr(t, err, "glob *_test.go")
	internal, err := filepath.Glob("internal/*/*_test.go")
	assertNoErr(t, err, "glob internal/*/*_test.go")
	tests = append(tests, internal...)
	commands, err := filepath.Glob("internal/cmd/*/*_test.go")
	assertNoErr(t, err, "glob internal/cmd/*/*_test.go")
	tests = append(tests, commands...)
	var all strings.Builder
	for _, f := range tests {
		b, err := os.ReadFile(f)
		assertNoErr(t, err, "read "+f)
		all.Write(b)
	}
	for _, doc := range append(docFiles(t), "README.md") {
		b, err := os.ReadFile(doc)
		assertNoErr(t, err, "read "+doc)
		for _, name := range regexp.MustCompile(`\bFuzz[A-Z]\w*`).FindAllString(string(b), -1) {
			if !strings.Contains(all.String(), "func "+name+"(") {
				t.Errorf("%s names %s, which no test file of the root package or of internal/ defines", doc, name)
			}
		}
	}
}

// TestReadmeNoHistory: past rounds are history (bench/HISTORY.md), not
// documentation: no commit hashes, load averages or issue numbers in the
// README or docs/.
func TestReadmeNoHistory(t *testing.T) {
	t.Parallel()
	hash := regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	for _, doc := range append([]string{"README.md"}, docFiles(t)[2:]...) {
		b, err := os.ReadFile(doc)
		assertNoErr(t, err, "read "+doc)
		for n, line := range strings.Split(string(b), "\n") {
			for _, h := range hash.FindAllString(line, -1) {
				if strings.ContainsAny(h, "abcdef") && strings.ContainsAny(h, "0123456789") {
					t.Errorf("%s:%d: %q looks like a commit hash", doc, n+1, h)
				}
			}
			if l := strings.ToLower(line); strings.Contains(l, "load average") || regexp.MustCompile(`\bissues? #?\d+|#\d+\b`).MatchString(l) {
				t.Errorf("%s:%d: a load average or an issue number: %s", doc, n+1, line)
			}
		}
	}
}

// TestReadmeShape: the README is a user's document of at most about 400
// lines whose first paragraph says what mcplive speaks, with the two
// commands at the top; the npm package says the same.
func TestReadmeShape(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("README.md")
	assertNoErr(t, err, "read README.md")
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > 420 {
		t.Errorf("README.md has %d lines; keep it at about 400 and move the rest to docs/ or CONTRIBUTING.md", n)
	}
	paragraphs := strings.Split(readme, "\n\n")
	if len(paragraphs) < 2 {
		t.Fatal("README.md has no first paragraph")
	}
	says := []string{"Streamable HTTP", "WebSocket", "2025-11-25", "2026-07-28"}
	first := strings.Join(strings.Fields(paragraphs[1]), " ")
	for _, s := range says {
		if !strings.Contains(first, s) {
			t.Errorf("README.md's first paragraph does not say %q:\n%s", s, first)
		}
	}
	blocks, err := codeBlocks(readme)
	assertNoErr(t, err, "README.md's blocks")
	if len(blocks) == 0 || !strings.Contains(blocks[0].body, "./build.sh demo") || !strings.Contains(blocks[0].body, "./build.sh test") {
		t.Error("README.md's first code block is not the two commands, ./build.sh demo and ./build.sh test")
	}
	// The npm package's description, index.js's top comment and its README.
	pkg, err := os.ReadFile("js/package.json")
	assertNoErr(t, err, "read js/package.json")
	var manifest struct {
		Description string `json:"description"`
	}
	assertNoErr(t, json.Unmarshal(pkg, &manifest), "parse js/package.json")
	index, err := os.ReadFile("js/index.js")
	assertNoErr(t, err, "read js/index.js")
	var top []string
	for _, l := range strings.Split(string(index), "\n") {
		if !strings.HasPrefix(l, "//") {
			break
		}
		top = append(top, strings.TrimPrefix(strings.TrimPrefix(l, "//"), " "))
	}
	jsReadme, err := os.ReadFile("js/README.md")
	assertNoErr(t, err, "read js/README.md")
	jsParagraphs := strings.Split(string(jsReadme), "\n\n")
	for name, text := range map[string]string{
		"js/package.json's description":  manifest.Description,
		"js/index.js's top comment":      strings.Join(top, " "),
		"js/README.md's first paragraph": strings.Join(strings.Fields(jsParagraphs[min(1, len(jsParagraphs)-1)]), " "),
	} {
		for _, s := range says {
			if !strings.Contains(text, s) {
				t.Errorf("%s does not say %q (as the README's first paragraph does): %s", name, s, text)
			}
		}
	}
}

// TestReadmeArchitecturePaths keeps the paths of docs/architecture.md's
// layout table true.
func TestReadmeArchitecturePaths(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("docs/architecture.md")
	assertNoErr(t, err, "read docs/architecture.md")
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		for _, m := range regexp.MustCompile("`([\\w*./-]+(?:\\.go|/))`").FindAllStringSubmatch(line, -1) {
			p := m[1]
			if strings.HasPrefix(p, "*.") || strings.HasPrefix(p, "GOOS") {
				continue
			}
			n++
			if strings.Contains(p, "*") {
				if matches, _ := filepath.Glob(p); len(matches) == 0 {
					t.Errorf("docs/architecture.md names %s: no such files", p)
				}
			} else if _, err := os.Stat(p); err != nil {
				t.Errorf("docs/architecture.md names %s: %v", p, err)
			}
		}
	}
	if n < 10 {
		t.Errorf("docs/architecture.md's layout table names %d paths; the pattern of this test is out of date", n)
	}
	// The root package's row names every file of the package (by name or
	// by a pattern such as http*.go): a newcomer finds each in the map.
	var row string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| `*.go` (package `mcplive`)") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("docs/architecture.md's layout table has no row for the root package (| `*.go` (package `mcplive`) |)")
	}
	var named []string
	for _, m := range regexp.MustCompile("`([\\w*.-]+\\.go)`").FindAllStringSubmatch(row, -1) {
		named = append(named, m[1])
	}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		found := false
		for _, p := range named {
			if ok, _ := filepath.Match(p, f); ok && p != "*.go" {
				found = true
			}
		}
		if !found {
			t.Errorf("docs/architecture.md's row for the root package does not name %s", f)
		}
	}
}

// githubSlug is the anchor GitHub gives a heading.
func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '—' && r != '–' && r != '→' && r != '×':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestReadmeLinks: every relative link of the documentation reaches a file
// of the repository (or docs/api/, which ./build.sh docs makes), and every
// #anchor a heading of the page it names.
func TestReadmeLinks(t *testing.T) {
	t.Parallel()
	link := regexp.MustCompile(`\]\(([^)\s]+)\)|<img src="([^"]+)"`)
	heading := regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	anchors := func(file string) map[string]bool {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil
		}
		set := map[string]bool{}
		for _, m := range heading.FindAllStringSubmatch(string(b), -1) {
			set[githubSlug(m[1])] = true
		}
		return set
	}
	docs := append(docFiles(t), "demo/README.md", "js/README.md")
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		assertNoErr(t, err, "read "+doc)
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1] + m[2]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			if file == "" {
				file = doc
			} else {
				file = filepath.Join(filepath.Dir(doc), file)
			}
			if strings.HasPrefix(filepath.ToSlash(file), "docs/api") {
				continue // generated by ./build.sh docs
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s links to %s: %v", doc, target, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !anchors(file)[anchor] {
				t.Errorf("%s links to %s: %s has no heading #%s", doc, target, file, anchor)
			}
		}
	}
}
