package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// frameproof mutate end to end on the mutation tester's fixture module: the
// equivalent Max mutant survives and is printed as a diff; a failing
// killer baseline is a failure (1); bad flags are usage errors (2).
func TestMutateCommand(t *testing.T) {
	code, stdout, stderr := run("mutate", "--root", "../../props/mutate/testdata/fixture", "--pkgs", "calc",
		"--budget", "0", "--killer", "go test -count=1 ./check")
	assert.Equal(t, exitPass, code, stderr)
	assert.Regexp(t, `calc\s+5\s+5\s+4\s+0\s+1\s+0\s+80%`, stdout)
	assert.Contains(t, stdout, "survived calc/calc.go:8:COMPARE@")
	assert.Contains(t, stdout, "+\tif a >= b {")

	code, _, _ = run("mutate", "--root", "../../props/mutate/testdata/fixture", "--pkgs", "calc",
		"--killer", "go test -count=1 ./nonexistent")
	assert.Equal(t, exitFail, code)

	code, _, _ = run("mutate", "--budget", "-1")
	assert.Equal(t, exitUsage, code)
	code, _, _ = run("mutate", "--no-such-flag")
	assert.Equal(t, exitUsage, code)
	code, _, _ = run("mutate", "stray")
	assert.Equal(t, exitUsage, code)
}
