package main

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// maxGap is the largest run of zero bytes between two data segments that
// merging fills in: a segment's header (flag, i32.const offset, end, size)
// costs up to 10 bytes, so a gap of a few dozen zeros costs about the same
// as a header raw and less once compressed; larger gaps stay split.
const maxGap = 64

// Section ids of the WebAssembly binary format (core spec 5.5.2).
const (
	secCustom    = 0
	secData      = 11
	secDataCount = 12
)

// segment is one data segment of the data section.
type segment struct {
	index  int    // its index in the module's data section
	flag   uint32 // 0 active memory 0, 1 passive, 2 active with a memory index
	mem    uint32 // memory index (active)
	offset int64  // i32.const offset (active, constOff)
	// constOff is whether the offset expression is a lone i32.const.
	constOff bool
	expr     []byte // the offset expression as read, with its end (active)
	data     []byte
}

// mergeable is whether s may be merged with its neighbours: an active
// segment of memory 0 at a constant offset.
func (s *segment) mergeable() bool { return s.flag != 1 && s.mem == 0 && s.constOff }

// stats is what merge did, for its report.
type stats struct {
	Before, After int // data segments
	ZeroBytes     int // zero bytes added in gaps
}

// merge returns the module wasm with its active data segments of memory 0
// merged where they lie less than maxGap bytes apart, the gaps between
// them filled with zeros.
//
// The program is unchanged: linear memory starts zeroed, and merge refuses
// (with an error) a module in which two active segments of memory 0
// overlap or one has an offset that is not a constant, so no segment
// writes into a gap it fills. Segment indices that code can name
// (memory.init, data.drop: the module then has a DataCount section) are
// kept: every segment up to the last passive one keeps its index, only the
// active segments after it are merged, and the DataCount section's count
// follows the new number of segments. A name section's data-segment names
// (subsection 9) would name the wrong segments: merge refuses them.
func merge(wasm []byte) ([]byte, stats, error) {
	var st stats
	r := &reader{b: wasm}
	if !bytes.HasPrefix(wasm, []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, st, errors.New("not a WebAssembly module (version 1): bad magic or version")
	}
	r.pos = 8
	type section struct {
		id         byte
		start, end int // the whole section, id included
		body       []byte
	}
	var secs []section
	dataAt, countAt := -1, -1
	for r.pos < len(r.b) {
		start := r.pos
		id := r.byte()
		size := r.u32()
		body := r.bytes(int(size))
		if r.err != nil {
			return nil, st, fmt.Errorf("section at byte %d: %w", start, r.err)
		}
		switch id {
		case secData:
			if dataAt >= 0 {
				return nil, st, errors.New("two data sections")
			}
			dataAt = len(secs)
		case secDataCount:
			if countAt >= 0 {
				return nil, st, errors.New("two DataCount sections")
			}
			countAt = len(secs)
		case secCustom:
			if err := checkCustom(body); err != nil {
				return nil, st, err
			}
		}
		secs = append(secs, section{id, start, r.pos, body})
	}
	if dataAt < 0 {
		if countAt >= 0 {
			return nil, st, errors.New("a DataCount section without a data section")
		}
		return wasm, st, nil
	}
	segs, err := readSegments(secs[dataAt].body)
	if err != nil {
		return nil, st, fmt.Errorf("data section: %w", err)
	}
	st.Before = len(segs)
	if countAt >= 0 {
		cr := &reader{b: secs[countAt].body}
		n := cr.u32()
		if cr.err != nil || cr.pos != len(cr.b) {
			return nil, st, errors.New("malformed DataCount section")
		}
		if int(n) != len(segs) {
			return nil, st, fmt.Errorf("DataCount section says %d segments, the data section has %d", n, len(segs))
		}
	}
	merged, zeros, err := mergeSegments(segs)
	if err != nil {
		return nil, st, err
	}
	st.After, st.ZeroBytes = len(merged), zeros

	var out bytes.Buffer
	out.Write(wasm[:8])
	for i, s := range secs {
		switch i {
		case dataAt:
			writeSection(&out, secData, encodeSegments(merged))
		case countAt:
			writeSection(&out, secDataCount, appendU32(nil, uint32(len(merged))))
		default:
			out.Write(wasm[s.start:s.end])
		}
	}
	return out.Bytes(), st, nil
}

// checkCustom refuses a name section with data-segment names, which merge
// would leave naming the wrong segments.
func checkCustom(body []byte) error {
	r := &reader{b: body}
	name := r.name()
	if r.err != nil {
		return fmt.Errorf("custom section: %w", r.err)
	}
	if name != "name" {
		return nil
	}
	for r.pos < len(r.b) {
		id := r.byte()
		size := r.u32()
		r.bytes(int(size))
		if r.err != nil {
			return fmt.Errorf("name section: %w", r.err)
		}
		if id == 9 {
			return errors.New("the name section names data segments (subsection 9): merging would leave them naming the wrong segments")
		}
	}
	return nil
}

// readSegments parses a data section's body.
func readSegments(body []byte) ([]segment, error) {
	r := &reader{b: body}
	n := r.u32()
	if r.err != nil {
		return nil, r.err
	}
	// Each segment takes at least 2 bytes: a bound before allocating.
	if int(n) > len(body)/2 {
		return nil, fmt.Errorf("%d segments cannot fit in %d bytes", n, len(body))
	}
	segs := make([]segment, 0, n)
	for i := 0; i < int(n); i++ {
		s := segment{index: i, flag: r.u32()}
		switch s.flag {
		case 0, 2:
			if s.flag == 2 {
				s.mem = r.u32()
			}
			s.expr, s.offset, s.constOff = r.constExpr()
		case 1:
		default:
			if r.err == nil {
				return nil, fmt.Errorf("segment %d: unknown flag %d", i, s.flag)
			}
		}
		size := r.u32()
		s.data = r.bytes(int(size))
		if r.err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, r.err)
		}
		segs = append(segs, s)
	}
	if r.pos != len(body) {
		return nil, fmt.Errorf("%d bytes after the last segment", len(body)-r.pos)
	}
	return segs, nil
}

// mergeSegments returns segs with the mergeable segments after the last
// passive one merged where less than maxGap bytes apart, and the count of
// zero bytes it added.
func mergeSegments(segs []segment) ([]segment, int, error) {
	// Every active segment of memory 0, in address order, to find
	// overlaps and what lies in each gap.
	var mem0 []*segment
	lastPassive := -1
	for i := range segs {
		s := &segs[i]
		switch {
		case s.flag == 1:
			lastPassive = i
		case s.mem != 0:
		case !s.constOff:
			return nil, 0, fmt.Errorf("segment %d of memory 0 has an offset that is not an i32.const: where it writes is unknown, so no gap can be filled", i)
		case s.offset < 0 || s.offset+int64(len(s.data)) > 1<<32:
			return nil, 0, fmt.Errorf("segment %d lies outside a 32-bit memory (offset %d, %d bytes)", i, s.offset, len(s.data))
		case len(s.data) == 0:
			// Writes nothing: kept as it is (below), in no run.
		default:
			mem0 = append(mem0, s)
		}
	}
	slices.SortStableFunc(mem0, func(a, b *segment) int {
		switch {
		case a.offset < b.offset:
			return -1
		case a.offset > b.offset:
			return 1
		}
		return 0
	})
	for i := 1; i < len(mem0); i++ {
		a, b := mem0[i-1], mem0[i]
		if end := a.offset + int64(len(a.data)); end > b.offset {
			return nil, 0, fmt.Errorf("segments %d and %d overlap (bytes %d to %d and %d to %d): the later one overwrites the earlier, refusing to merge", a.index, b.index, a.offset, end, b.offset, b.offset+int64(len(b.data)))
		}
	}
	out := slices.Clone(segs[:lastPassive+1])
	// The others after the last passive one, in their order: segments of
	// other memories, and (below) the merged ones of memory 0.
	for _, s := range segs[lastPassive+1:] {
		if !s.mergeable() || len(s.data) == 0 {
			out = append(out, s)
		}
	}
	zeros := 0
	var run *segment // the merged segment being built, a copy
	flush := func() {
		if run != nil {
			out = append(out, *run)
			run = nil
		}
	}
	for _, s := range mem0 {
		if s.index <= lastPassive {
			flush() // a fixed segment in between: the run ends here
			continue
		}
		if run != nil {
			gap := s.offset - (run.offset + int64(len(run.data)))
			if gap < maxGap {
				run.data = append(run.data, make([]byte, gap)...)
				run.data = append(run.data, s.data...)
				zeros += int(gap)
				continue
			}
			flush()
		}
		run = &segment{flag: 0, offset: s.offset, constOff: true, data: slices.Clip(slices.Clone(s.data))}
		run.expr = appendConstExpr(nil, int32(uint32(s.offset)))
	}
	flush()
	return out, zeros, nil
}

// encodeSegments writes a data section's body.
func encodeSegments(segs []segment) []byte {
	b := appendU32(nil, uint32(len(segs)))
	for _, s := range segs {
		b = appendU32(b, s.flag)
		switch s.flag {
		case 0:
			b = append(b, s.expr...)
		case 2:
			b = appendU32(b, s.mem)
			b = append(b, s.expr...)
		}
		b = appendU32(b, uint32(len(s.data)))
		b = append(b, s.data...)
	}
	return b
}

func writeSection(out *bytes.Buffer, id byte, body []byte) {
	out.WriteByte(id)
	out.Write(appendU32(nil, uint32(len(body))))
	out.Write(body)
}

func appendConstExpr(b []byte, v int32) []byte {
	b = append(b, 0x41) // i32.const
	b = appendS32(b, v)
	return append(b, 0x0b) // end
}

func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// reader reads the binary format; its first error sticks, later reads
// return zeros, so a caller checks err once after a group of reads.
type reader struct {
	b   []byte
	pos int
	err error
}

var errEOF = errors.New("unexpected end of input")

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) byte() byte {
	if r.err != nil || r.pos >= len(r.b) {
		r.fail(errEOF)
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.pos {
		r.fail(errEOF)
		return nil
	}
	b := r.b[r.pos : r.pos+n]
	r.pos += n
	return b
}

func (r *reader) u32() uint32 {
	var v uint32
	for shift := 0; ; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if shift == 28 && c > 0x0f {
			r.fail(errors.New("malformed LEB128 u32"))
			return 0
		}
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
}

func (r *reader) s32() int32 {
	var v int32
	for shift := 0; ; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if shift == 28 && c&0x80 != 0 {
			r.fail(errors.New("malformed LEB128 s32"))
			return 0
		}
		v |= int32(c&0x7f) << shift
		if c&0x80 == 0 {
			if shift < 25 && c&0x40 != 0 {
				v |= -1 << (shift + 7)
			}
			return v
		}
	}
}

func (r *reader) name() string {
	n := r.u32()
	return string(r.bytes(int(n)))
}

// constExpr reads an offset expression: a lone i32.const (its offset,
// unsigned: an address, and true), or a lone global.get or i64.const
// (false). Other forms (extended constant expressions) are refused.
func (r *reader) constExpr() ([]byte, int64, bool) {
	start := r.pos
	var v int64
	isConst := false
	switch op := r.byte(); op {
	case 0x41: // i32.const
		v, isConst = int64(uint32(r.s32())), true
	case 0x42: // i64.const (memory64)
		r.s64()
	case 0x23: // global.get
		r.u32()
	default:
		r.fail(fmt.Errorf("offset expression with opcode 0x%02x: only i32.const, i64.const and global.get are supported", op))
	}
	if r.byte() != 0x0b {
		r.fail(errors.New("offset expression of more than one instruction"))
	}
	if r.err != nil {
		return nil, 0, false
	}
	return r.b[start:r.pos], v, isConst
}

func (r *reader) s64() {
	for i := 0; i < 10; i++ {
		if r.byte()&0x80 == 0 || r.err != nil {
			return
		}
	}
	r.fail(errors.New("malformed LEB128 s64"))
}
