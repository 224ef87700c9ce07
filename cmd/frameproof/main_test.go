package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = dispatch(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageExitCodes(t *testing.T) {
	code, _, stderr := run()
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "usage: frameproof")

	code, _, stderr = run("no-such-command")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown command "no-such-command"`)

	code, stdout, _ := run("--help")
	assert.Equal(t, exitPass, code)
	for name := range commands {
		assert.Contains(t, stdout, "  "+name+" ", "the command list names every subcommand")
	}

	code, stdout, _ = run("version")
	assert.Equal(t, exitPass, code)
	assert.Contains(t, stdout, "frameproof ")

	code, _, _ = run("version", "extra")
	assert.Equal(t, exitUsage, code)
}
