package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helpArgs is the command line that prints a registered command's --help,
// and the name its exit list is kept under.
func helpArgs(name string) (args []string, key string) {
	switch name {
	case "provider":
		return []string{"provider", "fuzz", "--help"}, providerWho
	case "corpus":
		return []string{"corpus", "run", "--help"}, "corpus run"
	case "serve":
		return []string{"serve", "store", "--help"}, "serve"
	}
	return []string{name, "--help"}, name
}

// subcommandHelps are the exit lists of a command's further subcommands
// with a flag set of their own, and the help that prints each.
var subcommandHelps = map[string][]string{
	"serve repo": {"serve", "repo", "--help"},
}

// The exit table is the one map from fault class to code: every class is
// named once, every code 0-4 has a class, the helpers return their class's
// code, every subcommand has an exit list of table classes, and its --help
// prints that list from the table (with what the codes cannot see), as the
// top-level help prints the whole table (issue 29 class 8).
func TestExitTable(t *testing.T) {
	seen := map[exitClassName]bool{}
	codes := map[int]bool{}
	for _, c := range exitTable {
		assert.False(t, seen[c.name], "class %s twice", c.name)
		seen[c.name] = true
		codes[c.code] = true
		assert.Equal(t, c.code, exitCode(c.name))
		assert.NotEmpty(t, c.meaning)
	}
	for code := exitPass; code <= exitIO; code++ {
		assert.True(t, codes[code], "no class exits %d", code)
	}
	assert.Equal(t, exitCode(classUsage), usageError(io.Discard, "x", "y"))
	assert.Equal(t, exitCode(classIO), ioError(io.Discard, "x", "y"))
	assert.Equal(t, exitCode(classEnvironment), envError(io.Discard, "x", "y"))
	assert.Panics(t, func() { exitCode("no-such-class") })

	_, top, _ := run("--help")
	for _, c := range exitTable {
		assert.Contains(t, top, exitLine(exitUse{class: c.name}))
	}
	assert.Contains(t, top, stdoutNote)

	listed := map[string]bool{}
	type helpCase struct {
		args []string
		key  string
	}
	var helps []helpCase
	for name := range commands {
		args, key := helpArgs(name)
		helps = append(helps, helpCase{args, key})
	}
	for key, args := range subcommandHelps {
		helps = append(helps, helpCase{args, key})
	}
	for _, h := range helps {
		args, key := h.args, h.key
		listed[key] = true
		uses, ok := commandExits[key]
		require.True(t, ok, "%s has no exit list", key)
		classes := map[exitClassName]bool{}
		for _, u := range uses {
			assert.True(t, seen[u.class], "%s: unknown class %s", key, u.class)
			classes[u.class] = true
		}
		for _, must := range []exitClassName{classPass, classUsage, classIO} {
			assert.True(t, classes[must], "%s: every command can end with %s", key, must)
		}
		code, stdout, stderr := run(args...)
		require.Equal(t, exitPass, code, "%v: %s", args, stderr)
		for _, u := range uses {
			assert.Contains(t, stdout, exitLine(u), "%v", args)
		}
		assert.Contains(t, stdout, stdoutNote, "%v", args)
	}
	for key := range commandExits {
		assert.True(t, listed[key], "exit list %s names no command", key)
	}
	// recover exits 1 on a torn tail; its help says so.
	_, help, _ := run("recover", "--help")
	assert.Contains(t, help, "torn tail")
}

// bench --pairs 0 is refused, not read as "the default, 3" (issue 29
// class 8: it ran full campaigns).
func TestBenchRefusesZeroPairs(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--family", "campaign", "--base", "/nonexistent/frameproof", "--pairs", "0"},
		{"bench", "--pairs", "0"},
	} {
		code, stdout, stderr := run(args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, stdout+stderr)
		assert.Contains(t, stderr, "--pairs must be at least 1", "%v", args)
	}
}

// conform --exec and provider fuzz --exec split their command with the
// same parser: a quoted path with a space runs in both (issue 29 class 9:
// provider fuzz split on blanks), and the child's garbage hello is exit 4,
// the environment class, in both (class 8: conform said 3).
func TestExecCommandsShareOneParserAndOneHelloCode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "an adapter dir")
	require.NoError(t, os.Mkdir(dir, 0o755))
	marker := filepath.Join(dir, "ran")
	adapter := filepath.Join(dir, "adapter.sh")
	require.NoError(t, os.WriteFile(adapter, []byte("#!/bin/sh\n: > '"+marker+"'\necho 'garbage, not a hello'\n"), 0o755))
	for _, args := range [][]string{
		{"conform", "--exec", "'" + adapter + "' --flag", "--ops", "parse"},
		{"provider", "fuzz", "--wire", "anthropic-messages", "--exec", "'" + adapter + "' --flag", "--seeds", "1", "--save", "0"},
	} {
		require.NoError(t, os.RemoveAll(marker))
		code, stdout, stderr := run(args...)
		assert.Equal(t, exitCode(classEnvironment), code, "%v: %s", args, stdout+stderr)
		assert.FileExists(t, marker, "%v did not run the quoted path", args)
		assert.Contains(t, stdout+stderr, "hello", "%v", args)
	}
}
