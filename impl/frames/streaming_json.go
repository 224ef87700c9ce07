package frames

import (
	"errors"

	"github.com/frameproof/frameproof/impl/pi"
)

// ParseStreamingJSON is pi-ai 1.0.3's parseStreamingJson: for a blank input
// {}; otherwise JSON.parse, then JSON.parse of repairJson(input) when the
// repair changed something, then partial-json 0.1.7 parse (all partial
// types allowed) of the input and then of the repaired input, each partial
// result passed through `?? {}`, and finally {}.
//
// The result may be any JSON value: JSON.parse("null") returns null and a
// top-level string, number or array is returned as is. Only a null coming
// out of partial-json becomes {}. Non-finite numbers (partial-json accepts
// NaN and Infinity) are kept; they serialize as null.
func ParseStreamingJSON(s string) pi.JSONValue {
	if s == "" || isJSBlank(s) {
		return pi.EmptyObject()
	}
	if v, err := pi.ParseJSON(s); err == nil {
		return v
	}
	units := pi.ToUTF16(s)
	repaired, changed := repairJSON(units)
	if changed {
		if v, err := pi.ParseJSON(pi.FromUTF16(repaired)); err == nil {
			return v
		}
	}
	if v, err := partialParse(units); err == nil {
		return orEmpty(v)
	}
	if v, err := partialParse(repaired); err == nil {
		return orEmpty(v)
	}
	return pi.EmptyObject()
}

func orEmpty(v pi.JSONValue) pi.JSONValue {
	if v.Kind() == pi.Null || v.Kind() == pi.Undefined {
		return pi.EmptyObject()
	}
	return v
}

func isJSBlank(s string) bool {
	for _, c := range pi.ToUTF16(s) {
		if !pi.IsJSWhiteSpace(c) {
			return false
		}
	}
	return true
}

// jsTrim is String.prototype.trim on code units.
func jsTrim(u []uint16) []uint16 {
	for len(u) > 0 && pi.IsJSWhiteSpace(u[0]) {
		u = u[1:]
	}
	for len(u) > 0 && pi.IsJSWhiteSpace(u[len(u)-1]) {
		u = u[:len(u)-1]
	}
	return u
}

func isHex(c uint16) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// repairJSON is pi-ai's repairJson: inside string literals it escapes raw
// control characters and doubles a backslash that does not start a valid
// escape. It reports whether the output differs from the input.
func repairJSON(in []uint16) ([]uint16, bool) {
	out := make([]uint16, 0, len(in)+8)
	inString := false
	for i := 0; i < len(in); i++ {
		c := in[i]
		if !inString {
			out = append(out, c)
			inString = c == '"'
			continue
		}
		switch {
		case c == '"':
			out = append(out, c)
			inString = false
		case c == '\\':
			if i+1 >= len(in) {
				out = append(out, '\\', '\\')
				continue
			}
			next := in[i+1]
			if next == 'u' && i+6 <= len(in) && isHex(in[i+2]) && isHex(in[i+3]) && isHex(in[i+4]) && isHex(in[i+5]) {
				out = append(out, in[i:i+6]...)
				i += 5
				continue
			}
			switch next {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u':
				out = append(out, '\\', next)
				i++
			default:
				out = append(out, '\\', '\\')
			}
		case c < 0x20:
			switch c {
			case '\b':
				out = append(out, '\\', 'b')
			case '\f':
				out = append(out, '\\', 'f')
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				const hex = "0123456789abcdef"
				out = append(out, '\\', 'u', '0', '0', uint16(hex[c>>4]), uint16(hex[c&0xF]))
			}
		default:
			out = append(out, c)
		}
	}
	if len(out) != len(in) {
		return out, true
	}
	for i := range out {
		if out[i] != in[i] {
			return out, true
		}
	}
	return out, false
}

// errPartial stands for every exception partial-json throws (PartialJSON,
// MalformedJSON, a SyntaxError from JSON.parse): callers catch them alike.
var errPartial = errors.New("partial-json: cannot parse")
