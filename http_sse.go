package mcplive

import (
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/mcplive/mcplive/internal/printf"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	// id is the stream's last event ID once this event was dispatched (the
	// value to resume from), which an event may leave unchanged.
	id string
	// name is the event type; "" means "message".
	name string
	// data is the event's data, nil for an event without data (such as
	// the priming event a Streamable HTTP server sends with an id only).
	data []byte
}

// sseReader parses a text/event-stream as the WHATWG HTML standard's
// "event stream interpretation" says (lines end in CRLF, LF or CR; a
// leading BOM is skipped; comments start with a colon; an event ends at an
// empty line), with one addition browsers lack: a limit on the size of one
// event, so that a server cannot make the client buffer without end (a
// line that never ends counts too).
type sseReader struct {
	r     io.Reader
	limit int // bytes of one event's data, and of one line

	buf        []byte // grows from minSSEBuf to maxSSEBuf while reads fill it
	start, end int
	full       bool  // the last read filled buf: the next one gets a larger buf
	rerr       error // the error that ended r, once it did
	skipLF     bool  // the last line ended in CR: a following LF is part of it
	started    bool  // the first line has been read (the BOM check is done)
	line       []byte

	// Parser state.
	idBuf  string        // the last event ID buffer
	lastID string        // the last event ID, as of the last dispatch
	retry  time.Duration // the reconnection time a retry field set; 0 if none
	name   string
	data   []byte
	hasAny bool // the current event has had a field
}

func newSSEReader(r io.Reader, limit int64) *sseReader {
	l := int(min(limit, int64(int(^uint(0)>>1)-64)))
	return &sseReader{r: r, limit: l, buf: make([]byte, minSSEBuf)}
}

// next returns the next event. It returns io.EOF at a clean end of the
// stream, io.ErrUnexpectedEOF when it ended inside an event (an event is
// complete only with the empty line after it), errEventTooLarge past the
// limit, or the error of the underlying reader.
func (s *sseReader) next() (sseEvent, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && (s.hasAny || len(s.line) > 0) {
				err = io.ErrUnexpectedEOF
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if !s.hasAny {
				continue
			}
			ev := sseEvent{name: s.name}
			s.lastID = s.idBuf
			ev.id = s.lastID
			if len(s.data) > 0 {
				// The data buffer ends in the LF of its last line.
				ev.data = bytes.Clone(s.data[:len(s.data)-1])
			}
			s.name, s.data, s.hasAny = "", s.data[:0], false
			return ev, nil
		}
		if line[0] == ':' {
			continue // a comment, such as a keep-alive
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "event":
			s.name = string(value)
			s.hasAny = true
		case "data":
			if len(s.data)+len(value) > s.limit {
				return sseEvent{}, errEventTooLarge
			}
			s.data = append(s.data, value...)
			s.data = append(s.data, '\n')
			s.hasAny = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.idBuf = string(value)
			}
			s.hasAny = true
		case "retry":
			if ms, ok := parseDigits(value); ok {
				s.retry = time.Duration(ms) * time.Millisecond
			}
		}
		// Other fields are ignored, as the standard says.
	}
}

// broken reports a stream that ended with an error of its reader (a
// connection that broke), not at a clean end.
func (s *sseReader) broken() bool {
	return s.rerr != nil && s.rerr != io.EOF
}

// parseDigits parses a retry field: ASCII digits only, capped at a day.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < 86_400_000 {
			n = n*10 + int64(c-'0')
		}
	}
	return min(n, 86_400_000), true
}

// readLine returns the next line without its end. The line is valid until
// the next call.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		if s.start == s.end {
			if s.rerr != nil {
				return nil, s.rerr
			}
			if s.full && len(s.buf) < maxSSEBuf {
				s.buf = make([]byte, 2*len(s.buf))
			}
			n, err := s.r.Read(s.buf)
			s.start, s.end, s.full = 0, n, n == len(s.buf)
			if err != nil {
				s.rerr = err
			}
			if n == 0 && err == nil {
				continue
			}
			continue
		}
		chunk := s.buf[s.start:s.end]
		if s.skipLF {
			s.skipLF = false
			if chunk[0] == '\n' {
				s.start++
				continue
			}
		}
		i := bytes.IndexAny(chunk, "\r\n")
		if i < 0 {
			s.line = append(s.line, chunk...)
			s.start = s.end
			if len(s.line) > s.limit+64 { // room for the field name
				return nil, errEventTooLarge
			}
			continue
		}
		s.line = append(s.line, chunk[:i]...)
		s.skipLF = chunk[i] == '\r'
		s.start += i + 1
		if len(s.line) > s.limit+64 {
			return nil, errEventTooLarge
		}
		if !s.started {
			s.started = true
			s.line = bytes.TrimPrefix(s.line, []byte("\xEF\xBB\xBF"))
		}
		return s.line, nil
	}
}

// describeSSEError turns an error of next into words for an error message.
func describeSSEError(err error, limit int64) string {
	switch {
	case errors.Is(err, errEventTooLarge):
		return printf.Sprintf("an event (or a line of one) is larger than the read limit of %d bytes", limit)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the stream ended inside an event (an event ends with an empty line)"
	}
	return err.Error()
}
