package main

import (
	"fmt"
	"io"
)

// exitClass is one kind of outcome and the exit code every subcommand gives
// it. exitTable is the one place that maps the one to the other: the
// helpers (usageError, ioError, envError, exitCode), the top-level help and
// every subcommand's --help derive from it, and TestExitTable walks it.
//
// What the codes cannot see: with stdout closed (`frameproof ... >&-`),
// the Go runtime reopens file descriptors 0-2 on /dev/null at start-up, so
// every write to stdout succeeds and the output is silently lost; the exit
// code is what it would have been. Redirect stdout to a file or a pipe to
// have an unwritable output reported (exit 4).
type exitClass struct {
	name    exitClassName // a subcommand's exit list names it
	code    int
	meaning string
}

// exitClassName names a class of exitTable: a typed name, so a misspelt
// class in a subcommand's exit list does not compile.
type exitClassName string

// The classes of exitTable.
const (
	classPass         exitClassName = "pass"
	classFailure      exitClassName = "failure"
	classUsage        exitClassName = "usage"
	classInconclusive exitClassName = "inconclusive"
	classInterrupted  exitClassName = "interrupted"
	classEnvironment  exitClassName = "environment"
	classIO           exitClassName = "io"
)

var exitTable = []exitClass{
	{classPass, exitPass, "pass: every check ran and held"},
	{classFailure, exitFail, "failure found: a check failed (printed with its reproduction), or the input is not what it must be"},
	{classUsage, exitUsage, "usage: a bad flag, value or argument (a named input missing, of the wrong type or over its bound)"},
	{classInconclusive, exitInconclusive, "inconclusive: no verdict (coverage goals not reached, checks not run); a budget that cuts a campaign short is a pass once its coverage goals are reached"},
	{classInterrupted, exitInconclusive, "interrupted: SIGINT or SIGTERM; children's process groups are killed and the report so far says \"interrupted\" (exit 1 if a failure was already found)"},
	{classEnvironment, exitIO, "environment: a toolchain, node, peer or adapter missing or unable to start, or a peer that broke the protocol (no hello, a garbage hello)"},
	{classIO, exitIO, "I/O: an input unreadable or an output (stdout, --junit, a report) unwritable"},
}

// stdoutNote is what the exit codes cannot see, printed with them.
const stdoutNote = "stdout closed (>&-) is reopened on /dev/null by the Go runtime: every write succeeds and is lost, unseen by the exit code."

// exitCode is the code of a class; an unknown class is a programming error.
func exitCode(class exitClassName) int {
	for _, c := range exitTable {
		if c.name == class {
			return c.code
		}
	}
	panic("frameproof: no exit class " + string(class))
}

// exitUse is one class a subcommand can end with, and what it means there
// ("" for the table's meaning alone).
type exitUse struct {
	class exitClassName
	here  string
}

// commandExits lists, per subcommand (its flag set's name), the classes it
// can end with. Every command writes stdout, so every list holds io.
var commandExits = map[string][]exitUse{
	"bench": {{classPass, ""}, {classUsage, ""}, {classInterrupted, ""},
		{classEnvironment, "a family cannot run (no node or peer, a --base binary that fails)"}, {classIO, ""}},
	"conform": {{classPass, "every vector (--suite store: every case that applies) passed"}, {classFailure, "a vector's output differs, or a store case fails"}, {classUsage, ""},
		{classInconclusive, "a vector or store case not run, or an implementation error"}, {classInterrupted, ""},
		{classEnvironment, "the --exec command not started, or no or a garbage hello"}, {classIO, "vectors unreadable"}},
	"corpus run": {{classPass, ""}, {classFailure, "an entry does not hold"}, {classUsage, ""},
		{classIO, "the corpus, a family or an entry file missing or unreadable"}},
	"encode": {{classPass, ""}, {classFailure, "a line is not a valid event"}, {classUsage, ""}, {classIO, "stdin unreadable"}},
	"reduce": {{classPass, ""}, {classFailure, "a line is not a valid frame"}, {classUsage, ""}, {classIO, "stdin unreadable"}},
	"merge": {{classPass, ""}, {classFailure, "a shard found a failure"}, {classUsage, "reports of different campaigns"},
		{classInconclusive, "a race order no shard took, or a shard missing"}, {classIO, ""}},
	"mutate": {{classPass, ""}, {classFailure, "a package scores below --min-score"}, {classUsage, "also a --root, --pkgs, --mutants or --killer that names nothing, checked before the killer runs"},
		{classInterrupted, ""}, {classEnvironment, "the killer fails or cannot build on the unmutated code"}, {classIO, ""}},
	"pi-recovery-sweep": {{classPass, "pi and frameproof agree at every crash point"}, {classFailure, "a crash point where they disagree"}, {classUsage, ""},
		{classEnvironment, "node or the pi-agent-core peer missing or not installable, or the sweep script broke"}, {classIO, ""}},
	"project": {{classPass, ""}, {classFailure, "the transcript is invalid or projects to nothing"}, {classUsage, ""}, {classIO, "stdin unreadable"}},
	"provider fuzz": {{classPass, ""}, {classFailure, "a stream broke a rule"}, {classUsage, ""}, {classInterrupted, ""},
		{classEnvironment, "the adapter or --peer not started, or no or a garbage hello"}, {classIO, "--corpus not writable"}},
	"recover": {{classPass, "clean, or recovered with --apply"}, {classFailure, "orphans, broken rules, a torn tail, or a file pi could not open (named by line)"},
		{classUsage, ""}, {classIO, ""}},
	"repro": {{classPass, "the seed or tape passes"}, {classFailure, "it fails (or replays differently)"}, {classUsage, "also a file that is not a tape"},
		{classEnvironment, "--bug without a Go toolchain or the module's source"}, {classIO, ""}},
	"serve": {{classPass, "stdin ended and every request was answered"}, {classUsage, "also a request line over 256 MiB"},
		{classIO, "the store cannot be opened, or stdin/stdout failed"}},
	"serve repo": {{classPass, "stdin ended and every request was answered"}, {classUsage, "also a request line over 256 MiB"},
		{classIO, "the sessions root cannot be created, or stdin/stdout failed"}},
	"shrink": {{classPass, "the seed does not fail: nothing to shrink"}, {classFailure, "the shrunk tape is written"}, {classUsage, ""},
		{classEnvironment, "--bug without a Go toolchain or the module's source"}, {classIO, ""}},
	"sim": {{classPass, ""}, {classFailure, ""}, {classUsage, ""}, {classInconclusive, "a race row missed an order, or a cell did not run"},
		{classInterrupted, ""}, {classEnvironment, "--bug without a Go toolchain or the module's source; --subject pi without node, its peer, or a driver that says hello"}, {classIO, ""}},
	"version": {{classPass, ""}, {classUsage, ""}, {classIO, ""}},
}

// exitLine is one class's line in --help.
func exitLine(use exitUse) string {
	for _, c := range exitTable {
		if c.name == use.class {
			line := fmt.Sprintf("  %d  %s", c.code, c.meaning)
			if use.here != "" {
				line += "; here: " + use.here
			}
			return line
		}
	}
	panic("frameproof: no exit class " + string(use.class))
}

// printExits prints the exit codes of the command whose flag set is named
// name (nothing for a name without a list).
func printExits(w io.Writer, name string) {
	uses, ok := commandExits[name]
	if !ok {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "exit codes:")
	for _, u := range uses {
		fmt.Fprintln(w, exitLine(u))
	}
	fmt.Fprintln(w, "  ("+stdoutNote+")")
}

// printExitTable prints the whole table (the top-level help).
func printExitTable(w io.Writer) {
	fmt.Fprintln(w, "exit codes (every command; its --help lists its own):")
	for _, c := range exitTable {
		fmt.Fprintln(w, exitLine(exitUse{class: c.name}))
	}
	fmt.Fprintln(w, "Run the built binary: `go run` turns every non-zero exit into 1.")
	fmt.Fprintln(w, "Not seen: "+stdoutNote)
}

// envError prints "frameproof WHO: message" and returns the environment
// class's code (a toolchain, node, peer or adapter missing or broken).
func envError(stderr io.Writer, who, format string, a ...any) int {
	fmt.Fprintf(stderr, "frameproof %s: %s\n", who, fmt.Sprintf(format, a...))
	return exitCode(classEnvironment)
}

// commandWords splits a command flag's value (--exec, --killer) into its
// argv with splitWords, the one parser every such flag uses: quotes keep a
// path with blanks in one word. An empty command is an error.
func commandWords(flagName, s string) ([]string, error) {
	argv, err := splitWords(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flagName, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s: empty command", flagName)
	}
	return argv, nil
}
