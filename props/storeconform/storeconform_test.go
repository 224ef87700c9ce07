package storeconform_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/impl/store/serve"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/storeconform"
)

// serveEnv makes this test binary `frameproof serve store`; brokenEnv adds
// a deliberate defect to the store it serves.
const (
	serveEnv  = "FRAMEPROOF_STORECONFORM_SERVE"
	brokenEnv = "FRAMEPROOF_STORECONFORM_BROKEN"
)

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		os.Exit(serveMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func serveMain(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	backend := fs.String("backend", "", "")
	dir := fs.String("dir", "", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	st, err := serve.Open(env.Production(), *backend, *dir, backends.Options{Sync: backends.SyncNever})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	if os.Getenv(brokenEnv) == "drop-write" {
		st = dropWrite{st}
	}
	if err := serve.Serve(st, *backend, "test", os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	return 0
}

// dropWrite is a broken store: of a commit of two or more writes it commits
// all but the last and acknowledges the seqs of all of them.
type dropWrite struct{ store.QueryStorage }

func (d dropWrite) Commit(ws []store.Write) (store.CommitResult, error) {
	if len(ws) < 2 {
		return d.QueryStorage.Commit(ws)
	}
	res, err := d.QueryStorage.Commit(ws[:len(ws)-1])
	if err == nil {
		res.Seqs = append(res.Seqs, res.FirstSeq+int64(len(ws)-1))
	}
	return res, err
}

func selfSubject(t *testing.T, backend string, extraEnv ...string) storeconform.Subject {
	self, err := os.Executable()
	require.NoError(t, err)
	return storeconform.Subject{
		Argv: []string{self, "--backend", backend, "--dir", "{dir}"},
		Env:  append(append(os.Environ(), serveEnv+"=1"), extraEnv...),
	}
}

// budgetEnv set to "large" runs the suite at the CLI's default size
// (frameproof conform --suite store: 20 state machine runs of about 30
// steps, 12 kills per kill case) instead of the CI size below; against
// pi's JsonlStorage that takes a few minutes (node starts once per run
// and per kill).
const budgetEnv = "FRAMEPROOF_STORECONFORM_BUDGET"

// ciOptions keep each run to a few seconds (node starts in about 0.3 s).
func ciOptions(t *testing.T) storeconform.Options {
	if os.Getenv(budgetEnv) == "large" {
		return storeconform.Options{Seed: 1, TempDir: t.TempDir()}
	}
	return storeconform.Options{Checks: 3, Steps: 12, KillCommits: 4, Seed: 1, TempDir: t.TempDir(), ShrinkTime: time.Second}
}

func run(t *testing.T, s storeconform.Subject, o storeconform.Options) (storeconform.Hello, map[string]storeconform.Verdict) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	hello, vs, err := storeconform.Run(ctx, s, o, nil)
	require.NoError(t, err)
	require.Len(t, vs, len(storeconform.Cases()))
	out := map[string]storeconform.Verdict{}
	for _, v := range vs {
		t.Logf("%-8s %-32s %6.2fs %s", v.Status, v.Name, v.Duration.Seconds(), firstLine(v.Detail))
		out[v.Name] = v
	}
	return hello, out
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// Frameproof's own served backends pass every case that applies to them
// (the kill and reopen cases run on the durable ones).
func TestOwnServedStoresPass(t *testing.T) {
	for _, b := range backends.All() {
		t.Run(b.Name, func(t *testing.T) {
			hello, vs := run(t, selfSubject(t, b.Name), ciOptions(t))
			require.Equal(t, b.Durable, hello.Durable, "the hello's durability")
			for _, c := range storeconform.Cases() {
				v := vs[c.Name]
				want := storeconform.Pass
				if c.Durable && !b.Durable {
					want = storeconform.Skipped
				}
				require.Equal(t, want, v.Status, "%s: %s", c.Name, v.Detail)
			}
		})
	}
}

// A server that drops the last write of each multi-write commit (and
// acknowledges it) fails the state machine and the kill cases.
func TestBrokenServerFails(t *testing.T) {
	_, vs := run(t, selfSubject(t, "jsonl", brokenEnv+"=drop-write"), ciOptions(t))
	for _, name := range []string{"state machine", "state machine with reopen", "kill after every commit"} {
		require.Equal(t, storeconform.Fail, vs[name].Status, "%s passed a store that drops writes", name)
	}
}

// piFails is what frameproof's suite finds in pi's own stores
// (docs/PI-FINDINGS.md): the cases each store fails. Every other case
// passes (or, for the memory store, the durable ones are skipped).
var piFails = map[string][]string{
	"memory": {"refused writes apply nothing"},
	"jsonl":  {"refused writes apply nothing"},
}

// pi's JsonlStorage and MemoryStorage (pi-agent-core 0.85.1), served by
// corpus/peers/pi-agent-core/store-driver.mjs, against frameproof's suite.
func TestPiStores(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	node := peer.RequireNode(t)
	for _, name := range []string{"jsonl", "memory"} {
		t.Run(name, func(t *testing.T) {
			argv := []string{node, filepath.Join(dir, "store-driver.mjs"), "--store", name}
			if name == "jsonl" {
				argv = append(argv, "--dir", "{dir}")
			}
			hello, vs := run(t, storeconform.Subject{Argv: argv}, ciOptions(t))
			require.Equal(t, "pi-agent-core", hello.Implementation)
			require.Equal(t, name == "jsonl", hello.Durable)
			fails := map[string]bool{}
			for _, f := range piFails[name] {
				fails[f] = true
			}
			for _, c := range storeconform.Cases() {
				v := vs[c.Name]
				want := storeconform.Pass
				switch {
				case fails[c.Name]:
					want = storeconform.Fail
				case c.Durable && !hello.Durable:
					want = storeconform.Skipped
				}
				require.Equal(t, want, v.Status, "pi %s, %s: %s", name, c.Name, v.Detail)
			}
		})
	}
}
