package frames

import (
	"strconv"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/pi"
)

// The few JavaScript operations pi-ai's reducer applies to stored frames
// without checking their types. A frame read back from storage is whatever
// JSON was stored, so `block.text += frame.delta` may add a number to
// undefined; these helpers give the result JS gives.

// jsTypeError is a TypeError V8 throws; Error() is its message, which is
// what pi-ai's callers see as err.message.
type jsTypeError struct{ msg string }

func (e *jsTypeError) Error() string { return e.msg }

// jsGet is `base[key]` for a JSON value: own properties of objects, the
// length of strings and arrays, and the elements or characters at an index.
// Reading any property of null or undefined is V8's TypeError.
func jsGet(base pi.JSONValue, key string) (pi.JSONValue, error) {
	switch base.Kind() {
	case pi.Undefined, pi.Null:
		return pi.JSONValue{}, &jsTypeError{"Cannot read properties of " + base.Kind().String() + " (reading '" + key + "')"}
	case pi.Object:
		v, _ := base.ObjectValue().Get(key)
		return v, nil
	case pi.Array:
		if key == "length" {
			return pi.NumberValue(float64(len(base.Array()))), nil
		}
		if i, ok := arrayIndex(key); ok && i < len(base.Array()) {
			return base.Array()[i], nil
		}
	case pi.String:
		if key == "length" {
			return pi.NumberValue(float64(pi.UTF16Len(base.Str()))), nil
		}
		if i, ok := arrayIndex(key); ok && i < pi.UTF16Len(base.Str()) {
			return pi.StringValue(pi.SubstringUTF16(base.Str(), i, i+1)), nil
		}
	}
	return pi.JSONValue{}, nil
}

func arrayIndex(key string) (int, bool) {
	if !pi.IsArrayIndex(key) {
		return 0, false
	}
	n, err := strconv.Atoi(key)
	return n, err == nil
}

// jsStrictEqualNumber is `n === v` for a number n.
func jsStrictEqualNumber(n float64, v pi.JSONValue) bool {
	return v.Kind() == pi.Number && v.Number() == n
}

// jsToPrimitive is ToPrimitive for plain objects and arrays (their
// toString: "[object Object]" and join).
func jsToPrimitive(v pi.JSONValue) pi.JSONValue {
	if v.Kind() == pi.Object || v.Kind() == pi.Array {
		return pi.StringValue(pi.JSString(v))
	}
	return v
}

// jsLess is `n < v` for a number n.
func jsLess(n float64, v pi.JSONValue) bool {
	return n < pi.ToNumber(v) // NaN compares false
}

// jsAdd is the + operator: string concatenation when either side is (or
// turns into) a string, numeric addition otherwise.
func jsAdd(a, b pi.JSONValue) pi.JSONValue {
	pa, pb := jsToPrimitive(a), jsToPrimitive(b)
	if pa.Kind() == pi.String || pb.Kind() == pi.String {
		return pi.StringValue(pi.Concat(pi.JSString(pa), pi.JSString(pb)))
	}
	return pi.NumberValue(pi.ToNumber(pa) + pi.ToNumber(pb))
}

// jsParseStreamingJSON is parseStreamingJson(v) for any value: falsy
// values give {} (`!partialJson`), other non-strings fail at `.trim()`.
func jsParseStreamingJSON(v pi.JSONValue) (pi.JSONValue, error) {
	if !pi.ToBoolean(v) {
		return pi.EmptyObject(), nil
	}
	if v.Kind() != pi.String {
		return pi.JSONValue{}, &jsTypeError{"partialJson.trim is not a function"}
	}
	return ParseStreamingJSON(v.Str()), nil
}

// jsAccum is a JS value built by repeated `+=`. While it is a string it is
// kept as a growing buffer, so n string deltas cost O(total length).
//
// The buffer holds the string itself (WTF-8), or, once AppendReducedJSON's
// byte-level path has taken it (esc), the string's JSON.stringify body:
// delta literals written as JSON.stringify writes strings without
// surrogates are copied onto it as they are, and the message's JSON copies
// it back. Appending such a body is appending its string: JSON.stringify
// writes a string one character at a time, and only surrogates join
// across a boundary, which a side without surrogates cannot. A non-string
// delta appends its String(ToPrimitive(x)) the same way. A delta whose
// string holds a surrogate turns the body back into the string for good
// (left), which keeps a block's cost linear.
type jsAccum struct {
	isStr bool
	esc   bool
	left  bool
	buf   []byte
	val   pi.JSONValue
}

func accumOf(v pi.JSONValue) jsAccum {
	if v.Kind() == pi.String {
		return jsAccum{isStr: true, buf: []byte(v.Str())}
	}
	return jsAccum{val: v}
}

func (a *jsAccum) add(delta pi.JSONValue) {
	if !a.isStr {
		*a = accumOf(jsAdd(a.value(), delta))
		return
	}
	// A string plus anything is the string and String(ToPrimitive(x)):
	// appended in place, so a block's missing, numeric or null deltas
	// cost their own length, not the text's.
	s := delta.Str()
	if delta.Kind() != pi.String {
		s = pi.JSString(jsToPrimitive(delta))
	}
	if a.esc && utf8.ValidString(s) {
		a.buf = appendBody(a.buf, s)
		return
	}
	a.unescape()
	a.buf = appendJS(a.buf, s)
}

func (a *jsAccum) value() pi.JSONValue {
	if a.esc {
		return pi.StringValue(decodeBody(a.buf))
	}
	if a.isStr {
		return pi.StringValue(string(a.buf))
	}
	return a.val
}

// escape turns a string's buffer into its body, unless it left the body
// form before, and reports whether the buffer is a body now. The body is
// written into a spare buffer when there is one.
func (a *jsAccum) escape(spare *[][]byte) bool {
	if a.esc || !a.isStr || a.left {
		return a.esc
	}
	var buf []byte
	if n := len(*spare); n > 0 {
		buf, *spare = (*spare)[n-1][:0], (*spare)[:n-1]
	}
	a.buf, a.esc = appendBody(buf, string(a.buf)), true
	return true
}

// unescape turns a body back into the string, for good.
func (a *jsAccum) unescape() {
	if a.esc {
		a.buf, a.esc, a.left = []byte(decodeBody(a.buf)), false, true
	}
}
