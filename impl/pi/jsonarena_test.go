package pi

import (
	"strings"
	"testing"

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

// containersOf lists v's objects and non-empty arrays, depth first.
func containersOf(v JSONValue, out []JSONValue) []JSONValue {
	switch v.Kind() {
	case Object:
		out = append(out, v)
		for _, k := range v.obj.Keys() {
			x, _ := v.obj.Get(k)
			out = containersOf(x, out)
		}
	case Array:
		if len(v.arr()) > 0 {
			out = append(out, v)
		}
		for _, x := range v.arr() {
			out = containersOf(x, out)
		}
	}
	return out
}

// TestArenaParseMatchesGeneralParse: ParseJSON with its arena parses every
// text as the general path (parseJSON without an arena) does: the same
// value, the same JSON, the same error; and a Set or an append on one of
// its containers changes that container only, as on the general path's.
func TestArenaParseMatchesGeneralParse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var containers int
		text := jsonText(t, 0, &containers)
		if rapid.Bool().Draw(t, "break") && len(text) > 0 {
			// an invalid text too: cut it, or replace a byte
			i := rapid.IntRange(0, len(text)-1).Draw(t, "at")
			if rapid.Bool().Draw(t, "cut") {
				text = text[:i]
			} else {
				text = text[:i] + rapid.SampledFrom([]string{`"`, `\`, `]`, `}`, `,`, `:`, `[`, `{`}).Draw(t, "byte") + text[i+1:]
			}
		}
		got, gotErr := parseJSON(text, true)
		want, wantErr := parseJSON(text, false)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("%s: arena error %v, general error %v", text, gotErr, wantErr)
		}
		if gotErr != nil {
			return
		}
		if !got.Equal(want) || got.String() != want.String() {
			t.Fatalf("%s: arena %s, general %s", text, got, want)
		}
		if containers >= arenaFrom {
			p := getParser(text)
			p.makeArena()
			used := len(p.arena.objs) >= containers
			p.release()
			if !used {
				t.Fatalf("%s: %d containers and no arena for them", text, containers)
			}
		}
		gc, wc := containersOf(got, nil), containersOf(want, nil)
		if len(gc) == 0 {
			return
		}
		i := rapid.IntRange(0, len(gc)-1).Draw(t, "container")
		for _, v := range []JSONValue{gc[i], wc[i]} {
			if v.Kind() == Object {
				v.obj.Set("added", NumberValue(1))
				if len(v.obj.keys) > 0 {
					v.obj.Set(v.obj.keys[0], StringValue("reset"))
				}
			} else {
				_ = append(v.obj.vals, StringValue("appended"))
				v.obj.vals[0] = StringValue("reset")
			}
		}
		if got.String() != want.String() {
			t.Fatalf("%s: after changing container %d: arena %s, general %s", text, i, got, want)
		}
	})
}
