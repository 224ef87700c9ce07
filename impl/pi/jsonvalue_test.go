package pi

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func mustParse(t *testing.T, s string) JSONValue {
	t.Helper()
	v, err := ParseJSON(s)
	require.NoError(t, err, s)
	return v
}

func TestParseRoundTripsLikeJSParseStringify(t *testing.T) {
	cases := map[string]string{
		`{"b":1,"a":2,"10":3,"2":4,"01":5,"-1":6,"4294967294":7,"4294967295":8}`: `{"2":4,"10":3,"4294967294":7,"b":1,"a":2,"01":5,"-1":6,"4294967295":8}`,
		`{"a":1,"b":2,"a":3}`:                   `{"a":3,"b":2}`,
		` [1 , 2.50 ,-0, 1E2, 1e400, -1e400 ] `: `[1,2.5,0,100,null,null]`,
		`"\ud83d\ude00"`:                        `"` + grin + `"`,
		`"\ud83d"`:                              `"\ud83d"`,
		`"\ude00\ud83d"`:                        `"\ude00\ud83d"`,
		`"\u0041\/\u00e9"`:                      `"A/é"`,
		`{"__proto__":{"x":1}}`:                 `{"__proto__":{"x":1}}`,
		`[[],{},null,true,false,""]`:            `[[],{},null,true,false,""]`,
		`12345678901234567890123`:               `1.2345678901234568e+22`,
	}
	for in, want := range cases {
		require.Equal(t, want, mustParse(t, in).String(), in)
	}
	// A raw lone high surrogate followed by an escaped low one is one character.
	require.Equal(t, `"`+grin+`"`, mustParse(t, "\""+hiD83D+`\ude00"`).String())
}

func TestParseRejectsWhatJSONParseRejects(t *testing.T) {
	for _, in := range []string{
		``, ` `, `{`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `+1`, `-`, `1e`, `0x1`, `NaN`, `Infinity`,
		`'a'`, `"a`, "\"\x01\"", `"\x"`, `"\u12"`, `"\u12G4"`, `nul`, `truex`, `{a:1}`, "\v1", "1\f",
		`[1] [2]`, "\u00a01",
	} {
		_, err := ParseJSON(in)
		require.Error(t, err, "%q", in)
	}
}

func TestObjectKeyOrder(t *testing.T) {
	o := NewObject()
	for _, k := range []string{"z", "5", "a", "0", "z", "1"} {
		o.Set(k, NumberValue(1))
	}
	require.Equal(t, []string{"0", "1", "5", "z", "a"}, o.Keys())
	big := NewObject()
	for i := 0; i < 20; i++ {
		big.Set(string(rune('a'+i)), NumberValue(float64(i)))
	}
	big.Set("c", StringValue("again"))
	v, ok := big.Get("c")
	require.True(t, ok)
	require.Equal(t, "again", v.Str())
	require.Equal(t, "c", big.Keys()[2])
	require.True(t, IsArrayIndex("4294967294"))
	require.False(t, IsArrayIndex("4294967295"))
	require.False(t, IsArrayIndex("00"))
}

func TestEqualIsSameValue(t *testing.T) {
	require.True(t, NumberValue(math.NaN()).Equal(NumberValue(math.NaN())))
	require.False(t, NumberValue(0).Equal(NumberValue(math.Copysign(0, -1))))
	require.False(t, mustParse(t, `{"a":1,"b":2}`).Equal(mustParse(t, `{"b":2,"a":1}`)))
	require.True(t, mustParse(t, `{"a":[1,{"c":null}]}`).Equal(mustParse(t, `{"a":[1,{"c":null}]}`)))
	require.False(t, JSONValue{}.Equal(NullValue()))
}

// JSON.parse (ECMA-262 InternalizeJSONProperty via CreateDataProperty): a
// duplicate key keeps its first position and its last value, in objects
// nested at any depth, small and large (the map index starts at 8 keys);
// DeepClone of the result is equal and independent.
func TestParseJSONObjectMembers(t *testing.T) {
	big := `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k1":"x","9":9}`
	for in, want := range map[string]string{
		`{"a":1,"b":2,"a":3}`:                              `{"a":3,"b":2}`,
		`{"a":{"b":{"c":1,"c":2},"d":[{"e":1},{}]},"f":1}`: `{"a":{"b":{"c":2},"d":[{"e":1},{}]},"f":1}`,
		`{"x":{"y":1},"x":{"z":2}}`:                        `{"x":{"z":2}}`,
		big:                                                `{"9":9,"k0":0,"k1":"x","k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8}`,
	} {
		v, err := ParseJSON(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := string(v.AppendJSON(nil)); got != want {
			t.Fatalf("JSON.parse(%s) = %s, want %s", in, got, want)
		}
		c := DeepClone(v)
		c.ObjectValue().Set("k1", StringValue("changed"))
		c.ObjectValue().Set("new", NumberValue(1))
		if got := string(v.AppendJSON(nil)); got != want {
			t.Fatalf("clone of %s shares its object: %s", in, got)
		}
		if got, ok := c.ObjectValue().Get("k1"); !ok || got.Str() != "changed" {
			t.Fatalf("clone of %s: k1 = %v", in, got)
		}
	}
}

// Prop reads like JS property access: a member of an object, undefined for
// a missing member or a value that is not an object.
func TestPropReadsLikeJS(t *testing.T) {
	v, err := ParseJSON(`{"a":1,"b":null}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Prop("a"); got.Kind() != Number || got.Number() != 1 {
		t.Fatalf("a: %v", got)
	}
	if got := v.Prop("b"); got.Kind() != Null {
		t.Fatalf("b: %v", got)
	}
	for _, w := range []JSONValue{v, NullValue(), StringValue("a"), {}} {
		if got := w.Prop("zz"); !got.IsUndefined() {
			t.Fatalf("%v.zz: %v", w, got)
		}
	}
}
