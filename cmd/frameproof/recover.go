package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/sessionrecovery"
)

func init() {
	register("recover", "inspect a pi JSONL session for orphaned frame lists and broken rules; --apply recovers them", runRecover)
}

// runRecover prints what recovery would commit for SESSION.jsonl without
// writing it, or with --apply commits it (fsynced) after a backup.
// Exit codes: 0 clean or applied, 1 orphans or broken rules found (or a
// file that cannot be replayed), 2 usage, 4 I/O.
func runRecover(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("recover", flag.ContinueOnError)
	apply := fset.Bool("apply", false, "commit each orphan's recovery transaction (fsynced), keeping a backup")
	backup := fset.String("backup", "", "backup path for --apply (default: SESSION.jsonl.bak; must not exist)")
	nowMs := fset.Int64("now", 0, "the recovery instant in Unix milliseconds (default: the clock; for reproducible output)")
	usageLine := "usage: frameproof recover [--apply [--backup PATH]] [--now MS] SESSION.jsonl"
	if code := parseFlags(fset, args, usageLine, recoverHelp, stdout, stderr); code >= 0 {
		return code
	}
	switch {
	case fset.NArg() == 0:
		return usageError(stderr, "recover", "missing SESSION.jsonl (see frameproof recover --help)")
	case fset.NArg() > 1:
		return usageError(stderr, "recover", "unexpected argument %q", fset.Arg(1))
	case *backup != "" && !*apply:
		return usageError(stderr, "recover", "--backup needs --apply")
	case *nowMs < 0:
		return usageError(stderr, "recover", "--now: must not be negative, got %d", *nowMs)
	}
	path := fset.Arg(0)
	if *apply {
		if *backup == "" {
			*backup = path + ".bak"
		}
		if code := checkBackup(path, *backup, stderr); code >= 0 {
			return code
		}
	}
	e := env.Production()
	if *nowMs != 0 {
		e.Clock = fixedNow{time.UnixMilli(*nowMs)}
	}
	var rep sessionrecovery.Report
	var err error
	if *apply {
		rep, err = sessionrecovery.Apply(e, path, *backup)
	} else {
		rep, err = sessionrecovery.Inspect(e, path)
	}
	if err != nil {
		fmt.Fprintf(stderr, "frameproof recover: %v\n", err)
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) || errors.Is(err, fs.ErrExist) {
			return exitIO
		}
		return exitFail
	}
	if err := sessionrecovery.Render(stdout, path, rep, *apply); err != nil {
		fmt.Fprintf(stderr, "frameproof recover: writing output: %v\n", err)
		return exitIO
	}
	switch {
	case *apply:
		if *backup != "" {
			fmt.Fprintf(stderr, "frameproof recover: backup kept at %s\n", *backup)
		}
		if len(rep.Broken) > 0 {
			return exitFail // recovery cannot repair a broken rule
		}
		return exitPass
	case rep.Clean():
		return exitPass
	}
	return exitFail
}

// recoverHelp follows the flag list in --help.
func recoverHelp(w io.Writer) {
	fmt.Fprintln(w, "SESSION.jsonl is a pi session file (one JSON entry a line, a header first).")
	fmt.Fprintln(w, "Exit codes: 0 clean or applied, 1 orphans or broken rules found, 2 usage, 4 I/O.")
}

// checkBackup validates the --apply backup path before anything is read or
// written: it must differ from the session, must not exist, and its
// directory must take new files. Returns -1 to go on, else the exit code.
func checkBackup(session, backup string, stderr io.Writer) int {
	if filepath.Clean(backup) == filepath.Clean(session) {
		return usageError(stderr, "recover", "--backup %s: is the session file itself", backup)
	}
	if _, err := os.Lstat(backup); err == nil {
		return ioError(stderr, "recover", "--backup %s: already exists (remove it or pick another path)", backup)
	}
	if err := checkOutputFile("--backup", backup); err != nil {
		return ioError(stderr, "recover", "%v", err)
	}
	return -1
}

type fixedNow struct{ t time.Time }

func (c fixedNow) Now() time.Time    { return c.t }
func (fixedNow) Sleep(time.Duration) {}
