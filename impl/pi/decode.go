package pi

import (
	"fmt"
	"strconv"
)

// DecodeError names the JSON path of a field that does not fit pi's types.
type DecodeError struct {
	Path string
	Msg  string
}

func (e *DecodeError) Error() string { return fmt.Sprintf("pi: decode %s: %s", e.Path, e.Msg) }

// fields reads the members of one JSON object, remembers which it used and
// reports the first problem with its path.
type fields struct {
	path string
	o    *JSONObject
	// used marks the members read, by position in o (nil: none yet): a
	// map of names was a tenth of a decode
	used []bool
	err  error
	// whitelist: members nobody reads are ignored rather than reported,
	// as pi-ai's encoder copies only the members its clone helpers name.
	whitelist bool
}

func readFields(v JSONValue, path string) (*fields, error) {
	if v.kind != Object {
		return nil, &DecodeError{path, "expected object, got " + v.kind.String()}
	}
	return &fields{path: path, o: v.obj}, nil
}

func (f *fields) at(key string) string { return f.path + "." + key }

func (f *fields) fail(key, msg string) {
	if f.err == nil {
		f.err = &DecodeError{f.at(key), msg}
	}
}

// get returns the member (Undefined when absent) and marks it used.
func (f *fields) get(key string) JSONValue {
	i := f.o.find(key)
	if i < 0 {
		return JSONValue{}
	}
	if f.used == nil {
		f.used = make([]bool, f.o.Len())
	}
	f.used[i] = true
	return f.o.vals[i]
}

func (f *fields) want(key string, v JSONValue, k Kind) bool {
	if v.kind == k {
		return true
	}
	if v.kind == Undefined {
		f.fail(key, "missing required "+k.String())
	} else {
		f.fail(key, "expected "+k.String()+", got "+v.kind.String())
	}
	return false
}

func (f *fields) str(key string) string {
	v := f.get(key)
	f.want(key, v, String)
	return v.s
}

func (f *fields) optStr(key string) *string {
	v := f.get(key)
	if v.kind == Undefined {
		return nil
	}
	if !f.want(key, v, String) {
		return nil
	}
	s := v.s
	return &s
}

func (f *fields) num(key string) float64 {
	v := f.get(key)
	f.want(key, v, Number)
	return v.n
}

func (f *fields) optNum(key string) *float64 {
	v := f.get(key)
	if v.kind == Undefined {
		return nil
	}
	if !f.want(key, v, Number) {
		return nil
	}
	n := v.n
	return &n
}

func (f *fields) boolean(key string) bool {
	v := f.get(key)
	f.want(key, v, Bool)
	return v.b
}

func (f *fields) optBool(key string) *bool {
	v := f.get(key)
	if v.kind == Undefined {
		return nil
	}
	if !f.want(key, v, Bool) {
		return nil
	}
	b := v.b
	return &b
}

// constant requires a string member with a fixed value (a "type" or "role").
func (f *fields) constant(key, want string) {
	if s := f.str(key); f.err == nil && s != want {
		f.fail(key, fmt.Sprintf("expected %q, got %q", want, s))
	}
}

// index reads a contentIndex as JS would see it: a safe non-negative integer
// becomes an int; anything else is kept as its JS rendering so the codec can
// report pi's "Invalid assistant message frame contentIndex: X".
func (f *fields) index(key string) ContentIndex {
	v := f.get(key)
	if v.kind == Number && isSafeInteger(v.n) && v.n >= 0 {
		return ContentIndex{N: int(v.n)}
	}
	return ContentIndex{Invalid: jsToString(v)}
}

// done reports the first error or an unknown member.
func (f *fields) done() error {
	if f.err != nil {
		return f.err
	}
	if f.whitelist {
		return nil
	}
	for _, k := range f.o.Keys() { // in JS order: the first unknown one is reported
		if f.used == nil || !f.used[f.o.find(k)] {
			return &DecodeError{f.at(k), "unknown field"}
		}
	}
	return nil
}

// jsToString is String(v) for the values a decoded contentIndex can hold.
func jsToString(v JSONValue) string {
	if v.kind == String {
		return v.s
	}
	return string(appendJSString(nil, v))
}

// appendJSString appends String(v). An array is its elements' strings
// joined by commas (Array.prototype.join), built in one buffer: a stored
// array of n elements costs O(n), where `out += ...` copied the string so
// far at each element.
func appendJSString(dst []byte, v JSONValue) []byte {
	switch v.kind {
	case Undefined:
		return append(dst, "undefined"...)
	case Null:
		return append(dst, "null"...)
	case Bool:
		return strconv.AppendBool(dst, v.b)
	case Number:
		return AppendNumber(dst, v.n)
	case String:
		return append(dst, v.s...)
	case Array:
		for i, e := range v.arr() {
			if i > 0 {
				dst = append(dst, ',')
			}
			if e.kind != Undefined && e.kind != Null {
				dst = appendJSString(dst, e)
			}
		}
		return dst
	}
	return append(dst, "[object Object]"...)
}
