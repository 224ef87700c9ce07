package storeconform_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/faults"
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
	// faultsEnv serves the store on an armed file system with the "fault"
	// op, as frameproof serve store --faults does.
	faultsEnv = "FRAMEPROOF_STORECONFORM_FAULTS"
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
	e := env.Production()
	var inj serve.Injector
	if os.Getenv(faultsEnv) != "" {
		armed := faults.NewArmed(e.FS)
		e.FS, inj = armed, faults.Offer{Armed: armed}
	}
	st, err := serve.Open(e, *backend, *dir, backends.Options{Sync: backends.SyncNever})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	switch os.Getenv(brokenEnv) {
	case "drop-write":
		st = dropWrite{st}
	case "ack-faulted":
		st = ackFaulted{QueryStorage: st}
	}
	if err := serve.ServeFaulty(st, *backend, "test", inj, os.Stdin, os.Stdout); err != nil {
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

// ackFaulted is a broken store: a commit whose write failed is
// acknowledged anyway, with the seqs it would have had.
type ackFaulted struct {
	store.QueryStorage
}

func (a ackFaulted) Commit(ws []store.Write) (store.CommitResult, error) {
	next := a.QueryStorage.NextSeq()
	res, err := a.QueryStorage.Commit(ws)
	if errors.Is(err, faults.ErrInjected) {
		res = store.CommitResult{FirstSeq: next}
		for i := range ws {
			res.Seqs = append(res.Seqs, next+int64(i))
		}
		return res, nil
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
			var extra []string
			if b.EnvFS {
				extra = append(extra, faultsEnv+"=1")
			}
			hello, vs := run(t, selfSubject(t, b.Name, extra...), ciOptions(t))
			require.Equal(t, b.Durable, hello.Durable, "the hello's durability")
			for _, c := range storeconform.Cases() {
				v := vs[c.Name]
				want := storeconform.Pass
				if c.Durable && !b.Durable || c.Faults && !b.EnvFS {
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

// A server that acknowledges a commit whose write failed fails the
// storage-fault case (the served JSONL store itself refuses it).
func TestServerAckingAFaultedWriteFails(t *testing.T) {
	o := ciOptions(t)
	o.Only = []string{"storage faults"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, vs, err := storeconform.Run(ctx, selfSubject(t, "jsonl", faultsEnv+"=1", brokenEnv+"=ack-faulted"), o, nil)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	require.Equal(t, storeconform.Fail, vs[0].Status, "the storage-fault case passed a store that acknowledges failed writes")
	require.Contains(t, vs[0].Detail, "acknowledged")
}

// piFails is what frameproof's suite finds in pi's own stores
// (docs/PI-FINDINGS.md): the cases each store fails. Every other case
// passes (or, for the memory store, the durable ones are skipped).
var piFails = map[string][]string{
	"memory": {"refused writes apply nothing"},
	"jsonl":  {"refused writes apply nothing", "storage faults"},
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
				argv = append(argv, "--dir", "{dir}", "--faults")
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
				if c.Name == "storage faults" && want == storeconform.Fail {
					// the finding: after a short write pi acknowledges the next
					// commit behind the torn line, and the file no longer opens
					require.Contains(t, v.Detail, "short: the store does not restart after the fault", "pi %s", name)
				}
			}
		})
	}
}
