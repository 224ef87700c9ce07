// Package lineio reads the line-delimited protocols frameproof speaks
// (frameproof serve's requests, its peers' and drivers' replies) with a
// bound, so a peer that writes without end cannot take the reader's
// memory with it.
package lineio

import (
	"bufio"
	"bytes"
	"fmt"
)

// ReadLine reads one line without its newline, refusing one longer than
// max bytes (the bound counts the newline) with a *LineTooLongError.
// A long line is kept as the reader's chunks and joined once at its end,
// so a line over the bound costs at most the bound (growing one slice by
// append would leave each outgrown copy behind: 3.3x the bound at 300 MB).
func ReadLine(r *bufio.Reader, max int) ([]byte, error) {
	var chunks [][]byte
	n := 0
	for {
		chunk, err := r.ReadSlice('\n')
		if n += len(chunk); n > max {
			return nil, &LineTooLongError{Max: max}
		}
		if err == bufio.ErrBufferFull {
			chunks = append(chunks, bytes.Clone(chunk))
			continue
		}
		line := make([]byte, 0, n)
		for _, c := range chunks {
			line = append(line, c...)
		}
		return bytes.TrimSuffix(append(line, chunk...), []byte("\n")), err
	}
}

// LineTooLongError is a protocol line over its bound: the peer's input,
// not an I/O failure.
type LineTooLongError struct{ Max int }

func (e *LineTooLongError) Error() string { return fmt.Sprintf("line longer than %d bytes", e.Max) }
