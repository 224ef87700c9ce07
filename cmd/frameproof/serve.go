package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/frameproof/frameproof/faults"
	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lineio"
	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/impl/store/serve"
)

func init() {
	register("serve", "serve store|repo: expose a store backend as pi's Storage (frameproof-store protocol), or a session repository as pi's SessionRepo (frameproof-session-repo), over stdio", runServe)
}

const serveUsage = "usage: frameproof serve store --backend NAME [--dir DIR] [--sync always|never] [--faults]"

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "repo" {
		return runServeRepo(args[1:], stdin, stdout, stderr)
	}
	if len(args) == 0 || args[0] != "store" {
		if len(args) > 0 && isHelpArg(args[0]) {
			fmt.Fprintln(stdout, serveUsage)
			fmt.Fprintln(stdout, serveRepoUsage)
			printExits(stdout, "serve")
			return exitPass
		}
		return usageError(stderr, "serve", "want the subcommand \"store\" or \"repo\" (%s; %s)", serveUsage, serveRepoUsage)
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	backend := fs.String("backend", "", "store backend: "+strings.Join(backends.Names(), ", "))
	dir := fs.String("dir", "", "directory holding the store's file (durable backends; created when absent, reopened when the file exists)")
	sync := fs.String("sync", "always", "when a commit reaches the disk: always (fsync before the ack) or never")
	withFaults := fs.Bool("faults", false, "offer the \"fault\" op, which fails the store's next file write or sync (backends doing their I/O through frameproof's file system: jsonl); for conform --suite store's storage-fault case")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "Reads one JSON request per stdin line and answers one JSON line each, after a hello")
		fmt.Fprintln(w, "line (package impl/store/serve documents the ops). corpus/peers/pi-agent-core/")
		fmt.Fprintln(w, "storage-adapter.mjs presents it to node as pi's Storage.")
	}
	if code := parseFlags(fs, args[1:], serveUsage, help, stdout, stderr); code >= 0 {
		return code
	}
	if code := noArgs(fs, stderr); code >= 0 {
		return code
	}
	b, err := backends.ByName(*backend)
	if err != nil {
		return usageError(stderr, "serve", "--backend: %v", err)
	}
	if *withFaults && !b.EnvFS {
		return usageError(stderr, "serve", "--faults: the %s backend writes no file through frameproof's file system, so no write of it can be failed (jsonl's can)", b.Name)
	}
	o := backends.Options{}
	switch *sync {
	case "always":
	case "never":
		o.Sync = backends.SyncNever
	default:
		return usageError(stderr, "serve", "--sync: want always or never, not %q", *sync)
	}
	e := env.Production()
	var inj serve.Injector
	if *withFaults {
		armed := faults.NewArmed(e.FS)
		e.FS, inj = armed, faults.Offer{Armed: armed, Syncs: o.Sync == backends.SyncAlways}
	}
	st, err := serve.Open(e, *backend, *dir, o)
	if err != nil {
		fmt.Fprintf(stderr, "frameproof serve: %v\n", err)
		return exitIO
	}
	return serveExit(stderr, "serve", serve.ServeFaulty(st, *backend, version, inj, stdin, stdout))
}

// serveExit is a server's exit: a request line over the protocol's bound
// is the caller's input over its bound (usage), anything else an I/O
// failure of stdin or stdout.
func serveExit(stderr io.Writer, who string, err error) int {
	var long *lineio.LineTooLongError
	switch {
	case err == nil:
		return exitPass
	case errors.As(err, &long):
		return usageError(stderr, who, "stdin: a request %v (the protocol's bound)", long)
	default:
		return ioError(stderr, who, "%v", err)
	}
}
