package pistorage_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/impl/store/serve"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/pistorage"
)

// serveEnv makes this test binary `frameproof serve store`: the adapter
// re-executes it with the flags below (no CLI build needed).
const serveEnv = "FRAMEPROOF_PISTORAGE_SERVE"

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
	if os.Getenv(serveEnv) == "repo" {
		repo, err := serve.OpenRepo(env.Production(), *backend, *dir, "", backends.Options{Sync: backends.SyncNever})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 4
		}
		if err := serve.ServeRepo(repo, *backend, "test", os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 4
		}
		return 0
	}
	st, err := serve.Open(env.Production(), *backend, *dir, backends.Options{Sync: backends.SyncNever})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	if err := serve.Serve(st, *backend, "test", os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	return 0
}

// TestPiStorageConformance runs pi's own storage suite,
// createStorageConformance (pi-agent-core 0.85.1,
// dist/harness/session/testing/conformance/storage.js), unmodified, against
// every backend in the registry, each served by this test binary, and
// fails naming each case that fails.
func TestPiStorageConformance(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	node := peer.RequireNode(t)
	self, err := os.Executable()
	require.NoError(t, err)
	for _, b := range backends.All() {
		t.Run(b.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cases, sum, err := pistorage.RunStorageConformance(ctx, node, dir,
				[]string{self, "--backend", b.Name, "--dir", "{dir}"}, append(os.Environ(), serveEnv+"=1"))
			require.NoError(t, err)
			require.NotEmpty(t, cases, "pi's suite reported no case")
			for _, c := range cases {
				if !c.OK {
					t.Errorf("pi storage conformance on %s: %s / %s failed:\n%s", b.Name, c.Group, c.Name, c.Error)
				}
			}
			t.Logf("%s: %d/%d of pi's storage cases pass", b.Name, sum.Passed, sum.Passed+sum.Failed)
		})
	}
}

// TestPiSessionRepoConformance runs pi's own session-repository suite,
// createSessionRepoConformance (pi-agent-core 0.85.1,
// dist/harness/session/testing/conformance/session-repo.js, 17 cases),
// unmodified, against every backend with a session repository (package
// impl/store/sessionrepo), each served by this test binary as `frameproof
// serve repo`, and fails naming each case that fails.
func TestPiSessionRepoConformance(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	node := peer.RequireNode(t)
	self, err := os.Executable()
	require.NoError(t, err)
	for _, b := range serve.RepoBackends {
		t.Run(b, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cases, sum, err := pistorage.RunSessionRepoConformance(ctx, node, dir,
				[]string{self, "--backend", b, "--dir", "{dir}"}, append(os.Environ(), serveEnv+"=repo"))
			require.NoError(t, err)
			require.NotEmpty(t, cases, "pi's suite reported no case")
			for _, c := range cases {
				if !c.OK {
					t.Errorf("pi session-repo conformance on %s: %s / %s failed:\n%s", b, c.Group, c.Name, c.Error)
				}
			}
			t.Logf("%s: %d/%d of pi's session-repo cases pass", b, sum.Passed, sum.Passed+sum.Failed)
		})
	}
}
