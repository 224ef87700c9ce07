package codec

import (
	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

// GenStoredFrames generates frame lists as a store may hold them after a
// crash, a version skew or a hand edit: a valid encoded stream, then 1–4
// damages among reordering (drop, duplicate, swap), frames of a type pi-ai
// 1.0.3 does not know (and non-object frames), a member removed, and a
// member replaced by a value of another JSON type (including the start
// frame's partial and its content). pi-ai's reducer reads all of them
// without validating; the differential tests compare its answer byte for
// byte with frames.ReduceValues.
func GenStoredFrames() *rapid.Generator[[]pi.JSONValue] {
	return rapid.Custom(genStoredFrames)
}

func genStoredFrames(t *rapid.T) []pi.JSONValue {
	s := GenStream().Draw(t, "stream")
	enc := frames.NewEncoder()
	var fs []pi.JSONValue
	for _, ev := range s.Events {
		if f, err := enc.Encode(ev); err == nil && f != nil {
			v, err := pi.ParseJSON(string(f.AppendJSON(nil)))
			if err != nil {
				t.Fatalf("encoder wrote invalid JSON: %v", err)
			}
			fs = append(fs, v)
		}
	}
	for n := rapid.IntRange(1, 4).Draw(t, "damages"); n > 0; n-- {
		fs = damageStored(t, fs)
	}
	return fs
}

func damageStored(t *rapid.T, fs []pi.JSONValue) []pi.JSONValue {
	how := rapid.IntRange(0, 5).Draw(t, "how")
	if len(fs) == 0 {
		how = 2
	}
	switch how {
	case 0, 1: // reorder
		i := rapid.IntRange(0, len(fs)-1).Draw(t, "i")
		j := rapid.IntRange(0, len(fs)-1).Draw(t, "j")
		switch rapid.IntRange(0, 2).Draw(t, "reorder") {
		case 0:
			return append(fs[:i:i], fs[i+1:]...)
		case 1:
			return append(fs[:i+1:i+1], fs[i:]...)
		default:
			fs[i], fs[j] = fs[j], fs[i]
		}
	case 2: // an unknown frame
		i := rapid.IntRange(0, len(fs)).Draw(t, "at")
		u := genUnknownFrame(t)
		return append(fs[:i:i], append([]pi.JSONValue{u}, fs[i:]...)...)
	default: // a member removed or ill-typed, possibly one level down
		i := rapid.IntRange(0, len(fs)-1).Draw(t, "i")
		if fs[i] = damageMember(t, fs[i], 0); fs[i].IsUndefined() {
			fs[i] = pi.NullValue() // a stored list holds JSON: undefined is null
		}
	}
	return fs
}

func genUnknownFrame(t *rapid.T) pi.JSONValue {
	typ := rapid.SampledFrom([]pi.JSONValue{pi.StringValue("reasoning_delta"), pi.StringValue("citation"),
		pi.StringValue("Text_delta"), pi.StringValue(""), pi.NumberValue(3), pi.NullValue(), pi.BoolValue(true),
		pi.ArrayValue([]pi.JSONValue{pi.StringValue("a"), pi.NullValue(), pi.NumberValue(1)}), pi.EmptyObject(), {}}).Draw(t, "type")
	o := pi.NewObject()
	o.Set("type", typ)
	if rapid.Bool().Draw(t, "withIndex") {
		o.Set("contentIndex", pi.NumberValue(float64(rapid.IntRange(0, 3).Draw(t, "index"))))
		o.Set("delta", pi.StringValue("x"))
	}
	if rapid.IntRange(0, 4).Draw(t, "bare") == 0 {
		return rapid.SampledFrom([]pi.JSONValue{pi.NumberValue(7), pi.StringValue("start"), pi.BoolValue(false),
			pi.ArrayValue(nil), pi.EmptyObject()}).Draw(t, "bareFrame")
	}
	return pi.ObjectValue(o)
}

// illTyped are replacement values of every JSON type, chosen to hit the
// reducer's JS semantics: string and number concatenation, falsy and
// truthy non-strings, arrays that stringify, objects with a length, an own
// toString or valueOf.
func illTyped(t *rapid.T) pi.JSONValue {
	withLength := pi.NewObject()
	withLength.Set("length", pi.NumberValue(0))
	typed := pi.NewObject()
	typed.Set("type", pi.StringValue("text"))
	// an own toString makes JS's ToPrimitive throw (an own valueOf alone
	// does not): pi-ai's reducer throws a TypeError reading either
	toString := pi.NewObject()
	toString.Set("toString", pi.StringValue("s"))
	valueOf := pi.NewObject()
	valueOf.Set("valueOf", pi.NumberValue(1))
	return rapid.SampledFrom([]pi.JSONValue{{}, pi.NullValue(), pi.BoolValue(true), pi.BoolValue(false),
		pi.NumberValue(0), pi.NumberValue(1), pi.NumberValue(-1), pi.NumberValue(2.5), pi.NumberValue(1e21),
		pi.StringValue(""), pi.StringValue("x"), pi.StringValue(`{"a":1`), pi.StringValue("\U0001F600"),
		pi.ArrayValue(nil), pi.ArrayValue([]pi.JSONValue{pi.NumberValue(1), pi.StringValue("b")}),
		pi.EmptyObject(), pi.ObjectValue(withLength), pi.ObjectValue(typed), pi.ObjectValue(toString),
		pi.ObjectValue(valueOf), pi.ArrayValue([]pi.JSONValue{pi.ObjectValue(toString)})}).Draw(t, "value")
}

// damageMember removes a member of v or replaces it (Undefined means
// remove); at depth 0 it may recurse into an object member (partial,
// partial.content, a start block).
func damageMember(t *rapid.T, v pi.JSONValue, depth int) pi.JSONValue {
	if v.Kind() != pi.Object || v.ObjectValue().Len() == 0 {
		return illTyped(t)
	}
	c := pi.DeepClone(v)
	o := c.ObjectValue()
	key := rapid.SampledFrom(o.Keys()).Draw(t, "key")
	member, _ := o.Get(key)
	if depth < 2 && (member.Kind() == pi.Object || member.Kind() == pi.Array) && rapid.Bool().Draw(t, "deeper") {
		if member.Kind() == pi.Array {
			arr := append([]pi.JSONValue(nil), member.Array()...)
			if len(arr) > 0 && rapid.Bool().Draw(t, "element") {
				i := rapid.IntRange(0, len(arr)-1).Draw(t, "el")
				arr[i] = damageMember(t, arr[i], depth+1)
			} else {
				arr = append(arr, illTyped(t))
			}
			o.Set(key, pi.ArrayValue(arr))
			return c
		}
		o.Set(key, damageMember(t, member, depth+1))
		return c
	}
	if key == "type" && depth == 0 {
		return c // keep the frame's kind: unknown kinds have their own damage
	}
	if r := illTyped(t); !r.IsUndefined() {
		o.Set(key, r)
	} else {
		o.Delete(key)
	}
	return c
}
