// Package jsonstr finds the end of the plain run of a JSON string literal:
// the bytes up to the first quote, backslash or control byte, which is
// what every string scanner of the store (its row validation, the JSONL
// replay's scanner) steps over before it looks at a byte closely.
package jsonstr

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

const ones, highs = 0x0101010101010101, 0x8080808080808080

// Special flags the bytes of eight (little-endian) that are '"', '\\' or
// below 0x20, by their high bits (the classic SWAR has-zero-byte and
// has-less-than tests). A borrow can flag a byte above a flagged one
// falsely, never one below it, so the lowest flag is exact.
func Special(x uint64) uint64 {
	q, bs := x^('"'*ones), x^('\\'*ones)
	return ((q-ones)&^q | (bs-ones)&^bs | (x-0x20*ones)&^x) & highs
}

// control flags the bytes of eight that are below 0x20, as special does.
func control(x uint64) uint64 { return (x - 0x20*ones) &^ x & highs }

// shortRun is how many bytes PlainEnd tests a word at a time before it
// turns to the vector search, whose calls cost more than a short literal.
const shortRun = 32

// PlainEnd returns the index of the first byte of b at or after j that is
// '"', '\\' or below 0x20, or len(b) when there is none.
//
// Keys and ids end within their first words, which the word test finds at
// once. Past them, a message's text is a long run: the quote that may end
// it is found by bytes.IndexByte (vector instructions, many bytes a
// cycle), and only the run before it is searched for a backslash (again
// IndexByte) and tested for controls, one cheap test a word, where the
// three-way word test cost three times as much per byte.
func PlainEnd(b []byte, j int) int {
	for stop := min(len(b), j+shortRun); j+8 <= stop; j += 8 {
		if m := Special(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	if j+8 > len(b) {
		for j < len(b) && b[j] >= 0x20 && b[j] != '"' && b[j] != '\\' {
			j++
		}
		return j
	}
	return LongRunEnd(b, j)
}

// LongRunEnd is PlainEnd for a run already known to go on past its first
// words (a caller that tested them itself): the vector search for the
// quote, then the backslash before it, then the word test for controls.
func LongRunEnd(b []byte, j int) int {
	end := len(b)
	if q := bytes.IndexByte(b[j:], '"'); q >= 0 {
		end = j + q
	}
	if e := bytes.IndexByte(b[j:end], '\\'); e >= 0 {
		end = j + e
	}
	// four words a test while no control is among them
	for ; j+32 <= end; j += 32 {
		w := b[j : j+32]
		if control(binary.LittleEndian.Uint64(w))|control(binary.LittleEndian.Uint64(w[8:]))|
			control(binary.LittleEndian.Uint64(w[16:]))|control(binary.LittleEndian.Uint64(w[24:])) != 0 {
			break
		}
	}
	for ; j+8 <= end; j += 8 {
		if m := control(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	for ; j < end; j++ {
		if b[j] < 0x20 {
			return j
		}
	}
	return end
}

// Printable reports whether every byte of b is printable ASCII other than
// '"' and '\\' (0x20-0x7e): a JSON string's text that decodes to itself.
// A word is tested at once: any flag of Special, or of a byte from 0x7f
// (x+ones carries into the high bit), means a byte that is not plain; a
// carry out of one byte sets only flags above one already set.
func Printable(b []byte) bool {
	j := 0
	for ; j+8 <= len(b); j += 8 {
		x := binary.LittleEndian.Uint64(b[j:])
		if Special(x)|(x|(x+ones))&highs != 0 {
			return false
		}
	}
	for _, c := range b[j:] {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
