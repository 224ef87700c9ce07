package store

import (
	"encoding/json"
	"testing"
)

// compactJSON validates with json.Compact alone: it must reject exactly
// what json.Valid rejects, and keep the error message writes report.
func TestCompactJSONRejectsWhatValidRejects(t *testing.T) {
	for _, in := range []string{``, ` `, `{}`, `{"a": 1}`, `1 2`, `{"a":1}x`, `[1,]`, `"\u00"`, "\"a\tb\"", `nul`,
		` [ 1 , 2 ] `, "{\"a\":\"\xff\"}", "\x00", `1e`, `-`, `{"a" 1}`, `{"a":1`, `"x`} {
		got, err := compactJSON([]byte(in))
		if (err == nil) != json.Valid([]byte(in)) {
			t.Errorf("%q: compactJSON error %v, json.Valid %v", in, err, json.Valid([]byte(in)))
		}
		if err != nil && err.Error() != "not valid JSON" {
			t.Errorf("%q: error %q", in, err)
		}
		if err == nil && !json.Valid(got) {
			t.Errorf("%q: compacted to invalid %q", in, got)
		}
	}
}

// BenchmarkCompactJSON compacts one transcript entry.
func BenchmarkCompactJSON(b *testing.B) {
	raw := []byte(`{"type":"message","id":"e7","parentId":"e6","message":{"role":"assistant","content":[{"type":"text","text":"hello there, a longer text of some bytes"}],"usage":{"input":12,"output":34}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := compactJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}
