package main

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const maxInt64 = "9223372036854775807"

// Every size bound takes its largest value and then accepts valid input
// (issue 29: maxLine+1 and io.LimitReader(n+1) overflowed, and valid input
// was refused: exit 1 in encode/reduce/project, 2 in merge and repro).
func TestBoundsAtTheirLargestValueAcceptValidInput(t *testing.T) {
	withSuite(t, fakeSuite{})
	require.Equal(t, strconv.FormatInt(math.MaxInt64, 10), maxInt64)
	examples := "../../corpus/examples/"
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(examples, name))
		require.NoError(t, err)
		return string(b)
	}
	for name, tc := range map[string]struct {
		stdin string
		args  []string
	}{
		"encode --max-line":   {read("events.jsonl"), []string{"encode", "--max-line", maxInt64}},
		"reduce --max-line":   {read("frames.jsonl"), []string{"reduce", "--max-line", maxInt64}},
		"project --max-input": {read("transcript.jsonl"), []string{"project", "--wire", "anthropic", "--max-input", maxInt64}},
		"repro --max-tape": {"", []string{"repro", "--tape", writeTape(t, validTape), "-q", "--max-tape", maxInt64,
			"--trace", filepath.Join(t.TempDir(), "t.jsonl"), "--html", filepath.Join(t.TempDir(), "r.html")}},
		"merge --max-input": {"", []string{"merge", "--max-input", maxInt64, writeShardReport(t, t.TempDir(), "0/1", nil)}},
	} {
		var out, errb bytes.Buffer
		code := dispatch(tc.args, strings.NewReader(tc.stdin), &out, &errb)
		assert.Equal(t, exitPass, code, "%s: %s", name, errb.String())
	}
}

// A line longer than the read buffer comes out whole, the same from a
// regular file (measured, then read again into a buffer of its size) as
// from a pipe (read in pieces, joined once).
func TestLongLinesReadTheSameFromAFileAndAPipe(t *testing.T) {
	long := strings.Repeat("é", 300_000) // 600 000 bytes, past the 64 KiB buffer
	in := "short\r\n" + long + "\n\n" + long + "x\r\n" + "last"
	want := []string{"short", long, long + "x", "last"}
	collect := func(r io.Reader) []string {
		var got []string
		require.NoError(t, forEachLine(r, 1<<20, func(_ int, line string) error {
			got = append(got, line)
			return nil
		}))
		return got
	}
	path := filepath.Join(t.TempDir(), "in.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("skip\n"+in), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Seek(int64(len("skip\n")), io.SeekStart) // stdin need not start at 0
	require.NoError(t, err)
	assert.Equal(t, want, collect(f), "regular file")
	assert.Equal(t, want, collect(io.MultiReader(strings.NewReader(in))), "pipe")

	// A line of exactly the bound passes; one byte more does not.
	err = forEachLine(strings.NewReader(long+"\n"), len(long), func(int, string) error { return nil })
	assert.NoError(t, err)
	err = forEachLine(strings.NewReader(long+"\n"), len(long)-1, func(int, string) error { return nil })
	assert.ErrorIs(t, err, errLineTooLong)
}

// readAtMost reads a file of its size hint into one buffer of that size,
// and refuses input over the bound having read at most one byte past it.
func TestReadAtMost(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 300_000) // 3 MB: several 1 MiB chunks
	b, err := readAtMost(bytes.NewReader(data), int64(len(data)), math.MaxInt64)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, b))
	assert.Equal(t, len(data)+1, cap(b), "one buffer of the file's size")
	b, err = readAtMost(io.MultiReader(bytes.NewReader(data)), 0, int64(len(data)))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, b))
	in := &countingReader{r: bytes.NewReader(data)}
	_, err = readAtMost(in, 0, 1000)
	assert.ErrorIs(t, err, errTooLarge)
	assert.Equal(t, 1001, in.n)
}
