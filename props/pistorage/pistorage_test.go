package pistorage_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/impl/store/fork"
	"github.com/frameproof/frameproof/impl/store/serve"
	"github.com/frameproof/frameproof/impl/store/sessionrepo"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/peer/procgroup"
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

// TestPiJsonlSessionRepoReadsFrameproofSessions: pi's own JsonlSessionRepo
// (session/jsonl/repo.ts list, open) lists the sessions frameproof's JSONL
// repository wrote, in pi's layout and file names, with the same metadata,
// and opens a tree fork of one with its entries, tips, lane state and
// nextSeq.
func TestPiJsonlSessionRepoReadsFrameproofSessions(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	node := peer.RequireNode(t)
	root := t.TempDir()
	repo, err := sessionrepo.NewJSONL(env.Production(), sessionrepo.JSONLOptions{Root: filepath.Join(root, "sessions"), Cwd: "/workspace"})
	require.NoError(t, err)
	src, err := repo.Create(sessionrepo.CreateOptions{ID: "source/1"})
	require.NoError(t, err)
	rootID := "r"
	_, err = src.Storage.Commit([]store.Write{
		store.InsertEntry(store.Entry{ID: rootID, Raw: json.RawMessage(`{"id":"r","parentId":null,"type":"custom","customType":"root"}`)}),
		store.SetValueRaw(store.Address{Namespace: fork.NSBranchTip, Key: "main", Kind: store.KindValue}, json.RawMessage(`"r"`)),
		store.SetValueRaw(store.Address{Namespace: fork.NSLaneConfig, Key: "main", Kind: store.KindValue},
			json.RawMessage(`{"model":{"provider":"p","modelId":"m"},"thinkingLevel":"off","activeToolNames":[]}`)),
		store.SetValueRaw(store.Address{Namespace: fork.NSLaneState, Key: "main", Kind: store.KindValue},
			json.RawMessage(`{"currentOperationId":"op","lastOperationId":null,"inbox":[]}`)),
		store.SetValueRaw(store.Address{Namespace: "pi.session.name", Kind: store.KindValue}, json.RawMessage(`"n"`)),
	})
	require.NoError(t, err)
	f, err := repo.Fork(src.Metadata, sessionrepo.ForkOptions{ID: "fork", Options: fork.Options{Scope: fork.ScopeTree}})
	require.NoError(t, err)
	require.NoError(t, src.Close())
	require.NoError(t, f.Close())
	ours, err := repo.List(sessionrepo.ListOptions{})
	require.NoError(t, err)
	want, err := json.Marshal(ours)
	require.NoError(t, err)

	script := `
import { JsonlSessionRepo, BACKGROUND_CONTEXT as C } from "@earendil-works/pi-agent-core";
import { NodeExecutionEnv } from "@earendil-works/pi-agent-core/harness/env/nodejs";
import { laneState } from "@earendil-works/pi-agent-core/harness/session";
const repo = new JsonlSessionRepo({ fileSystem: new NodeExecutionEnv({ cwd: process.argv[1] }), sessionsRoot: "sessions" });
const listed = await repo.list(undefined, C);
const fork = await repo.open(listed.find((m) => m.id === "fork"), C);
const entries = (await fork.findEntries({ order: "asc" }, C)).map((e) => e.id);
const tip = await (await fork.branch("main", C)).getTipId(C);
const state = (await fork.getValue(laneState("main"), C)).value;
const next = await fork.mutate((m) => m.commit([], C), C);
console.log(JSON.stringify({ listed, entries, tip, state, name: await fork.getName(C), firstSeq: next.firstSeq }));
await fork.close(C);
`
	cmd := procgroup.CommandContext(context.Background(), node, "--input-type=module", "-e", script, root)
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	var got struct {
		Listed   json.RawMessage
		Entries  []string
		Tip      string
		State    json.RawMessage
		Name     string
		FirstSeq int64
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	assert.JSONEq(t, string(want), string(got.Listed), "pi's list of frameproof's sessions")
	assert.Equal(t, []string{"r"}, got.Entries)
	assert.Equal(t, "r", got.Tip)
	assert.JSONEq(t, `{"currentOperationId":null,"lastOperationId":null,"inbox":[]}`, string(got.State))
	assert.Equal(t, "n", got.Name)
	assert.Equal(t, f.Storage.NextSeq(), got.FirstSeq, "the fork's header nextSeq")
}

// TestPiJsonlSessionRepoListsV3Alike: pi's JsonlSessionRepo.list and
// frameproof's JSONL repository list the same v3 legacy files with the
// same metadata (session/jsonl/legacy-v3.ts metadataFromLegacyV3Header:
// createdAt from the v3 timestamp, a parentSession resolved to its
// header's id, v4 or v3, or kept as legacyParentSessionPath), and open
// one, importing it, with the same stats (the usage summed from its v3
// records).
func TestPiJsonlSessionRepoListsV3Alike(t *testing.T) {
	dir := peer.Require(t, peer.PiAgentCore)
	node := peer.RequireNode(t)
	root := t.TempDir()
	sessions := filepath.Join(root, "sessions", sessionrepo.SessionDirectoryName("/workspace"))
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	write := func(name, content string) string {
		p := filepath.Join(sessions, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	v4 := write("v4.jsonl", `{"v":4,"kind":"header","id":"v4-parent","storageVersion":1,"createdAt":7,"cwd":"/workspace"}`+"\n")
	v3 := write("v3.jsonl", `{"type":"session","version":3,"id":"v3-parent","timestamp":"2024-05-01T10:00:00.000Z","cwd":"/workspace","parentSession":"`+v4+`"}`+"\n")
	write("child.jsonl", `{"type":"session","version":3,"id":"child","timestamp":"2024-05-02T10:00:00.123Z","cwd":"/workspace","parentSession":"`+v3+`"}`+"\n"+
		`{"type":"model_change","id":"m","parentId":null,"timestamp":"2024-05-02T10:00:00.123Z","provider":"p","modelId":"m"}`+"\n"+
		`{"type":"message","id":"a","parentId":"m","timestamp":"2024-05-02T10:00:01.000Z","message":{"role":"assistant","content":[],"usage":{"input":3,"output":4,"cacheRead":0,"cacheWrite":0,"reasoning":1,"totalTokens":7,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.30000000000000004}},"stopReason":"stop","timestamp":1}}`+"\n")
	write("orphan.jsonl", `{"type":"session","version":3,"id":"orphan","timestamp":"2023-01-01T00:00:00Z","cwd":"/workspace","parentSession":"/nowhere/x.jsonl"}`+"\n")

	repo, err := sessionrepo.NewJSONL(env.Production(), sessionrepo.JSONLOptions{Root: filepath.Join(root, "sessions"), Cwd: "/workspace"})
	require.NoError(t, err)
	ours, err := repo.List(sessionrepo.ListOptions{})
	require.NoError(t, err)
	want, err := json.Marshal(ours)
	require.NoError(t, err)
	var child sessionrepo.Metadata
	for _, m := range ours {
		if m.ID == "child" {
			child = m
		}
	}
	s, err := repo.Open(child)
	require.NoError(t, err)
	stats, err := s.Storage.GetStats()
	require.NoError(t, err)
	wantStats, _ := stats.MarshalJSON()
	require.NoError(t, s.Close())

	script := `
import { JsonlSessionRepo, BACKGROUND_CONTEXT as C } from "@earendil-works/pi-agent-core";
import { NodeExecutionEnv } from "@earendil-works/pi-agent-core/harness/env/nodejs";
const repo = new JsonlSessionRepo({ fileSystem: new NodeExecutionEnv({ cwd: process.argv[1] }), sessionsRoot: "sessions" });
const listed = await repo.list(undefined, C);
const child = await repo.open(listed.find((m) => m.id === "child"), C);
console.log(JSON.stringify({ listed, stats: await child.storage.getStats(C) }));
await child.close(C);
`
	cmd := procgroup.CommandContext(context.Background(), node, "--input-type=module", "-e", script, root)
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	var got struct {
		Listed json.RawMessage
		Stats  json.RawMessage
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	assert.JSONEq(t, string(want), string(got.Listed), "pi's list of the v3 files")
	assert.JSONEq(t, string(wantStats), string(got.Stats), "the imported session's stats")
}
