package pi

import (
	"maps"
	"slices"
)

// Delete is `delete o[key]`: the property is removed, and setting it again
// appends it at the end of the insertion order, as in JS.
func (o *JSONObject) Delete(key string) {
	if o == nil {
		return
	}
	i := -1
	for j, k := range o.keys {
		if k == key {
			i = j
			break
		}
	}
	if i < 0 {
		return
	}
	o.keys = append(o.keys[:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i], o.vals[i+1:]...)
	if IsArrayIndex(key) {
		o.ints--
	}
	if o.index != nil {
		o.index = make(map[string]int, len(o.keys)*2)
		for j, k := range o.keys {
			o.index[k] = j
		}
	}
}

// DeepClone is structuredClone(v) for a JSON value: arrays and objects are
// copied at every level, so the copy can be mutated (Set, Delete) without
// touching v.
func DeepClone(v JSONValue) JSONValue {
	switch v.kind {
	case Array:
		out := make([]JSONValue, len(v.arr()))
		for i, e := range v.arr() {
			out[i] = DeepClone(e)
		}
		return ArrayValue(out)
	case Object:
		// The keys are distinct already: copy the structure at its size
		// instead of Setting each key into a growing object.
		src := v.obj
		o := &JSONObject{keys: slices.Clone(src.keys), vals: make([]JSONValue, len(src.vals)), ints: src.ints}
		if src.index != nil {
			o.index = maps.Clone(src.index)
		}
		for i, e := range src.vals {
			o.vals[i] = DeepClone(e)
		}
		return ObjectValue(o)
	}
	return v
}

// JSString is String(v), which a JS template literal applies to an
// interpolated value: "undefined", "null", numbers as Number::toString,
// arrays joined with commas, objects "[object Object]".
func JSString(v JSONValue) string { return jsToString(v) }
