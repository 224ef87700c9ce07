package jsonl

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

func r2ws(t *rapid.T) string {
	if rapid.IntRange(0, 9).Draw(t, "ws?") == 0 {
		return rapid.SampledFrom([]string{" ", "\t", "\r", "\n", "  "}).Draw(t, "ws")
	}
	return ""
}

func r2value(t *rapid.T, depth int) string {
	k := rapid.IntRange(0, 7).Draw(t, "vk")
	if depth > 3 && k >= 5 {
		k = 0
	}
	switch k {
	case 0:
		return rapid.SampledFrom([]string{`"` + strings.Repeat("x", 40) + `"`, `"` + strings.Repeat("y", 30) + `"`, `"s"`, `"\ud800` + strings.Repeat("q", 30) + `"`}).Draw(t, "str")
	case 1:
		return rapid.SampledFrom([]string{"0", "-1", "1.5e3", "12", "true", "false", "null"}).Draw(t, "scalar")
	case 2:
		return "[]"
	case 3:
		return "{}"
	case 4:
		return `"` + strings.Repeat("z", 31) + `"`
	case 5, 6:
		n := rapid.IntRange(1, 3).Draw(t, "n")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = r2ws(t) + r2value(t, depth+1) + r2ws(t)
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		return r2object(t, depth+1)
	}
}

func r2object(t *rapid.T, depth int) string {
	n := rapid.IntRange(1, 3).Draw(t, "m")
	parts := make([]string, n)
	for i := range parts {
		key := rapid.SampledFrom([]string{`"a"`, `"b"`, `"content"`}).Draw(t, "key")
		parts[i] = r2ws(t) + key + r2ws(t) + ":" + r2ws(t) + r2value(t, depth) + r2ws(t)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// memo: a run of object values through one memo scanner agrees with a
// whole scan of each (and with encoding/json on valid UTF-8, no lines mode).
func TestMemoRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var memo scanner
		base := r2object(t, 0)
		for range rapid.IntRange(1, 6).Draw(t, "values") {
			v := []byte(base)
			if rapid.Bool().Draw(t, "fresh") {
				v = []byte(r2object(t, 0))
			}
			// cut, or mutate a byte
			switch rapid.IntRange(0, 3).Draw(t, "how") {
			case 0:
				v = v[:rapid.IntRange(1, len(v)).Draw(t, "cut")]
			case 1:
				i := rapid.IntRange(1, len(v)-1).Draw(t, "at")
				v = append(v[:i:i], append([]byte{rapid.SampledFrom([]byte("]}[{,:\" \n0\xff\x01")).Draw(t, "b")}, v[i:]...)...)
			}
			lines := rapid.Bool().Draw(t, "lines")
			we, wok, err := scanAgrees(&memo, v, lines)
			if err != nil {
				t.Fatal(err)
			}
			if !lines && utf8.Valid(v) {
				jok := json.Valid(v)
				whole := scanner{noMemo: true}
				whole.reset(v)
				if full := wok && whole.space(we) == len(v); full != jok {
					t.Fatalf("%q: scan %v (end %d), encoding/json %v", v, wok, we, jok)
				}
			}
		}
	})
}
