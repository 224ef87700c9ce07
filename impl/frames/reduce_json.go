package frames

import (
	"bytes"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/pi"
)

// ReduceJSON is ReduceValues over stored frames given as their JSON bytes
// (JSON.parse of each, then reduceAssistantMessageFrames): what recovery
// does with a frame log read back from storage.
func ReduceJSON(frames [][]byte) (pi.JSONValue, error) {
	r := NewValueReducer()
	for _, f := range frames {
		if err := r.ApplyJSON(f); err != nil {
			return pi.JSONValue{}, err
		}
	}
	return r.Finish()
}

// ApplyJSON is Apply(pi.ParseJSON(frame)) for one stored frame's JSON: a
// syntax error is pi.ParseJSON's. Delta frames in the shape the encoder
// writes them take a byte-level path that appends the decoded delta to the
// block without building a JSON value; every other frame, and any delta
// frame that differs from that shape in one byte, takes the general path.
// Both give the same state, result and error.
func (r *ValueReducer) ApplyJSON(frame []byte) error {
	if d, ok := parseDeltaFrame(frame); ok && jsTruthy(r.message) {
		return r.applyDelta(d)
	}
	v, err := pi.ParseJSON(string(frame))
	if err != nil {
		return err
	}
	return r.Apply(v)
}

// applyDelta is apply for a delta frame parseDeltaFrame matched: the frame
// is the object {type, contentIndex, delta} with a string delta, so only
// the reducer's checks can fail.
func (r *ValueReducer) applyDelta(d deltaFrame) error {
	acc, err := r.deltaTarget(d.typ, d.index)
	if err != nil {
		return err
	}
	if !acc.isStr {
		// `undefined += "x"` and the like: the general JS addition.
		acc.add(pi.StringValue(string(d.decode(nil))))
		return nil
	}
	// The fast shape never holds a surrogate (escaped or raw), so no pair
	// can join across the boundary and appendJS's rejoining is not needed.
	acc.buf = d.decode(acc.buf)
	return nil
}

// deltaFrame is a delta frame parseDeltaFrame accepted. raw is the delta's
// string literal between its quotes.
type deltaFrame struct {
	typ     string
	index   float64
	raw     []byte
	escaped bool // raw holds a backslash escape
}

// decode appends the delta's string value to dst.
func (d deltaFrame) decode(dst []byte) []byte {
	if !d.escaped {
		return append(dst, d.raw...)
	}
	raw := d.raw
	for {
		k := bytes.IndexByte(raw, '\\')
		if k < 0 {
			return append(dst, raw...)
		}
		dst = append(append(dst, raw[:k]...), unescape(raw[k+1]))
		raw = raw[k+2:]
	}
}

// unescape is the character a one-letter JSON escape stands for (0 for
// any other letter; deltaString lets only these through).
func unescape(e byte) byte {
	switch e {
	case '"', '\\', '/':
		return e
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// The fast shape, exactly as AppendFrame writes a delta frame (no
// whitespace, members in this order, nothing else):
//
//	{"type":"text_delta","contentIndex":7,"delta":"..."}
const (
	deltaOpen  = `{"type":"`
	deltaIndex = `","contentIndex":`
	deltaKey   = `,"delta":"`
)

// parseDeltaFrame matches the fast shape: a delta type, a contentIndex
// written as a plain non-negative integer below 2^53 (no sign, fraction,
// exponent or leading zero) and a delta string without \u escapes,
// controls, or bytes that are not UTF-8 (surrogate forms included), then
// `"}` and the end of the frame. Whatever it rejects may still be valid;
// the general path reads it.
func parseDeltaFrame(b []byte) (deltaFrame, bool) {
	var d deltaFrame
	// Constant comparisons: the compiler turns them into a few word loads.
	if len(b) < len(deltaOpen)+len("text_delta")+len(deltaIndex) || string(b[:len(deltaOpen)]) != deltaOpen {
		return d, false
	}
	rest := b[len(deltaOpen):]
	switch {
	case string(rest[:len("text_delta")]) == "text_delta":
		d.typ, rest = "text_delta", rest[len("text_delta"):]
	case len(rest) >= len("thinking_delta") && string(rest[:len("thinking_delta")]) == "thinking_delta":
		d.typ, rest = "thinking_delta", rest[len("thinking_delta"):]
	case len(rest) >= len("toolcall_delta") && string(rest[:len("toolcall_delta")]) == "toolcall_delta":
		d.typ, rest = "toolcall_delta", rest[len("toolcall_delta"):]
	default:
		return d, false
	}
	if len(rest) < len(deltaIndex) || string(rest[:len(deltaIndex)]) != deltaIndex {
		return d, false
	}
	rest = rest[len(deltaIndex):]
	var ok bool
	if d.index, rest, ok = plainIndex(rest); !ok {
		return d, false
	}
	if len(rest) < len(deltaKey) || string(rest[:len(deltaKey)]) != deltaKey {
		return d, false
	}
	rest = rest[len(deltaKey):]
	n, escaped, ok := deltaString(rest)
	if !ok || string(rest[n:]) != `"}` {
		return d, false
	}
	d.raw, d.escaped = rest[:n], escaped
	return d, true
}

// plainIndex reads 0 or [1-9][0-9]{0,14} (every such number is a safe
// integer, exactly a float64).
func plainIndex(b []byte) (float64, []byte, bool) {
	n, i := 0, 0
	for i < len(b) && i < 16 && b[i] >= '0' && b[i] <= '9' {
		n = n*10 + int(b[i]-'0')
		i++
	}
	if i == 0 || i > 15 || (b[0] == '0' && i > 1) {
		return 0, b, false
	}
	return float64(n), b[i:], true
}

// deltaString finds the end of a string literal's contents in b (the index
// of its closing quote), reporting whether it holds escapes; ok is false
// for anything outside the fast shape.
func deltaString(b []byte) (n int, escaped, ok bool) {
	for i := 0; i < len(b); {
		c := b[i]
		if plainASCII[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			return i, escaped, true
		case c < 0x20:
			return 0, false, false
		case c == '\\':
			if i+1 >= len(b) || unescape(b[i+1]) == 0 {
				return 0, false, false // \u, a bad escape, or the end
			}
			escaped = true
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, false, false // not UTF-8, or a surrogate form
			}
			i += size
		}
	}
	return 0, false, false
}

// plainASCII marks the bytes a string literal holds as themselves: ASCII
// from space up, except the quote and the backslash.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
