package replay

import "github.com/frameproof/frameproof/impl/pi"

// field is one member of an object under construction, in output order.
type field struct {
	key string
	val pi.JSONValue
}

func obj(fields ...field) pi.JSONValue {
	o := pi.NewObject()
	for _, f := range fields {
		o.Set(f.key, f.val)
	}
	return pi.ObjectValue(o)
}

func f(key string, v pi.JSONValue) field { return field{key, v} }
func s(v string) pi.JSONValue            { return pi.StringValue(v) }
func arr(vs []pi.JSONValue) pi.JSONValue {
	if vs == nil {
		vs = []pi.JSONValue{}
	}
	return pi.ArrayValue(vs)
}

// argsObject is a call's arguments as the JSON object every wire requires.
// Settled calls carry objects; anything else (absent, or a non-object left by
// a partial parse) crosses as {} rather than breaking the wire.
func argsObject(v pi.JSONValue) pi.JSONValue {
	if v.Kind() == pi.Object {
		return v
	}
	return pi.EmptyObject()
}

// argsText is the arguments as JSON text (OpenAI wires).
func argsText(v pi.JSONValue) string { return string(argsObject(v).AppendJSON(nil)) }

func dataURL(img *pi.ImageContent) string {
	return "data:" + img.MimeType + ";base64," + img.Data
}
