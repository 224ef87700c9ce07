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
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

func init() {
	register("recover", "inspect a pi JSONL session for orphaned frame lists and broken rules; --apply recovers them", runRecover)
}

// defaultMaxSession bounds the session file recover reads whole.
const defaultMaxSession = 1 << 30

// runRecover prints what recovery would commit for SESSION.jsonl without
// writing it, or with --apply commits it (fsynced) after a backup.
// Exit codes: 0 clean or applied, 1 orphans or broken rules found (or a
// file that cannot be replayed), 2 usage, 4 I/O.
func runRecover(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("recover", flag.ContinueOnError)
	apply := fset.Bool("apply", false, "commit each orphan's recovery transaction (fsynced), keeping a backup")
	backup := fset.String("backup", "", "backup path for --apply (default: SESSION.jsonl.bak; must not exist)")
	nowMs := fset.Int64("now", 0, "the recovery instant in Unix milliseconds (default: the clock; for reproducible output)")
	maxInput := fset.Int64("max-input", defaultMaxSession, "largest session file accepted, in bytes (the whole file is read, as pi's open does)")
	usageLine := "usage: frameproof recover [--apply [--backup PATH]] [--now MS] [--max-input N] SESSION.jsonl"
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
	case *maxInput <= 0:
		return usageError(stderr, "recover", "--max-input must be positive, got %d", *maxInput)
	}
	path, mode, size, err := sessionFile(fset.Arg(0))
	if err != nil {
		return ioError(stderr, "recover", "%v", err)
	}
	if size > *maxInput {
		return usageError(stderr, "recover", "%s: larger than --max-input %d bytes", fset.Arg(0), *maxInput)
	}
	if *apply {
		if *backup == "" {
			*backup = path + ".bak"
		}
		if code := checkApply(path, mode, *backup, stderr); code >= 0 {
			return code
		}
	}
	e := env.Production()
	if *nowMs != 0 {
		e.Clock = sessionrecovery.FrozenClock{T: time.UnixMilli(*nowMs)}
	}
	var rep sessionrecovery.Report
	if *apply {
		rep, err = sessionrecovery.Apply(e, path, *backup, sessionrecovery.Options{MaxFileBytes: *maxInput})
		// The store's torn-tail repair renames a fresh file over the session
		// and Apply copies it to the backup: both keep the session's own mode.
		restoreMode(stderr, path, mode)
		restoreMode(stderr, *backup, mode)
	} else {
		rep, err = sessionrecovery.Inspect(e, path, sessionrecovery.Options{MaxFileBytes: *maxInput})
	}
	if err != nil {
		fmt.Fprintf(stderr, "frameproof recover: %s\n", withCause(err))
		if *apply {
			if _, serr := os.Lstat(*backup); serr == nil {
				fmt.Fprintf(stderr, "frameproof recover: the file as it was before --apply is at %s\n", *backup)
			}
		}
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
		if rep.BackedUp {
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
	fmt.Fprintln(w, "A symbolic link is followed: the file it names is read and, with --apply, written.")
}

// sessionFile resolves SESSION to the regular file it names (following
// symbolic links, so --apply writes the file pi opens rather than replacing
// the link) and returns its permission bits. Anything else (a FIFO, a
// directory, a device) is refused before it is opened: reading a FIFO would
// block forever.
func sessionFile(arg string) (string, fs.FileMode, int64, error) {
	path, err := filepath.EvalSymlinks(arg)
	if err != nil {
		return "", 0, 0, fmt.Errorf("%s: %w", arg, unwrapPath(err))
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", 0, 0, fmt.Errorf("%s: %w", arg, unwrapPath(err))
	}
	if !info.Mode().IsRegular() {
		return "", 0, 0, fmt.Errorf("%s: not a regular file (%s)", arg, info.Mode().Type())
	}
	return path, info.Mode().Perm(), info.Size(), nil
}

// checkApply validates everything --apply will write before anything is
// read or written: the session must be writable by its mode bits (root
// ignores them, and the store's torn-tail repair replaces the file by
// rename, so nothing else would stop it), its directory must take new
// files, the store's staging file SESSION.tmp must not exist (the repair
// would overwrite it), and the backup must be new and elsewhere.
func checkApply(session string, mode fs.FileMode, backup string, stderr io.Writer) int {
	if mode&0o222 == 0 {
		return ioError(stderr, "recover", "%s is read-only (mode %04o): make it writable to --apply", session, mode)
	}
	if err := probeDir(filepath.Dir(session)); err != nil {
		return ioError(stderr, "recover", "%s: %v", session, err)
	}
	staging := session + ".tmp"
	if abs(backup) == abs(staging) {
		return usageError(stderr, "recover", "--backup %s: is the store's staging file for the session, which --apply may overwrite", backup)
	}
	if _, err := os.Lstat(staging); err == nil {
		return ioError(stderr, "recover", "%s exists: --apply may replace it while repairing a torn tail (move it away first)", staging)
	}
	return checkBackup(session, backup, stderr)
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// restoreMode gives path back the session's permission bits; a failure is
// reported, not fatal (the data is written either way).
func restoreMode(stderr io.Writer, path string, mode fs.FileMode) {
	if err := os.Chmod(path, mode); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "frameproof recover: keep mode %04o on %s: %v\n", mode, path, unwrapPath(err))
	}
}

// withCause spells out a JSONL storage error's cause: pi's own message
// ("Invalid JSONL storage PATH: line N") names the line but not what is
// wrong with it.
func withCause(err error) string {
	var se *jsonl.StorageError
	if errors.As(err, &se) && se.Cause != nil {
		return err.Error() + ": " + se.Cause.Error()
	}
	return err.Error()
}

// checkBackup validates the --apply backup path before anything is read or
// written: it must differ from the session, must not exist, and its
// directory must take new files. Returns -1 to go on, else the exit code.
func checkBackup(session, backup string, stderr io.Writer) int {
	if real, err := filepath.EvalSymlinks(backup); err == nil && abs(real) == abs(session) || abs(backup) == abs(session) {
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
