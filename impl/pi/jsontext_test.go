package pi

import (
	"strings"

	"pgregory.net/rapid"
)

// jsonText draws a JSON text with nested containers, repeated and
// integer-like keys, escapes (quotes and backslashes among them) and
// whitespace; containers counts the non-empty containers it wrote.
func jsonText(t *rapid.T, depth int, containers *int) string {
	ws := func() string { return rapid.SampledFrom([]string{"", "", " ", "\n\t "}).Draw(t, "ws") }
	str := func() string {
		return `"` + rapid.StringMatching(`([a-c0-9 :,{}\[\]]|\\"|\\\\|\\n|\\u00e9|é){0,6}`).Draw(t, "str") + `"`
	}
	kind := rapid.IntRange(0, 5).Draw(t, "kind")
	if depth > 5 {
		kind = rapid.IntRange(0, 2).Draw(t, "leaf")
	}
	switch kind {
	case 0:
		return rapid.SampledFrom([]string{"0", "-1.5e3", "true", "false", "null", "12"}).Draw(t, "lit")
	case 1, 2:
		return str()
	case 3:
		n := rapid.IntRange(0, 10).Draw(t, "n")
		if n > 0 {
			*containers++
		}
		parts := make([]string, n)
		for i := range parts {
			parts[i] = ws() + jsonText(t, depth+1, containers) + ws()
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		n := rapid.IntRange(0, 18).Draw(t, "n")
		*containers++
		parts := make([]string, n)
		for i := range parts {
			key := rapid.SampledFrom([]string{`"a"`, `"b"`, `"0"`, `"7"`, `"k\"q"`, `"type"`}).Draw(t, "key")
			if rapid.Bool().Draw(t, "fresh") {
				key = str()
			}
			parts[i] = ws() + key + ws() + ":" + ws() + jsonText(t, depth+1, containers) + ws()
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
}
