package pi

// ContentIndex is an event's or frame's contentIndex. pi validates it with
// Number.isSafeInteger(i) && i >= 0 only when the codec uses it, so a decoded
// out-of-range value is carried along as its JS rendering in Invalid.
type ContentIndex struct {
	N       int
	Invalid string // non-empty: the JS String() of a value that is not a valid index
}

// Index returns a valid ContentIndex for n (negative n stays invalid).
func Index(n int) ContentIndex { return ContentIndex{N: n} }

// Valid reports whether pi's assertContentIndex accepts it.
func (c ContentIndex) Valid() bool { return c.Invalid == "" && c.N >= 0 && c.N <= 1<<53-1 }

// JS is the index as a JS template literal renders it.
func (c ContentIndex) JS() string {
	if c.Invalid != "" {
		return c.Invalid
	}
	return FormatNumber(float64(c.N))
}

func (c ContentIndex) appendJSON(dst []byte) []byte {
	if c.Invalid == "" && c.N >= 0 && c.N < 10 {
		return append(dst, byte('0'+c.N)) // the common case, without float formatting
	}
	if c.Invalid != "" {
		// Only numbers round-trip; other renderings are written as strings.
		if v, err := ParseJSON(c.Invalid); err == nil && v.kind == Number {
			return append(dst, c.Invalid...)
		}
		return AppendQuote(dst, c.Invalid)
	}
	return AppendNumber(dst, float64(c.N))
}
