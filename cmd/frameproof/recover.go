package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
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
	fset.SetOutput(stderr)
	apply := fset.Bool("apply", false, "commit each orphan's recovery transaction (fsynced), keeping a backup")
	backup := fset.String("backup", "", "backup path for --apply (default: SESSION.jsonl.bak; must not exist)")
	nowMs := fset.Int64("now", 0, "the recovery instant in Unix milliseconds (default: the clock; for reproducible output)")
	fset.Usage = func() {
		fmt.Fprintln(stderr, "usage: frameproof recover [--apply [--backup PATH]] [--now MS] SESSION.jsonl")
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		return exitUsage
	}
	if fset.NArg() != 1 {
		fset.Usage()
		return exitUsage
	}
	if *backup != "" && !*apply {
		fmt.Fprintln(stderr, "frameproof recover: --backup needs --apply")
		return exitUsage
	}
	path := fset.Arg(0)
	e := env.Production()
	if *nowMs != 0 {
		e.Clock = fixedNow{time.UnixMilli(*nowMs)}
	}
	var rep sessionrecovery.Report
	var err error
	if *apply {
		if *backup == "" {
			*backup = path + ".bak"
		}
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

type fixedNow struct{ t time.Time }

func (c fixedNow) Now() time.Time    { return c.t }
func (fixedNow) Sleep(time.Duration) {}
