package replay

import (
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// jw writes a request body straight into one buffer. Every key the
// encoders write is a plain ASCII constant that is not integer-like, so
// writing members in call order is exactly what JSON.stringify prints for
// an object built in that order; values are quoted by pi.AppendQuote and
// pi.AppendNumber, the same functions pi.JSONValue.AppendJSON uses.
type jw struct{ b []byte }

// raw appends JSON punctuation and constant keys verbatim.
func (w *jw) raw(s string) { w.b = append(w.b, s...) }

// str appends s as a JSON string.
func (w *jw) str(s string) { w.b = pi.AppendQuote(w.b, s) }

// sep writes the comma before every array element but the first.
func (w *jw) sep(i int) {
	if i > 0 {
		w.b = append(w.b, ',')
	}
}

// value appends a stored JSON value (call arguments, a reasoning item).
func (w *jw) value(v pi.JSONValue) { w.b = v.AppendJSON(w.b) }

// args appends a call's arguments as the JSON object every wire requires.
// Settled calls carry objects; anything else (absent, or a non-object left
// by a partial parse) crosses as {} rather than breaking the wire.
func (w *jw) args(v pi.JSONValue) {
	if v.Kind() == pi.Object {
		w.value(v)
		return
	}
	w.raw("{}")
}

// argsText appends the arguments as a JSON string holding their JSON text
// (OpenAI wires).
func (w *jw) argsText(v pi.JSONValue) {
	if v.Kind() != pi.Object {
		w.str("{}")
		return
	}
	w.str(string(v.AppendJSON(nil)))
}

// joined appends the strings joined by "\n" as one JSON string.
func (w *jw) joined(texts []string) {
	if len(texts) == 1 {
		w.str(texts[0])
		return
	}
	w.str(strings.Join(texts, "\n"))
}

func dataURL(img *pi.ImageContent) string {
	return "data:" + img.MimeType + ";base64," + img.Data
}
