package main

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/frameproof/frameproof/impl/lineio"
	"github.com/frameproof/frameproof/impl/store/serve"
)

// A request line over the protocol's bound is the caller's input over its
// bound: exit 2 as the exit table says, not the I/O class of a failed
// stdin or stdout (a review's finding: serve exited 4).
func TestServeExitClassesALongLineAsUsage(t *testing.T) {
	var stderr bytes.Buffer
	long := fmt.Errorf("serve: read: %w", &lineio.LineTooLongError{Max: serve.MaxLine})
	assert.Equal(t, exitUsage, serveExit(&stderr, "serve", long))
	assert.Contains(t, stderr.String(), "frameproof serve: stdin: a request line longer than 268435456 bytes (the protocol's bound)")
	assert.Equal(t, exitIO, serveExit(&stderr, "serve repo", errors.New("serve: write: broken pipe")))
	assert.Equal(t, exitPass, serveExit(&stderr, "serve", nil))
}
