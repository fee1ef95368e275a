package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// scanAll reports whether b is exactly one valid JSON value by the
// scanner.
func scanAll(b []byte) bool {
	i := SkipWS(b, 0)
	end, err := ScanValue(b, i, 0)
	return err == nil && SkipWS(b, end) == len(b)
}

var scanSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `-1.0E-2`, `true`, `false`, `null`,
	`{"a":[1,2,{"b":"c\u00e9\n"}],"d":null}`, ` {"a" : 1 } `,
	`01`, `1.`, `.5`, `-`, `1e`, `+1`, `"\x"`, `"\u12"`, "\"a\x01\"", `{"a":1,}`, `[1,]`, `[1 2]`,
	`{"a" 1}`, `{1:2}`, `tru`, `nul`, `"unterminated`, `{"a":1}}`, `[[[[`, `]`, ``, ` `,
	"\"\xff\xfe\"", `"\/\b\f\n\r\t\"\\"`,
}

func TestScanMatchesEncodingJSON(t *testing.T) {
	for _, s := range scanSeeds {
		if got, want := scanAll([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("scan(%q) = %v, json.Valid = %v", s, got, want)
		}
	}
}

// FuzzScanMatchesEncodingJSON checks the scanner against encoding/json:
// both must accept exactly the same inputs.
func FuzzScanMatchesEncodingJSON(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := scanAll(b), json.Valid(b); got != want {
			t.Fatalf("scan(%q) = %v, json.Valid = %v", b, got, want)
		}
	})
}

// FuzzSplitArray checks SplitArray against encoding/json on valid JSON:
// the same elements, byte for byte, and an array (or null) exactly when
// json sees one. On invalid JSON, which it never gets, it must not panic.
func FuzzSplitArray(f *testing.F) {
	for _, s := range []string{
		`[]`, ` [ ] `, `null`, `[1]`, `[1,2,3]`, `[ {"a":"]"} , [1,[2]] ,"x\"]" , null ,true]`,
		`[{"name":"t","inputSchema":{"type":"object"}},{"name":"u"}]`, `{}`, `"[1]"`, `1`,
		`[1,]`, `[,1]`, `[`, `["\\"]`, `[1] x`, "[\"\u00e9\",\n\t1\r]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := SplitArray(data)
		if !json.Valid(data) {
			return
		}
		var want []json.RawMessage
		isArray := json.Unmarshal(data, &want) == nil
		if ok != isArray {
			t.Fatalf("SplitArray(%q) ok=%v, json says array=%v", data, ok, isArray)
		}
		if !ok {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("SplitArray(%q): %d elements, json %d", data, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) || cap(got[i]) != len(got[i]) {
				t.Fatalf("SplitArray(%q)[%d] = %q (cap %d), json %q", data, i, got[i], cap(got[i]), want[i])
			}
		}
	})
}
