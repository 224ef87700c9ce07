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

	// A killer that fails on the unmutated code judges no mutant: the
	// environment class (4), not a failure found (issue 29 class 8).
	code, _, _ = run("mutate", "--root", "../../props/mutate/testdata/fixture", "--pkgs", "calc",
		"--killer", "go test -count=1 ./nonexistent")
	assert.Equal(t, exitCode(classEnvironment), code)

	code, _, _ = run("mutate", "--budget", "-1")
	assert.Equal(t, exitUsage, code)
	code, _, _ = run("mutate", "--no-such-flag")
	assert.Equal(t, exitUsage, code)
	code, _, _ = run("mutate", "stray")
	assert.Equal(t, exitUsage, code)
}

// Every argument is checked before the killer runs (issue 29 class 8: the
// killer's baseline ran first, and a killer that cannot build made every
// typo exit 1). The killer here would fail its baseline at once; a usage
// error (2) shows it never ran.
func TestMutateChecksArgumentsBeforeTheKiller(t *testing.T) {
	fixture := "../../props/mutate/testdata/fixture"
	killer := "go test -count=1 ./nonexistent"
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no such package": {[]string{"--pkgs", "nope"}, "package nope"},
		"empty package":   {[]string{"--pkgs", ""}, "package \"\""},
		"root":            {[]string{"--root", t.TempDir()}, "no go.mod"},
		"malformed id":    {[]string{"--mutants", "calc.go-8"}, "want file:line:OP@offset"},
		"unknown id":      {[]string{"--mutants", "calc/calc.go:999:COMPARE@1"}, "names no mutant"},
		"timeout 0":       {[]string{"--timeout", "0"}, "--timeout 0s: must be positive"},
		"min-score 150":   {[]string{"--min-score", "150"}, "want a percentage from 0 to 100"},
		"killer quote":    {[]string{"--killer", "go test '-run"}, "--killer: unterminated single quote"},
		"killer not go":   {[]string{"--killer", "make test"}, "must be a `go test` command"},
	} {
		t.Run(name, func(t *testing.T) {
			args := []string{"mutate", "--root", fixture, "--pkgs", "calc", "--killer", killer}
			code, stdout, stderr := run(append(args, tc.args...)...)
			assert.Equal(t, exitUsage, code, stdout+stderr)
			assert.Contains(t, stderr, tc.want)
			assert.NotContains(t, stderr, "unmutated", "the killer ran")
		})
	}
}
