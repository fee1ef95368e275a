package mcplive

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplive/mcplive/internal/methods"
)

// docPath reads the steps of doc.go's "The path of one list_changed": for
// each step, its files and the functions named after each, in order.
func docPath(t *testing.T) [][]docRef {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	start := strings.Index(text, "// # The path of one list_changed")
	end := strings.Index(text, "\npackage mcplive")
	if start < 0 || end < start {
		t.Fatal("doc.go has no section \"The path of one list_changed\"")
	}
	var lines []string
	for _, l := range strings.Split(text[start:end], "\n") {
		lines = append(lines, strings.TrimSpace(strings.TrimPrefix(l, "//")))
	}
	step := regexp.MustCompile(`^\d+\. `)
	ref := regexp.MustCompile(`([\w/.-]+\.(?:go|js)) \(([^)]*)\)`)
	var steps [][]docRef
	cur := ""
	flush := func() {
		if cur == "" {
			return
		}
		var refs []docRef
		for _, m := range ref.FindAllStringSubmatch(cur, -1) {
			var names []string
			for _, n := range strings.Split(m[2], ",") {
				names = append(names, strings.TrimSpace(n))
			}
			refs = append(refs, docRef{m[1], names})
		}
		steps = append(steps, refs)
	}
	for _, l := range lines {
		if step.MatchString(l) {
			flush()
			cur = step.ReplaceAllString(l, "")
			continue
		}
		if cur != "" {
			if l == "" {
				flush()
				cur = ""
				continue
			}
			cur += " " + l
		}
	}
	flush()
	if len(steps) < 5 {
		t.Fatalf("doc.go's path has %d steps", len(steps))
	}
	return steps
}

type docRef struct {
	file  string
	names []string
}

// Every file doc.go's path names exists and holds the functions named
// with it (Type.Method for a method).
func TestDocPathNamesTheCode(t *testing.T) {
	for i, refs := range docPath(t) {
		if len(refs) == 0 {
			t.Errorf("step %d names no file (write \"file.go (Func, Type.Method)\")", i+1)
		}
		for _, r := range refs {
			src, err := os.ReadFile(r.file)
			if err != nil {
				t.Errorf("step %d: %v", i+1, err)
				continue
			}
			if filepath.Ext(r.file) == ".js" {
				for _, n := range r.names {
					if !strings.Contains(string(src), n) {
						t.Errorf("step %d: %s has no %s", i+1, r.file, n)
					}
				}
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), r.file, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			have := map[string]bool{}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					have[funcName(fd)] = true
				}
			}
			for _, n := range r.names {
				if !have[n] {
					t.Errorf("step %d: %s has no func %s", i+1, r.file, n)
				}
			}
		}
	}
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) != 1 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// One list_changed, followed through the layers with a recording
// transport: the files of the root package on the call stacks it passes
// (its handling, the re-list's request, the subscriber's call) come in the
// order doc.go's path gives them, and nothing calls back up.
func TestDocPathOrder(t *testing.T) {
	var visits []string // doc.go's root Go files, in the order of the path
	for _, refs := range docPath(t) {
		for _, r := range refs {
			if filepath.Ext(r.file) == ".go" && !strings.Contains(r.file, "/") {
				visits = append(visits, r.file)
			}
		}
	}

	conn := &recordingConn{in: make(chan []byte, 16), done: make(chan struct{})}
	// The three stacks, by role: the notification's handling, the
	// re-list's request, the subscriber's call. They are recorded on
	// three goroutines, in no fixed order (Options.OnNotification runs
	// after the handler has triggered the re-list, which may be done
	// first): the test waits for all three and reads them by role.
	const (
		handler = iota
		request
		subscriber
	)
	var mu sync.Mutex
	var stacks [3][]string
	recorded := make(chan int, 8)
	record := func(role int) {
		s := rootFiles(3)
		mu.Lock()
		if stacks[role] == nil { // the first of each role
			stacks[role] = s
		}
		mu.Unlock()
		select { // never blocks the client's goroutine if more come
		case recorded <- role:
		default:
		}
	}
	changed := false
	conn.onList = func() {
		mu.Lock()
		c := changed
		mu.Unlock()
		if c {
			record(request)
		}
	}
	o := &Options{
		Transport: transportFunc(func(context.Context) (Conn, error) { return conn, nil }), ProtocolVersion: ProtocolVersion,
		HeartbeatInterval: -1, RawItems: true,
		OnNotification: func(method string, _ json.RawMessage) {
			if method == methods.NotifyToolsChanged {
				record(handler)
			}
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Connect(ctx, "ws://recording", o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer c.Tools().WatchView(func(u ViewUpdate) { // as the wasm binding watches
		if u.Cause == CauseNotification {
			record(subscriber)
		}
	})()
	mu.Lock()
	changed = true
	mu.Unlock()
	conn.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	var seenRole [3]bool
	for n := 0; n < 3; {
		select {
		case r := <-recorded:
			if !seenRole[r] {
				seenRole[r] = true
				n++
			}
		case <-ctx.Done():
			t.Fatalf("recorded %v of the three stacks (handler, re-list request, subscriber)", seenRole)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var seen []string
	for _, s := range stacks {
		seen = append(seen, s...)
	}
	for _, want := range []string{"session.go", "list.go", "walk.go", "queue.go"} {
		if !slices.Contains(seen, want) {
			t.Errorf("the change did not pass %s: %v", want, stacks)
		}
	}
	// seen must be a subsequence of visits.
	i := 0
	for _, f := range seen {
		for i < len(visits) && visits[i] != f {
			i++
		}
		if i == len(visits) {
			t.Fatalf("the change passed %v (by call stack, outermost first), which doc.go's path (%v) does not give in this order", stacks, visits)
		}
		i++
	}
}

// rootFiles returns the files of this package (not its tests) on the
// caller's stack, outermost first, each run of one file once.
func rootFiles(skip int) []string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(skip, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var files []string
	for {
		f, more := frames.Next()
		fn := strings.TrimPrefix(f.Function, "github.com/mcplive/mcplive.")
		if fn != f.Function && !strings.Contains(fn, "/") && !strings.HasSuffix(f.File, "_test.go") {
			files = append(files, filepath.Base(f.File))
		}
		if !more {
			break
		}
	}
	slices.Reverse(files)
	return slices.Compact(files)
}

type transportFunc func(context.Context) (Conn, error)

func (f transportFunc) Connect(ctx context.Context) (Conn, error) { return f(ctx) }

// recordingConn is a server of 2025-11-25 with one tool, in memory.
type recordingConn struct {
	in     chan []byte
	done   chan struct{}
	once   sync.Once
	onList func()
	lists  int
}

func (c *recordingConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, ErrClosed
	}
}

func (c *recordingConn) Write(ctx context.Context, msg []byte) error {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(msg, &m); err != nil || m.ID == nil {
		return err
	}
	result := `{}`
	switch m.Method {
	case methods.Initialize:
		result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"rec","version":"1"}}`
	case methods.ListTools:
		c.onList()
		c.lists++
		tools := `{"name":"greet","inputSchema":{"type":"object"}}`
		if c.lists > 1 {
			tools += `,{"name":"wave","inputSchema":{"type":"object"}}`
		}
		result = `{"tools":[` + tools + `]}`
	}
	select {
	case c.in <- []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`):
	case <-c.done:
	}
	return nil
}

func (c *recordingConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}
