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

// errNoPrimitive is V8's TypeError for ToPrimitive on an object whose
// toString and valueOf are not callable. A value JSON.parse built reaches
// it through an own "toString" member (JSON holds no functions, and the
// inherited valueOf answers the object itself): pi-ai's reducer throws it
// at `block.text += frame.delta` and at a template literal.
const errNoPrimitive = "Cannot convert object to primitive value"

// jsNoPrimitive reports whether ToPrimitive(v) throws: an object with an
// own toString, or an array one of whose elements (other than null and
// undefined, which join skips) throws in ToString.
func jsNoPrimitive(v pi.JSONValue) bool {
	switch v.Kind() {
	case pi.Object:
		_, own := v.ObjectValue().Get("toString")
		return own
	case pi.Array:
		for _, e := range v.Array() {
			if jsNoPrimitive(e) {
				return true
			}
		}
	}
	return false
}

// jsString is String(v) (and a template literal's ${v}) for a value
// JSON.parse built: V8's TypeError where ToPrimitive throws.
func jsString(v pi.JSONValue) (string, error) {
	if jsNoPrimitive(v) {
		return "", &jsTypeError{errNoPrimitive}
	}
	return pi.JSString(v), nil
}

// jsToPrimitive is ToPrimitive for plain objects and arrays (their
// toString: "[object Object]" and join), V8's TypeError where it throws.
func jsToPrimitive(v pi.JSONValue) (pi.JSONValue, error) {
	if v.Kind() == pi.Object || v.Kind() == pi.Array {
		s, err := jsString(v)
		return pi.StringValue(s), err
	}
	return v, nil
}

// jsLess is `n < v` for a number n.
func jsLess(n float64, v pi.JSONValue) (bool, error) {
	if jsNoPrimitive(v) {
		return false, &jsTypeError{errNoPrimitive}
	}
	return n < pi.ToNumber(v), nil // NaN compares false
}

// jsAdd is the + operator: string concatenation when either side is (or
// turns into) a string, numeric addition otherwise.
func jsAdd(a, b pi.JSONValue) (pi.JSONValue, error) {
	pa, err := jsToPrimitive(a)
	if err != nil {
		return pi.JSONValue{}, err
	}
	pb, err := jsToPrimitive(b)
	if err != nil {
		return pi.JSONValue{}, err
	}
	if pa.Kind() == pi.String || pb.Kind() == pi.String {
		return pi.StringValue(pi.Concat(pi.JSString(pa), pi.JSString(pb))), nil
	}
	return pi.NumberValue(pi.ToNumber(pa) + pi.ToNumber(pb)), nil
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

func (a *jsAccum) add(delta pi.JSONValue) error {
	if !a.isStr {
		sum, err := jsAdd(a.value(), delta)
		if err != nil {
			return err
		}
		*a = accumOf(sum)
		return nil
	}
	// A string plus anything is the string and String(ToPrimitive(x)):
	// appended in place, so a block's missing, numeric or null deltas
	// cost their own length, not the text's.
	s := delta.Str()
	if delta.Kind() != pi.String {
		var err error
		if s, err = jsString(delta); err != nil {
			return err
		}
	}
	if a.esc && utf8.ValidString(s) {
		a.buf = appendBody(a.buf, s)
		return nil
	}
	a.unescape()
	a.buf = appendJS(a.buf, s)
	return nil
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
