package store

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// byteStringEnd is compactStringEnd one byte at a time, as it was before
// it skipped eight bytes at a time: the reference it must agree with.
func byteStringEnd(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); {
		switch c := b[j]; {
		case c == '"':
			return j + 1, true
		case c == '\\':
			if j+1 >= len(b) {
				return j, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if len(b)-j < 6 || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
					return j, false
				}
				j += 6
			default:
				return j, false
			}
		case c < 0x20:
			return j, false
		default:
			j++
		}
	}
	return len(b), false
}

// TestCompactStringEndSkipsOnlyPlainBytes: the run-skipping scan stops
// exactly where the byte scan does, in literals as short as a key and as
// long as a message, for every special byte at every
// offset among plain, high and boundary bytes (0x1f, 0x20, 0x7f, 0x80, 0xff).
func TestCompactStringEndSkipsOnlyPlainBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 26))
	alphabet := []byte{'x', ' ', 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xa0, 0xdf, 0xff, 0, '\n', '"', '\\', 'u', '0', 'a', '/', 'n'}
	for range 200_000 {
		n := rng.IntN([]int{40, 300}[rng.IntN(2)])
		rate := []int{4, 60}[rng.IntN(2)] // 1 in rate bytes is drawn from the alphabet
		b := make([]byte, 1+n)
		b[0] = '"'
		for k := 1; k <= n; k++ {
			if rng.IntN(rate) == 0 {
				b[k] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[k] = 'x'
			}
		}
		wantEnd, wantOK := byteStringEnd(b, 0)
		gotEnd, gotOK := compactStringEnd(b, 0)
		require.Equal(t, wantOK, gotOK, "%q", b)
		require.Equal(t, wantEnd, gotEnd, "%q", b)
	}
}
