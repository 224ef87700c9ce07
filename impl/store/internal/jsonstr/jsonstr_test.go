package jsonstr

import (
	"math/rand"
	"testing"
)

// plainEndReference is PlainEnd one byte at a time.
func plainEndReference(b []byte, j int) int {
	for ; j < len(b); j++ {
		if c := b[j]; c < 0x20 || c == '"' || c == '\\' {
			return j
		}
	}
	return len(b)
}

// PlainEnd agrees with the byte loop for runs of every length, wherever the
// first special byte falls: in the first word, in the run the vector
// search covers, before or after a later quote, or nowhere.
func TestPlainEndAgreesWithByteLoop(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	plain := []byte("abcxyz0189 \x7f\x80\xff\xc3\xa9/u")
	special := []byte("\"\\\x00\x1f\n\t")
	for range 200_000 {
		b := make([]byte, rng.Intn(300))
		rate := 1 + rng.Intn(200) // 1 in rate bytes is special
		for k := range b {
			if rng.Intn(rate) == 0 {
				b[k] = special[rng.Intn(len(special))]
			} else {
				b[k] = plain[rng.Intn(len(plain))]
			}
		}
		j := 0
		if len(b) > 0 {
			j = rng.Intn(len(b) + 1)
		}
		if got, want := PlainEnd(b, j), plainEndReference(b, j); got != want {
			t.Fatalf("PlainEnd(%q, %d) = %d, byte loop %d", b, j, got, want)
		}
	}
}
