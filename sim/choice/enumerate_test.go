package choice

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEnumerateVisitsEverySequenceOnce(t *testing.T) {
	var got []string
	runs, complete := Enumerate(0, func(c Source) {
		a := c.Intn("a", 2)
		s := string(rune('0' + a))
		if a == 1 {
			s += string(rune('0' + c.Intn("b", 3)))
		}
		got = append(got, s)
	})
	assert.True(t, complete)
	assert.Equal(t, 4, runs)
	assert.Equal(t, []string{"0", "10", "11", "12"}, got)

	runs, complete = Enumerate(2, func(c Source) { c.Intn("x", 10) })
	assert.Equal(t, 2, runs)
	assert.False(t, complete)
}

func TestFixedClamps(t *testing.T) {
	assert.Equal(t, 0, Fixed(0).Intn("", 5))
	assert.Equal(t, 4, Fixed(9).Intn("", 5))
	assert.Equal(t, 2, Fixed(2).Intn("", 5))
	assert.Equal(t, 0, Fixed(-1).Intn("", 5))
	assert.Equal(t, 0, Fixed(3).Intn("", 1))
}
