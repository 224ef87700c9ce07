package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
)

// jobj builds a JS object in insertion order from alternating key/value
// pairs; Undefined values are skipped, exactly as JSON.stringify omits them.
func jobj(kv ...any) pi.JSONValue {
	o := pi.NewObject()
	for i := 0; i+1 < len(kv); i += 2 {
		v := jval(kv[i+1])
		if v.IsUndefined() {
			continue
		}
		o.Set(kv[i].(string), v)
	}
	return pi.ObjectValue(o)
}

// jval lifts the few Go shapes the lane writes into JS values.
func jval(x any) pi.JSONValue {
	switch v := x.(type) {
	case pi.JSONValue:
		return v
	case string:
		return pi.StringValue(v)
	case *string:
		if v == nil {
			return pi.NullValue()
		}
		return pi.StringValue(*v)
	case int:
		return pi.NumberValue(float64(v))
	case int64:
		return pi.NumberValue(float64(v))
	case float64:
		return pi.NumberValue(v)
	case bool:
		return pi.BoolValue(v)
	case []string:
		arr := make([]pi.JSONValue, len(v))
		for i, s := range v {
			arr[i] = pi.StringValue(s)
		}
		return pi.ArrayValue(arr)
	case nil:
		return pi.JSONValue{}
	}
	panic(fmt.Sprintf("lane: jval: unsupported %T", x))
}

// field reads one member of an object value for decoding.
type reader struct {
	path string
	err  error
}

func (r *reader) get(v pi.JSONValue, key string) pi.JSONValue {
	if v.Kind() != pi.Object {
		r.fail("%s is %s, not an object", r.path, v.Kind())
		return pi.JSONValue{}
	}
	x, _ := v.ObjectValue().Get(key)
	return x
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("lane: decode operation state: "+format, args...)
	}
}

func (r *reader) str(v pi.JSONValue, key string) string {
	x := r.get(v, key)
	if x.Kind() != pi.String {
		r.fail("%s.%s is %s, not a string", r.path, key, x.Kind())
	}
	return x.Str()
}

func (r *reader) optStr(v pi.JSONValue, key string) *string {
	x := r.get(v, key)
	switch x.Kind() {
	case pi.String:
		s := x.Str()
		return &s
	case pi.Null, pi.Undefined:
		return nil
	}
	r.fail("%s.%s is %s, not a string or null", r.path, key, x.Kind())
	return nil
}

func (r *reader) num(v pi.JSONValue, key string) float64 {
	x := r.get(v, key)
	if x.Kind() != pi.Number {
		r.fail("%s.%s is %s, not a number", r.path, key, x.Kind())
	}
	return x.Number()
}

func (r *reader) optNum(v pi.JSONValue, key string) *float64 {
	x := r.get(v, key)
	switch x.Kind() {
	case pi.Number:
		n := x.Number()
		return &n
	case pi.Undefined:
		return nil
	}
	r.fail("%s.%s is %s, not a number", r.path, key, x.Kind())
	return nil
}

func (r *reader) boolean(v pi.JSONValue, key string) bool {
	x := r.get(v, key)
	if x.Kind() != pi.Bool {
		r.fail("%s.%s is %s, not a boolean", r.path, key, x.Kind())
	}
	return x.Bool()
}

func (r *reader) strs(v pi.JSONValue, key string) []string {
	x := r.get(v, key)
	if x.Kind() != pi.Array {
		r.fail("%s.%s is %s, not an array", r.path, key, x.Kind())
		return nil
	}
	out := make([]string, 0, len(x.Array()))
	for i, e := range x.Array() {
		if e.Kind() != pi.String {
			r.fail("%s.%s[%d] is %s, not a string", r.path, key, i, e.Kind())
		}
		out = append(out, e.Str())
	}
	return out
}
