package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/impl/store/serve"
)

const serveRepoUsage = "usage: frameproof serve repo --backend jsonl|memory|sqlite [--dir DIR] [--cwd DIR] [--sync always|never]"

// runServeRepo is `frameproof serve repo`: a session repository (package
// impl/store/sessionrepo) over the frameproof-session-repo protocol.
func runServeRepo(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve repo", flag.ContinueOnError)
	backend := fs.String("backend", "", "session repository: "+strings.Join(serve.RepoBackends, ", "))
	dir := fs.String("dir", "", "the sessions root (jsonl: one directory per session cwd, pi's layout; sqlite: one database per session; created when absent)")
	cwd := fs.String("cwd", "", "the cwd of a session created without one (jsonl; default: the working directory)")
	sync := fs.String("sync", "always", "when a commit reaches the disk: always (fsync before the ack) or never")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "Serves pi's SessionRepo (create, open, list, delete, fork) and the Storage of every")
		fmt.Fprintln(w, "session it opens: one JSON request per stdin line, one JSON line each, after a hello")
		fmt.Fprintln(w, "line (impl/store/serve/repo.go documents the ops). corpus/peers/pi-agent-core/")
		fmt.Fprintln(w, "session-repo-adapter.mjs presents it to node as pi's SessionRepo.")
	}
	if code := parseFlags(fs, args, serveRepoUsage, help, stdout, stderr); code >= 0 {
		return code
	}
	if code := noArgs(fs, stderr); code >= 0 {
		return code
	}
	known := false
	for _, b := range serve.RepoBackends {
		known = known || b == *backend
	}
	if !known {
		return usageError(stderr, "serve repo", "--backend: want one of %s, not %q", strings.Join(serve.RepoBackends, ", "), *backend)
	}
	o := backends.Options{}
	switch *sync {
	case "always":
	case "never":
		o.Sync = backends.SyncNever
	default:
		return usageError(stderr, "serve repo", "--sync: want always or never, not %q", *sync)
	}
	if (*backend == "jsonl" || *backend == "sqlite") && *dir == "" {
		return usageError(stderr, "serve repo", "--backend %s needs --dir", *backend)
	}
	base, err := os.Getwd()
	if err != nil {
		return ioError(stderr, "serve repo", "working directory: %v", err)
	}
	root := *dir
	if root != "" && !filepath.IsAbs(root) {
		root = filepath.Join(base, root)
	}
	sessionCwd := base
	if *cwd != "" {
		sessionCwd = *cwd
		if !filepath.IsAbs(sessionCwd) {
			sessionCwd = filepath.Join(base, sessionCwd)
		}
	}
	repo, err := serve.OpenRepo(env.Production(), *backend, root, sessionCwd, o)
	if err != nil {
		return ioError(stderr, "serve repo", "%v", err)
	}
	return serveExit(stderr, "serve repo", serve.ServeRepo(repo, *backend, version, stdin, stdout))
}
