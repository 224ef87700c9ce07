// Command frameproof is the CLI over frameproof's library packages: flags in,
// library calls, results out. Each subcommand lives in its own file and
// registers itself in commands.
//
// Exit codes: 0 pass, 1 failure, 2 usage error, 3 inconclusive or
// interrupted, 4 an I/O or environment error (output or artifact not
// written, peer not started); exitTable (exitcodes.go) maps every fault
// class to its code, and says what the codes cannot see (a closed stdout).
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// Exit codes shared by every subcommand.
const (
	exitPass         = 0
	exitFail         = 1
	exitUsage        = 2
	exitInconclusive = 3
	exitIO           = 4
)

// command is one subcommand. run gets the arguments after the subcommand
// name and returns the process exit code.
type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands is filled by init functions in the subcommand files.
var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdin io.Reader, stdout, stderr io.Writer) int) {
	if _, dup := commands[name]; dup {
		panic("frameproof: subcommand registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// dispatch runs the subcommand named by args[0]; tests call it directly.
func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	if isHelpArg(args[0]) {
		out := &checkedWriter{w: stdout}
		usage(out)
		return outputCode(exitPass, out.Err())
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "frameproof: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	out := &checkedWriter{w: stdout}
	code := cmd.run(args[1:], stdin, out, stderr)
	if err := out.Err(); err != nil {
		fmt.Fprintf(stderr, "frameproof %s: writing output: %v\n", args[0], err)
		return outputCode(code, err)
	}
	return code
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: frameproof <command> [flags]")
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "")
	printExitTable(w)
}
