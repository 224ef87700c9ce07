package pi

import (
	"math"
	"sort"
	"strconv"
)

// Kind is the JS type of a JSONValue.
type Kind uint8

const (
	// Undefined is the zero value: an absent property. It serializes to
	// nothing (JSON.stringify omits it from objects and returns undefined at
	// top level).
	Undefined Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"undefined", "null", "boolean", "number", "string", "array", "object"}[k]
}

// JSONValue is an arbitrary JS value reachable from JSON (plus NaN and
// ±Infinity, which partial-json can produce and JSON.stringify writes as
// null). Values are immutable once built: arrays and objects share storage
// on copy, which is what structuredClone-then-never-mutate needs.
//
// An array keeps its elements in obj's vals (obj has no keys then), so that
// a value is 40 bytes instead of the 64 that a slice field of its own made
// it: parsed trees, whose member slices hold values, are most of what the
// simulator's checks allocate.
type JSONValue struct {
	kind Kind
	b    bool
	n    float64
	s    string
	obj  *JSONObject // the object's members, or an array's elements in vals
}

// Constructors.
func NullValue() JSONValue            { return JSONValue{kind: Null} }
func BoolValue(b bool) JSONValue      { return JSONValue{kind: Bool, b: b} }
func NumberValue(n float64) JSONValue { return JSONValue{kind: Number, n: n} }
func StringValue(s string) JSONValue  { return JSONValue{kind: String, s: s} }
func ArrayValue(a []JSONValue) JSONValue {
	if a != nil && len(a) == 0 {
		// what the parser makes of [] (emptyArray): no holder of its own
		return JSONValue{kind: Array, obj: &emptyArray}
	}
	return JSONValue{kind: Array, obj: &JSONObject{vals: a}}
}
func ObjectValue(o *JSONObject) JSONValue {
	if o == nil {
		o = NewObject()
	}
	return JSONValue{kind: Object, obj: o}
}

// EmptyObject is {}.
func EmptyObject() JSONValue { return ObjectValue(NewObject()) }

// Accessors. Each returns the zero value for a different kind.
func (v JSONValue) Kind() Kind               { return v.kind }
func (v JSONValue) IsUndefined() bool        { return v.kind == Undefined }
func (v JSONValue) Bool() bool               { return v.b }
func (v JSONValue) Number() float64          { return v.n }
func (v JSONValue) Str() string              { return v.s }
func (v JSONValue) Array() []JSONValue       { return v.arr() }
func (v JSONValue) ObjectValue() *JSONObject { return v.object() }

// arr is an array's elements (nil for any other kind).
func (v JSONValue) arr() []JSONValue {
	if v.kind != Array || v.obj == nil {
		return nil
	}
	return v.obj.vals
}

// object is an object's members (nil for any other kind).
func (v JSONValue) object() *JSONObject {
	if v.kind != Object {
		return nil
	}
	return v.obj
}

// Prop is v[key] as JS reads an own property: the member's value for an
// object that has it, Undefined for anything else (no such member, or v is
// not an object).
func (v JSONValue) Prop(key string) JSONValue {
	if v.kind != Object {
		return JSONValue{}
	}
	x, _ := v.obj.Get(key)
	return x
}

// Equal is deep equality with SameValue for numbers (NaN equals NaN, 0 and
// -0 differ) and JS property order for objects. go-cmp uses it.
func (v JSONValue) Equal(o JSONValue) bool {
	if v.kind != o.kind {
		return false
	}
	switch v.kind {
	case Bool:
		return v.b == o.b
	case Number:
		if math.IsNaN(v.n) {
			return math.IsNaN(o.n)
		}
		return v.n == o.n && math.Signbit(v.n) == math.Signbit(o.n)
	case String:
		return v.s == o.s
	case Array:
		a, b := v.arr(), o.arr()
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !a[i].Equal(b[i]) {
				return false
			}
		}
		return true
	case Object:
		a, b := v.obj.Keys(), o.obj.Keys()
		if len(a) != len(b) {
			return false
		}
		for i, k := range a {
			if b[i] != k {
				return false
			}
			x, _ := v.obj.Get(k)
			y, _ := o.obj.Get(k)
			if !x.Equal(y) {
				return false
			}
		}
		return true
	}
	return true
}

// String is JSON.stringify(v), or "undefined".
func (v JSONValue) String() string {
	if v.kind == Undefined {
		return "undefined"
	}
	return string(v.AppendJSON(nil))
}

// AppendJSON appends JSON.stringify(v). Undefined appends nothing; callers
// that write object members skip undefined values themselves. Undefined
// array elements and non-finite numbers are written as null, as JS does.
func (v JSONValue) AppendJSON(dst []byte) []byte {
	switch v.kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.b {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		if math.IsNaN(v.n) || math.IsInf(v.n, 0) {
			return append(dst, "null"...)
		}
		return AppendNumber(dst, v.n)
	case String:
		return AppendQuote(dst, v.s)
	case Array:
		dst = append(dst, '[')
		for i, e := range v.arr() {
			if i > 0 {
				dst = append(dst, ',')
			}
			if e.kind == Undefined {
				dst = append(dst, "null"...)
				continue
			}
			dst = e.AppendJSON(dst)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		first := true
		for _, k := range v.obj.Keys() {
			e, _ := v.obj.Get(k)
			if e.kind == Undefined {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = AppendQuote(dst, k)
			dst = append(dst, ':')
			dst = e.AppendJSON(dst)
		}
		return append(dst, '}')
	}
	return dst
}

// MarshalJSON implements json.Marshaler (prefer Marshal: encoding/json
// HTML-escapes Marshaler output).
func (v JSONValue) MarshalJSON() ([]byte, error) {
	if v.kind == Undefined {
		return nil, errNotSerializable
	}
	return v.AppendJSON(nil), nil
}

// UnmarshalJSON parses with JSON.parse semantics.
func (v *JSONValue) UnmarshalJSON(data []byte) error {
	p, err := ParseJSON(string(data))
	if err != nil {
		return err
	}
	*v = p
	return nil
}

// JSONObject is a JS plain object: integer-like keys (canonical array
// indices 0..2^32-2) enumerate first in ascending numeric order, the rest in
// insertion order; re-setting a key keeps its place.
type JSONObject struct {
	keys  []string // insertion order
	index map[string]int
	vals  []JSONValue
	ints  int // how many keys are integer-like
}

// NewObject returns an empty object.
func NewObject() *JSONObject { return &JSONObject{} }

// Len is the number of own properties.
func (o *JSONObject) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Get returns the property and whether it exists.
func (o *JSONObject) Get(key string) (JSONValue, bool) {
	i := o.find(key)
	if i < 0 {
		return JSONValue{}, false
	}
	return o.vals[i], true
}

// find is the position of the property key, or -1.
func (o *JSONObject) find(key string) int {
	if o == nil {
		return -1
	}
	if o.index == nil {
		for i, k := range o.keys {
			if k == key {
				return i
			}
		}
		return -1
	}
	i, ok := o.index[key]
	if !ok {
		return -1
	}
	return i
}

// Has is Object.hasOwn.
func (o *JSONObject) Has(key string) bool { _, ok := o.Get(key); return ok }

// indexFrom is the member count from which an object keeps a key index:
// below it a scan of the keys (most differ in length, so most compares
// stop there) costs less than the map's hashing and its allocation.
const indexFrom = 16

// Set is o[key] = v for an own data property.
func (o *JSONObject) Set(key string, v JSONValue) {
	if o.index == nil && len(o.keys) >= indexFrom {
		o.index = make(map[string]int, len(o.keys)*2)
		for i, k := range o.keys {
			o.index[k] = i
		}
	}
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			o.vals[i] = v
			return
		}
		o.index[key] = len(o.keys)
	} else {
		for i, k := range o.keys {
			if k == key {
				o.vals[i] = v
				return
			}
		}
	}
	if cap(o.keys) == 0 {
		// Most objects have a few members: start with room for them
		// rather than growing through 1, 2 and 4, keys and values in one
		// allocation (capped: a fifth member grows them apart).
		b := new(struct {
			k [4]string
			v [4]JSONValue
		})
		o.keys, o.vals = b.k[:0:4], b.v[:0:4]
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	if IsArrayIndex(key) {
		o.ints++
	}
}

// Keys returns the own property keys in JS enumeration order.
func (o *JSONObject) Keys() []string {
	if o == nil {
		return nil
	}
	if o.ints == 0 {
		return o.keys
	}
	out := make([]string, 0, len(o.keys))
	for _, k := range o.keys {
		if IsArrayIndex(k) {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.ParseUint(out[i], 10, 64)
		b, _ := strconv.ParseUint(out[j], 10, 64)
		return a < b
	})
	for _, k := range o.keys {
		if !IsArrayIndex(k) {
			out = append(out, k)
		}
	}
	return out
}

// IsArrayIndex reports whether key is a canonical array index: the decimal
// form of an integer in 0..2^32-2 with no leading zeros or sign.
func IsArrayIndex(key string) bool {
	if len(key) == 0 || len(key) > 10 {
		return false
	}
	if key[0] == '0' {
		return len(key) == 1
	}
	for i := 0; i < len(key); i++ {
		if key[i] < '0' || key[i] > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(key, 10, 64)
	return err == nil && n <= 1<<32-2
}
