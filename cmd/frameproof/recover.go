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
	path, mode, size, code, err := sessionFile(fset.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "frameproof recover: %v\n", err)
		return code
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
		// The lock is held for the whole apply: a second recover --apply
		// is refused, and Apply checks the file's identity and size under
		// it before and after each change (pi appends without a lock).
		lock, err := env.LockFile(path)
		if errors.Is(err, env.ErrLocked) {
			return ioError(stderr, "recover", "%s: locked by another process (another recover --apply?); nothing changed", fset.Arg(0))
		}
		if err != nil {
			return ioError(stderr, "recover", "%s: %v", fset.Arg(0), unwrapPath(err))
		}
		defer lock.Close()
		rep, err = sessionrecovery.Apply(e, path, *backup, sessionrecovery.Options{MaxFileBytes: *maxInput, Guard: lock})
		// Apply copies the session to the backup: it keeps the session's mode.
		restoreMode(stderr, *backup, mode)
		if err == nil && rep.BackedUp {
			err = checkBackupKept(lock, *backup, rep.BackupBytes)
		}
		if err != nil {
			return applyError(stderr, err, *backup)
		}
	} else {
		rep, err = sessionrecovery.Inspect(e, path, sessionrecovery.Options{MaxFileBytes: *maxInput})
	}
	if err != nil {
		fmt.Fprintf(stderr, "frameproof recover: %s\n", withCause(err))
		return recoverErrorCode(err)
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

// applyError reports a failed --apply, naming the backup only when it is
// there, and returns its exit code.
func applyError(stderr io.Writer, err error, backup string) int {
	fmt.Fprintf(stderr, "frameproof recover: %s\n", withCause(err))
	if info, serr := os.Lstat(backup); serr == nil && info.Mode().IsRegular() {
		fmt.Fprintf(stderr, "frameproof recover: the file as it was before --apply is at %s\n", backup)
	}
	return recoverErrorCode(err)
}

// recoverErrorCode is 4 for an I/O error or a session another process
// changed, 1 for a file that cannot be replayed.
func recoverErrorCode(err error) int {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) || errors.Is(err, fs.ErrExist) || errors.Is(err, sessionrecovery.ErrChanged) {
		return exitIO
	}
	return exitFail
}

// checkBackupKept verifies, before the CLI says so, that the backup Apply
// wrote is there: a regular file of the size copied, and not the session.
func checkBackupKept(lock *env.LockedFile, backup string, size int64) error {
	info, err := os.Lstat(backup)
	if err != nil {
		return fmt.Errorf("recover: backup %s: not kept: %w", backup, err)
	}
	if !info.Mode().IsRegular() || info.Size() != size {
		return fmt.Errorf("recover: backup %s: not kept: %s of %d bytes, not the %d copied", backup, info.Mode().Type(), info.Size(), size)
	}
	if same, err := lock.SameFile(backup); err != nil || same {
		return fmt.Errorf("recover: backup %s: not kept: it is the session file", backup)
	}
	return nil
}

// recoverHelp follows the flag list in --help.
func recoverHelp(w io.Writer) {
	fmt.Fprintln(w, "SESSION.jsonl is a pi session file (one JSON entry a line, a header first).")
	fmt.Fprintln(w, "A symbolic link is followed: the file it names is read and, with --apply, written.")
	fmt.Fprintln(w, "--apply holds an exclusive lock (flock) on the session while it runs, drops a torn tail")
	fmt.Fprintln(w, "in place, and refuses (exit 4) when the file is locked or another process writes to it.")
}

// sessionFile resolves SESSION to the regular file it names (following
// symbolic links, so --apply writes the file pi opens rather than replacing
// the link) and returns its permission bits. Anything else (a FIFO, a
// directory, a device) is refused before it is opened: reading a FIFO would
// block forever.
func sessionFile(arg string) (string, fs.FileMode, int64, int, error) {
	path, err := filepath.EvalSymlinks(arg)
	if err == nil {
		var info fs.FileInfo
		if info, err = os.Stat(path); err == nil {
			if !info.Mode().IsRegular() {
				return "", 0, 0, exitUsage, fmt.Errorf("%s: %w", arg, notRegular(info))
			}
			return path, info.Mode().Perm(), info.Size(), -1, nil
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, 0, exitUsage, fmt.Errorf("%s: no such file", arg)
	}
	return "", 0, 0, exitIO, fmt.Errorf("%s: %w", arg, unwrapPath(err))
}

// checkApply validates everything --apply will write before anything is
// read or written: the session must be writable by its mode bits (root
// ignores them), its directory must take new files, and the backup must be
// new and elsewhere. The torn-tail repair truncates the session in place
// (under its lock), so the store's staging file SESSION.tmp is not written;
// it is still refused as the backup, whatever path reaches it.
func checkApply(session string, mode fs.FileMode, backup string, stderr io.Writer) int {
	if mode&0o222 == 0 {
		return ioError(stderr, "recover", "%s is read-only (mode %04o): make it writable to --apply", session, mode)
	}
	if err := probeDir(filepath.Dir(session)); err != nil {
		return ioError(stderr, "recover", "%s: %v", session, err)
	}
	if sameEntry(backup, session+".tmp") {
		return usageError(stderr, "recover", "--backup %s: is the store's staging file for the session", backup)
	}
	return checkBackup(session, backup, stderr)
}

// sameEntry reports whether paths a and b name one directory entry: their
// directories, with every symbolic link resolved, are one directory (by
// device and inode) and their last elements are equal; or both name one
// existing file (by device and inode, links followed).
func sameEntry(a, b string) bool {
	if ia, err := os.Stat(a); err == nil {
		if ib, err := os.Stat(b); err == nil && os.SameFile(ia, ib) {
			return true
		}
	}
	if abs(a) == abs(b) {
		return true
	}
	da, ea := resolveEntry(a)
	db, eb := resolveEntry(b)
	if ea != eb || ea == "" {
		return false
	}
	ia, err := os.Stat(da)
	if err != nil {
		return da == db
	}
	ib, err := os.Stat(db)
	return err == nil && os.SameFile(ia, ib)
}

// resolveEntry splits p into its directory, symbolic links resolved, and
// its last element; a last element that is itself a link is followed.
func resolveEntry(p string) (dir, name string) {
	for range 40 { // a loop of links ends somewhere
		dir, name = filepath.Split(abs(p))
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		target, err := os.Readlink(filepath.Join(dir, name))
		if err != nil {
			return dir, name
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		p = target
	}
	return dir, name
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
	if sameEntry(backup, session) {
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
