package store

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/store/internal/jsonstr"
)

// splitRow is rowFields' one pass over a row its writer committed compact:
// it appends raw's members to fields and reports whether raw is an object
// validCompact accepts whose keys are plain (no escape, ASCII) and
// unrepeated, which is when walkCompactObject and its member function in
// rowFields take the same fields. On false, fields may hold some of raw's
// members; the caller starts again from its own copy.
func splitRow(fields []ObjectField, b []byte) ([]ObjectField, bool) {
	if len(b) < 2 || b[0] != '{' {
		return fields, false
	}
	if b[1] == '}' {
		return fields, len(b) == 2
	}
	var seen KeySet
	i := 1
	for {
		if i >= len(b) || b[i] != '"' {
			return fields, false
		}
		kend, ok := rowStringEnd(b, i)
		if !ok || kend >= len(b) || b[kend] != ':' {
			return fields, false
		}
		vend, ok := rowValueEnd(b, kend+1)
		if !ok || vend >= len(b) {
			return fields, false
		}
		key := b[i+1 : kend-1]
		for _, c := range key {
			if c == '\\' || c >= utf8.RuneSelf {
				return fields, false
			}
		}
		k := internKey(key)
		if seen.Add(k) {
			return fields, false
		}
		fields = append(fields, ObjectField{Key: k, Value: b[kend+1 : vend]})
		switch b[vend] {
		case ',':
			i = vend + 1
		case '}':
			return fields, vend+1 == len(b)
		default:
			return fields, false
		}
	}
}

// rowValueEnd is compactValueEnd(b, i, 1) without its recursion: the
// index after the compact value at b[i], and whether there is one. The
// containers open around the value being read are a stack of bits (set:
// an object), as deep as compactValueEnd goes below a row's members.
func rowValueEnd(b []byte, i int) (int, bool) {
	var stack [(maxCompactDepth + 63) / 64]uint64
	depth := 1 // the row's own object, which the caller walks
	var ok bool
	var c byte
value:
	if i >= len(b) {
		return i, false
	}
	switch c = b[i]; c {
	case '"':
		if i, ok = rowStringEnd(b, i); !ok {
			return i, false
		}
	case '{', '[':
		if depth >= maxCompactDepth {
			return i, false
		}
		i++
		if c == '{' {
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			stack[depth>>6] |= 1 << (depth & 63)
			depth++
			goto key
		}
		if i < len(b) && b[i] == ']' {
			i++
			break
		}
		stack[depth>>6] &^= 1 << (depth & 63)
		depth++
		goto value
	case 't':
		if i, ok = compactLiteralEnd(b, i, "true"); !ok {
			return i, false
		}
	case 'f':
		if i, ok = compactLiteralEnd(b, i, "false"); !ok {
			return i, false
		}
	case 'n':
		if i, ok = compactLiteralEnd(b, i, "null"); !ok {
			return i, false
		}
	default:
		if c != '-' && (c < '0' || c > '9') {
			return i, false
		}
		if i, ok = compactNumberEnd(b, i); !ok {
			return i, false
		}
	}
	// after a value: close the containers it ends
	for depth > 1 {
		if i >= len(b) {
			return i, false
		}
		d := depth - 1
		inObject := stack[d>>6]&(1<<(d&63)) != 0
		switch b[i] {
		case ',':
			i++
			if inObject {
				goto key
			}
			goto value
		case '}':
			if !inObject {
				return i, false
			}
		case ']':
			if inObject {
				return i, false
			}
		default:
			return i, false
		}
		i++
		depth--
	}
	return i, true
key:
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	if i, ok = rowStringEnd(b, i); !ok || i >= len(b) || b[i] != ':' {
		return i, false
	}
	i++
	goto value
}

// rowStringEnd is the index after the string literal at b[i] ('"'), and
// whether it is one: compactStringEnd, which reads again only a literal
// whose plain run stops at a backslash or a control.
func rowStringEnd(b []byte, i int) (int, bool) {
	j := i + 1
	if len(b)-j < 32 {
		return compactStringEnd(b, i) // at the end of the row
	}
	// keys and short values end within the first four words, tested
	// unrolled, without bounds checks (PlainEnd's loop instead cost about
	// 5% of a hundred rows' Prepare); a longer run is jsonstr's
	w := b[j : j+32 : j+32]
	if m := jsonstr.Special(binary.LittleEndian.Uint64(w)); m != 0 {
		return stringStop(b, i, j+bits.TrailingZeros64(m)>>3)
	}
	if m := jsonstr.Special(binary.LittleEndian.Uint64(w[8:])); m != 0 {
		return stringStop(b, i, j+8+bits.TrailingZeros64(m)>>3)
	}
	if m := jsonstr.Special(binary.LittleEndian.Uint64(w[16:])); m != 0 {
		return stringStop(b, i, j+16+bits.TrailingZeros64(m)>>3)
	}
	if m := jsonstr.Special(binary.LittleEndian.Uint64(w[24:])); m != 0 {
		return stringStop(b, i, j+24+bits.TrailingZeros64(m)>>3)
	}
	return stringStop(b, i, jsonstr.LongRunEnd(b, j+32))
}

// stringStop is rowStringEnd at b[k], the first quote, backslash or
// control byte of the literal at b[i] (len(b) when there is none).
func stringStop(b []byte, i, k int) (int, bool) {
	if k < len(b) && b[k] == '"' {
		return k + 1, true
	}
	return compactStringEnd(b, i)
}
