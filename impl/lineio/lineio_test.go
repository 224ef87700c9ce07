package lineio

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endless is a line that never ends, counting what was read of it.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.read += len(p)
	return len(p), nil
}

// A line over the bound is refused as such, after reading no more than the
// bound and one buffer of it: an endless line cannot grow the reader.
func TestReadLineStopsAtItsBound(t *testing.T) {
	const max, buf = 1 << 20, 4 << 10
	src := &endless{}
	line, err := ReadLine(bufio.NewReaderSize(src, buf), max)
	var long *LineTooLongError
	require.True(t, errors.As(err, &long), "want a LineTooLongError, got %v", err)
	assert.Equal(t, max, long.Max)
	assert.Nil(t, line)
	assert.LessOrEqual(t, src.read, max+buf, "read past the bound")
}

// The bound counts the newline; lines within it come out whole, without
// their newline, and the last one without a newline too.
func TestReadLineWithinItsBound(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader(strings.Repeat("a", 40)+"\n"+"bcd"), 16)
	line, err := ReadLine(r, 41)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("a", 40), string(line))
	line, err = ReadLine(r, 41)
	assert.Equal(t, io.EOF, err)
	assert.Equal(t, "bcd", string(line))

	_, err = ReadLine(bufio.NewReaderSize(strings.NewReader(strings.Repeat("a", 40)+"\n"), 16), 40)
	var long *LineTooLongError
	assert.True(t, errors.As(err, &long), "40 bytes and a newline are over a bound of 40")
}
