package mcplive

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// sseAll reads every event of stream (as the reader sees it through r's
// wrapper) and the error that ended it.
func sseAll(t *testing.T, r io.Reader, limit int64) ([]sseEvent, *sseReader, error) {
	t.Helper()
	sr := newSSEReader(r, limit)
	var evs []sseEvent
	for i := 0; i < 1000; i++ {
		ev, err := sr.next()
		if err != nil {
			return evs, sr, err
		}
		evs = append(evs, ev)
	}
	t.Fatal("more than 1000 events")
	return nil, nil, nil
}

func TestSSEParse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream string
		want   []sseEvent // id, name, data
		end    error
	}{
		{"one", "data: {}\n\n", []sseEvent{{data: []byte("{}")}}, io.EOF},
		{"crlf", "data: a\r\ndata: b\r\n\r\n", []sseEvent{{data: []byte("a\nb")}}, io.EOF},
		{"cr", "data: a\rdata: b\r\r", []sseEvent{{data: []byte("a\nb")}}, io.EOF},
		{"bom", "\xEF\xBB\xBFdata: x\n\n", []sseEvent{{data: []byte("x")}}, io.EOF},
		{"no-space", "data:x\n\n", []sseEvent{{data: []byte("x")}}, io.EOF},
		{"two-spaces", "data:  x\n\n", []sseEvent{{data: []byte(" x")}}, io.EOF},
		{"comment", ": keepalive\n\n:\ndata: x\n\n", []sseEvent{{data: []byte("x")}}, io.EOF},
		{"id-priming", "id: 7\ndata:\n\ndata: x\n\n", []sseEvent{{id: "7"}, {id: "7", data: []byte("x")}}, io.EOF},
		{"id-only", "id: 7\n\n", []sseEvent{{id: "7"}}, io.EOF},
		{"id-nul-ignored", "id: 1\n\nid: a\x00b\ndata: x\n\n", []sseEvent{{id: "1"}, {id: "1", data: []byte("x")}}, io.EOF},
		{"id-reset", "id: 1\n\nid\ndata: x\n\n", []sseEvent{{id: "1"}, {id: "", data: []byte("x")}}, io.EOF},
		{"event-name", "event: ping\ndata: x\n\n", []sseEvent{{name: "ping", data: []byte("x")}}, io.EOF},
		{"empty-data-line", "data\ndata\n\n", []sseEvent{{data: []byte("\n")}}, io.EOF},
		{"unknown-field", "foo: bar\ndata: x\n\n", []sseEvent{{data: []byte("x")}}, io.EOF},
		{"blank-lines", "\n\n\ndata: x\n\n\n\n", []sseEvent{{data: []byte("x")}}, io.EOF},
		{"unterminated", "data: x\n\ndata: y\n", []sseEvent{{data: []byte("x")}}, io.ErrUnexpectedEOF},
		{"no-newline-at-all", "data: x", nil, io.ErrUnexpectedEOF},
		{"empty", "", nil, io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Whole, and one byte at a time (a CR and its LF in separate
			// reads must stay one line end).
			for _, r := range []io.Reader{strings.NewReader(tc.stream), iotest.OneByteReader(strings.NewReader(tc.stream))} {
				evs, _, err := sseAll(t, r, 1<<10)
				if !errors.Is(err, tc.end) {
					t.Errorf("ended with %v, want %v", err, tc.end)
				}
				if len(evs) != len(tc.want) {
					t.Fatalf("got %d events %+v, want %+v", len(evs), evs, tc.want)
				}
				for i := range evs {
					if evs[i].id != tc.want[i].id || evs[i].name != tc.want[i].name || string(evs[i].data) != string(tc.want[i].data) {
						t.Errorf("event %d: got %+v, want %+v", i, evs[i], tc.want[i])
					}
				}
			}
		})
	}
}

func TestSSERetry(t *testing.T) {
	_, sr, _ := sseAll(t, strings.NewReader("retry: 1500\n\nretry: x\n\nretry: -1\n\n"), 1<<10)
	if sr.retry != 1500*time.Millisecond {
		t.Errorf("retry = %v, want 1.5s (invalid values ignored)", sr.retry)
	}
	_, sr, _ = sseAll(t, strings.NewReader("retry: 99999999999999999999999\n\n"), 1<<10)
	if sr.retry != 24*time.Hour {
		t.Errorf("huge retry = %v, want it capped at a day", sr.retry)
	}
}

// The limit holds for an event's data over many lines, for one long line,
// and for a line that never ends, whatever the reads' sizes.
func TestSSELimit(t *testing.T) {
	long := strings.Repeat("x", 300)
	for name, stream := range map[string]string{
		"data-lines":   strings.Repeat("data: "+long+"\n", 5) + "\n",
		"one-line":     "data: " + strings.Repeat(long, 5) + "\n\n",
		"never-ending": "data: " + strings.Repeat(long, 50),
		"comment":      ":" + strings.Repeat(long, 50),
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := sseAll(t, iotest.HalfReader(strings.NewReader(stream)), 1000)
			if !errors.Is(err, errEventTooLarge) {
				t.Fatalf("got %v, want errEventTooLarge", err)
			}
		})
	}
	// Up to the limit passes.
	evs, _, err := sseAll(t, strings.NewReader("data: "+strings.Repeat("y", 1000)+"\n\n"), 1000)
	if err != io.EOF || len(evs) != 1 || len(evs[0].data) != 1000 {
		t.Fatalf("an event of exactly the limit: %d events, %v", len(evs), err)
	}
}

// A read error in the middle of the stream is returned as it is.
func TestSSEReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: x\n\ndata: y"), iotest.ErrReader(boom))
	evs, _, err := sseAll(t, r, 1<<10)
	if len(evs) != 1 || !errors.Is(err, boom) {
		t.Fatalf("got %d events and %v, want 1 and boom", len(evs), err)
	}
}

// FuzzSSE: no input panics the parser or makes it return more data than
// the limit, and reading in small pieces gives the same events as reading
// at once.
func FuzzSSE(f *testing.F) {
	for _, s := range []string{
		"data: {}\n\n", "id: 1\r\ndata: a\r\n\r\n", "\xEF\xBB\xBFdata:x\r\r", ": c\nretry: 10\nevent: e\ndata\n\n",
		"data: x", "id: a\x00b\n\n", strings.Repeat("data: 0123456789\n", 20) + "\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		const limit = 64
		read := func(r io.Reader) ([]sseEvent, error) {
			sr := newSSEReader(r, limit)
			var evs []sseEvent
			for {
				ev, err := sr.next()
				if err != nil {
					return evs, err
				}
				if len(ev.data) > limit {
					t.Fatalf("event of %d bytes over the limit of %d", len(ev.data), limit)
				}
				evs = append(evs, ev)
			}
		}
		a, errA := read(strings.NewReader(s))
		b, errB := read(iotest.OneByteReader(strings.NewReader(s)))
		if len(a) != len(b) || (errA == nil) != (errB == nil) || !errors.Is(errB, errA) && errA != errB {
			t.Fatalf("whole: %d events, %v; byte by byte: %d events, %v", len(a), errA, len(b), errB)
		}
		for i := range a {
			if a[i].id != b[i].id || a[i].name != b[i].name || string(a[i].data) != string(b[i].data) {
				t.Fatalf("event %d differs: %+v vs %+v", i, a[i], b[i])
			}
		}
	})
}

// The read buffer starts small and grows while reads fill it: events of
// every size, lines across every boundary, come out the same whichever way
// the stream is cut, and a long stream ends with the largest buffer.
func TestSSEBufferGrows(t *testing.T) {
	var in strings.Builder
	var want []string
	for i, n := range []int{10, minSSEBuf - 20, minSSEBuf + 3, 3 * minSSEBuf, 1, maxSSEBuf + 100, 7} {
		d := strings.Repeat(string(rune('a'+i)), n)
		want = append(want, d)
		fmt.Fprintf(&in, "id: %d\r\ndata: %s\r\n\r\n", i, d)
	}
	for _, tc := range []struct {
		name string
		r    func() io.Reader
	}{
		{"whole", func() io.Reader { return strings.NewReader(in.String()) }},
		{"bytes", func() io.Reader { return iotest.OneByteReader(strings.NewReader(in.String())) }},
		{"halves", func() io.Reader { return iotest.HalfReader(strings.NewReader(in.String())) }},
	} {
		sr := newSSEReader(tc.r(), 1<<20)
		if len(sr.buf) != minSSEBuf {
			t.Fatalf("%s: a new reader's buffer holds %d bytes, want %d", tc.name, len(sr.buf), minSSEBuf)
		}
		for i, w := range want {
			ev, err := sr.next()
			if err != nil || string(ev.data) != w || ev.id != strconv.Itoa(i) {
				t.Fatalf("%s: event %d: id %q, %d bytes, %v; want id %d, %d bytes", tc.name, i, ev.id, len(ev.data), err, i, len(w))
			}
		}
		if _, err := sr.next(); err != io.EOF {
			t.Fatalf("%s: after the last event: %v, want io.EOF", tc.name, err)
		}
		if tc.name == "whole" && len(sr.buf) != maxSSEBuf {
			t.Errorf("whole: the buffer ended at %d bytes, want %d", len(sr.buf), maxSSEBuf)
		}
		if tc.name == "bytes" && len(sr.buf) != minSSEBuf {
			t.Errorf("bytes: the buffer grew to %d bytes on one-byte reads", len(sr.buf))
		}
	}
}
