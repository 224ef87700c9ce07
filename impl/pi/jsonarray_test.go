package pi

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestParsedArrayMatchesArrayValue checks newArrayOf's holders against the
// general form, ArrayValue of a clone: the same elements, equal values, the
// same JSON, and elements capped at their count, so that an append to a
// parsed array's elements never writes into the array.
func TestParsedArrayMatchesArrayValue(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 20).Draw(t, "n")
		elems := make([]JSONValue, n)
		parts := make([]string, n)
		for i := range elems {
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				f := float64(rapid.IntRange(-1000, 1000).Draw(t, "num"))
				elems[i], parts[i] = NumberValue(f), strconv.FormatFloat(f, 'f', -1, 64)
			case 1:
				s := rapid.StringMatching(`[a-z]{0,6}`).Draw(t, "str")
				elems[i], parts[i] = StringValue(s), `"`+s+`"`
			case 2:
				elems[i], parts[i] = ArrayValue([]JSONValue{NullValue()}), `[null]`
			default:
				elems[i], parts[i] = BoolValue(true), `true`
			}
		}
		in := "[" + strings.Join(parts, ",") + "]"
		got, err := ParseJSON(in)
		if err != nil {
			t.Fatalf("ParseJSON(%s): %v", in, err)
		}
		want := ArrayValue(slices.Clone(elems))
		if !got.Equal(want) || got.String() != want.String() || got.String() != in {
			t.Fatalf("ParseJSON(%s) = %s, want %s", in, got, want)
		}
		a := got.Array()
		if len(a) != n || cap(a) != n {
			t.Fatalf("ParseJSON(%s): %d elements, capacity %d, want %d", in, len(a), cap(a), n)
		}
		_ = append(a, StringValue("extra"))
		if got.String() != in {
			t.Fatalf("an append to the elements changed the array: %s", got)
		}
	})
}
