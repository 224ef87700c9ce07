package store

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// jsonText draws JSON text: objects (keys with escapes, non-ASCII bytes and
// repeats), arrays, strings with escaped quotes and brackets, numbers and
// literals, with space between tokens.
func jsonText(t *rapid.T, depth int) string {
	sp := rapid.SampledFrom([]string{"", " ", "\n\t "}).Draw(t, "space")
	str := rapid.SampledFrom([]string{`"a"`, `"id"`, `"b\"}"`, `"\\"`, `"\u00e9"`, `"é"`, `"\ud800"`, `"x,y:]"`, `""`, `"a\/b"`, "\"\xff\""}).Draw(t, "string")
	kinds := 4
	if depth > 0 {
		kinds = 6
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return str
	case 1:
		return rapid.SampledFrom([]string{"0", "-1.5e+3", "12", "true", "false", "null"}).Draw(t, "literal")
	case 2, 3:
		return sp + str + sp
	case 4:
		n := rapid.IntRange(0, 4).Draw(t, "members")
		parts := make([]string, n)
		for i := range parts {
			key := rapid.SampledFrom([]string{`"a"`, `"id"`, `"parentId"`, `"\u0061"`, `"é"`, `"k\"q"`, `"0"`, "\"\xfe\""}).Draw(t, "key")
			parts[i] = sp + key + sp + ":" + sp + jsonText(t, depth-1) + sp
		}
		return "{" + strings.Join(parts, ",") + "}"
	default:
		n := rapid.IntRange(0, 3).Draw(t, "elements")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = sp + jsonText(t, depth-1) + sp
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
}

// splitCompactObject splits compactJSON's output exactly as ParseObject
// does: the same keys (unquoted as encoding/json does), the same value
// bytes, the same errors (not an object, duplicate key).
func TestSplitCompactObjectIsParseObject(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		raw := jsonText(t, 3)
		if rapid.Bool().Draw(t, "object") {
			raw = "{" + `"id":` + raw + "," + `"v":` + jsonText(t, 3) + "}"
		}
		if rapid.IntRange(0, 3).Draw(t, "wide") == 0 {
			// More members than KeySet compares one by one
			// (PairwiseKeys), a repeat among them now and then.
			var b strings.Builder
			b.WriteString(`{"id":0`)
			for n := rapid.IntRange(PairwiseKeys-2, PairwiseKeys+8).Draw(t, "width"); n > 0; n-- {
				b.WriteString(`,"f` + strconv.Itoa(rapid.IntRange(0, 60).Draw(t, "field")) + `":` + jsonText(t, 1))
			}
			raw = b.String() + "}"
		}
		compact, err := compactJSON([]byte(raw))
		if err != nil {
			return
		}
		want, werr := ParseObject(compact)
		got, gerr := splitCompactObject(compact)
		if werr != nil || gerr != nil {
			require.Equal(t, werr != nil, gerr != nil, "errors: ParseObject %v, split %v", werr, gerr)
			require.Equal(t, werr.Error(), gerr.Error())
			return
		}
		require.Equal(t, len(want), len(got), "members of %s", compact)
		for i := range want {
			require.Equal(t, want[i].Key, got[i].Key)
			require.Equal(t, string(want[i].Value), string(got[i].Value))
		}
	})
}

// Past PairwiseKeys members a repeated key is still found, whether it
// repeats a key from before the set was built or after, and distinct keys
// are kept in order.
func TestSplitCompactObjectWide(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id":0`)
	for i := range 3 * PairwiseKeys {
		b.WriteString(`,"f` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
	}
	distinct := b.String() + "}"
	fields, err := splitCompactObject([]byte(distinct))
	require.NoError(t, err)
	require.Len(t, fields, 3*PairwiseKeys+1)
	require.Equal(t, "f47", fields[48].Key)
	for _, repeat := range []string{"id", "f3", "f40"} {
		_, err := splitCompactObject([]byte(b.String() + `,"` + repeat + `":1}`))
		require.EqualError(t, err, `duplicate key "`+repeat+`"`)
	}
}

// BenchmarkSplitCompactObject splits an entry row of eight members, the
// usual size, and objects of 1,000 and 10,000, which cost linear time.
func BenchmarkSplitCompactObject(b *testing.B) {
	row := `{"type":"message","id":"e1","parentId":"e0","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"},"a":1,"b":[2]}`
	for _, n := range []int{0, 1000, 10000} {
		var o strings.Builder
		o.WriteString(row[:len(row)-1])
		for i := range n {
			o.WriteString(`,"k` + strconv.Itoa(i) + `":0`)
		}
		obj := []byte(o.String() + "}")
		b.Run(strconv.Itoa(8+n), func(b *testing.B) {
			for b.Loop() {
				if _, err := splitCompactObject(obj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
