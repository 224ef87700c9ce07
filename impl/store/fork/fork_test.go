package fork

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

const (
	root    = "root"
	child   = "child"
	sibling = "sibling"
)

func entry(id string, parent *string, seq int64) store.StoredEntry {
	p := "null"
	if parent != nil {
		p = fmt.Sprintf("%q", *parent)
	}
	raw := fmt.Sprintf(`{"id":%q,"parentId":%s,"type":"custom","customType":"x"}`, id, p)
	return store.StoredEntry{Entry: store.Entry{ID: id, ParentID: parent, Raw: json.RawMessage(raw)}, Seq: seq, Timestamp: 100 + seq}
}

func val(ns, key, raw string, seq int64) store.StoredValue {
	return store.StoredValue{Address: store.Address{Namespace: ns, Key: key, Kind: store.KindValue}, Value: json.RawMessage(raw), Seq: seq}
}

func ptr(s string) *string { return &s }

const config = `{"model":{"provider":"p","modelId":"m"},"thinkingLevel":"off","activeToolNames":[]}`

// source is the shape of pi's suite's fork cases (testing/conformance/
// session-repo.js): root with two children, main on sibling, a configured
// review lane on child, a data-only notes branch.
func source() Source {
	return Source{
		Entries: []store.StoredEntry{entry(root, nil, 1), entry(child, ptr(root), 2), entry(sibling, ptr(root), 3)},
		Values: []store.StoredValue{
			val(NSBranchTip, "main", `"sibling"`, 4),
			val(NSBranchTip, "review", `"child"`, 5),
			val(NSLaneConfig, "review", config, 6),
			val(NSLaneState, "review", `{"currentOperationId":"op","lastOperationId":"prev","inbox":[]}`, 7),
			val(NSResult, "prev", `{}`, 8),
			val(NSSessionName, "", `"name"`, 9),
			val("test.application.value", "", `{"copied":true}`, 10),
			val(NSEntryLabel, root, `"root label"`, 11),
			val(NSEntryLabel, sibling, `"sibling label"`, 12),
			val("pi.pending.entry", "p", `{}`, 13),
			val("pi.op.state", "op", `{}`, 14),
			val(NSBranchTip, "notes", `"root"`, 15),
		},
	}
}

func addrs(vs []store.StoredValue) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = fmt.Sprintf("%d %s/%s=%s", v.Seq, v.Address.Namespace, v.Address.Key, v.Value)
	}
	return out
}

// pi: session/fork.ts createForkSnapshot, scope "tree" — every entry keeps
// its seq; per source tip (in source order) the tip, and for a configured
// lane its configuration and an idle lane state; then every copied value
// (session name, labels of copied entries, application values) in source
// order; nextSeq follows the last.
func TestCreateTreeFork(t *testing.T) {
	snap, err := Create(source(), Options{Scope: ScopeTree})
	require.NoError(t, err)
	require.Len(t, snap.Entries, 3)
	assert.Equal(t, int64(2), snap.Entries[1].Seq)
	assert.Equal(t, []string{
		`4 pi.branch.tip/main="sibling"`,
		`5 pi.branch.tip/review="child"`,
		`6 pi.lane.config/review=` + config,
		`7 pi.lane.state/review={"currentOperationId":null,"lastOperationId":null,"inbox":[]}`,
		`8 pi.branch.tip/notes="root"`,
		`9 pi.session.name/="name"`,
		`10 test.application.value/={"copied":true}`,
		`11 pi.entry.label/root="root label"`,
		`12 pi.entry.label/sibling="sibling label"`,
	}, addrs(snap.Values))
	assert.Equal(t, int64(13), snap.NextSeq)
	ws := snap.Writes()
	require.Len(t, ws, 12)
	for i := 1; i < len(ws); i++ {
		assert.Less(t, ws[i-1].Seq, ws[i].Seq, "forkSnapshotWrites sorts by seq")
	}
	st, err := snap.State()
	require.NoError(t, err)
	assert.Equal(t, int64(13), st.NextSeq())
}

// pi: session/fork.ts selectForkContents, scope "branch" at an entry — the
// entry and its ancestors, the one branch's tip, configuration and idle
// state; application values, other branches and labels of entries left
// behind are not copied (fork-policy.ts classifyForkAddress).
func TestCreateBranchForkAt(t *testing.T) {
	snap, err := Create(source(), Options{Scope: ScopeBranch, Branch: "review", EntryID: ptr(child), Position: At})
	require.NoError(t, err)
	ids := []string{}
	for _, e := range snap.Entries {
		ids = append(ids, e.Entry.ID)
	}
	assert.Equal(t, []string{root, child}, ids)
	assert.Equal(t, []string{
		`3 pi.branch.tip/review="child"`,
		`4 pi.lane.config/review=` + config,
		`5 pi.lane.state/review={"currentOperationId":null,"lastOperationId":null,"inbox":[]}`,
		`6 pi.session.name/="name"`,
		`7 pi.entry.label/root="root label"`,
	}, addrs(snap.Values))
	assert.Equal(t, int64(8), snap.NextSeq)
}

// pi: session/fork.ts selectForkContents — position "before" stops at the
// selected entry's parent; before the root the tip is null.
func TestCreateBranchForkBefore(t *testing.T) {
	snap, err := Create(source(), Options{Scope: ScopeBranch, Branch: "review", EntryID: ptr(child), Position: Before})
	require.NoError(t, err)
	require.Len(t, snap.Entries, 1)
	assert.Equal(t, `"root"`, string(snap.Values[0].Value))

	snap, err = Create(source(), Options{Scope: ScopeBranch, Branch: "review", EntryID: ptr(root), Position: Before})
	require.NoError(t, err)
	assert.Empty(t, snap.Entries)
	assert.Equal(t, `null`, string(snap.Values[0].Value))
	assert.Equal(t, int64(1), snap.Values[0].Seq, "nextSeq starts at max(0, ...entry seqs) + 1")
}

// pi's error strings: session/fork.ts selectForkContents and
// validateForkSourceSnapshot, fork-policy.ts classifyForkAddress.
func TestCreateErrors(t *testing.T) {
	base := source()
	withValue := func(v store.StoredValue) Source {
		s := source()
		s.Values = append(s.Values, v)
		return s
	}
	for _, tc := range []struct {
		name string
		src  Source
		opts Options
		want string
	}{
		{"unknown branch", base, Options{Scope: ScopeBranch, Branch: "nope"}, "Unknown source branch: nope"},
		{"data-only branch", base, Options{Scope: ScopeBranch, Branch: "notes"}, `Source branch "notes" is not a configured AgentLane`},
		{"off branch", base, Options{Scope: ScopeBranch, Branch: "review", EntryID: ptr(sibling)}, `Fork entry sibling is not on source branch "review"`},
		{"unknown entry", base, Options{Scope: ScopeBranch, Branch: "review", EntryID: ptr("x")}, `Fork entry x is not on source branch "review"`},
		{"reserved namespace", withValue(val("pi", "", "true", 20)), Options{Scope: ScopeTree}, "Unknown reserved fork namespace: pi"},
		{"reserved sub-namespace", withValue(val("pi.unknown", "", "true", 20)), Options{Scope: ScopeBranch, Branch: "review"}, "Unknown reserved fork namespace: pi.unknown"},
		{"config without tip", withValue(val(NSLaneConfig, "ghost", config, 20)), Options{Scope: ScopeTree}, `Source session branch "ghost" is missing branch.tip`},
		{"config without state", withValue(val(NSLaneConfig, "main", config, 20)), Options{Scope: ScopeTree}, `Source session branch "main" has incomplete lane state`},
		{"unknown tip", withValue(val(NSBranchTip, "lost", `"gone"`, 20)), Options{Scope: ScopeTree}, `Source session branch "lost" has an unknown tip`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Create(tc.src, tc.opts)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
	// An unknown branch with no tip at all (pi's "Unknown source branch").
	src := Source{Values: []store.StoredValue{}}
	_, err := Create(src, Options{Scope: ScopeBranch, Branch: "main"})
	require.EqualError(t, err, "Unknown source branch: main")
}

// pi: fork.ts validateForkSourceSnapshot — a lane state without its
// configuration is refused unless UnconfiguredLanes (frameproof's lanes
// write none), which rebuilds the state idle.
func TestUnconfiguredLanes(t *testing.T) {
	src := Source{
		Entries: []store.StoredEntry{entry(root, nil, 1)},
		Values:  []store.StoredValue{val(NSBranchTip, "main", `"root"`, 2), val(NSLaneState, "main", `{"x":1}`, 3)},
	}
	_, err := Create(src, Options{Scope: ScopeTree})
	require.EqualError(t, err, `Source session branch "main" has incomplete lane state`)
	snap, err := Create(src, Options{Scope: ScopeTree, UnconfiguredLanes: true})
	require.NoError(t, err)
	assert.Equal(t, []string{
		`2 pi.branch.tip/main="root"`,
		`3 pi.lane.state/main={"currentOperationId":null,"lastOperationId":null,"inbox":[]}`,
	}, addrs(snap.Values))
}

// pi: fork-policy.ts classifyForkAddress.
func TestClassify(t *testing.T) {
	never := func(string) bool { return false }
	for _, tc := range []struct {
		ns    string
		scope Scope
		want  Action
	}{
		{NSSessionName, ScopeBranch, Copy},
		{NSEntryLabel, ScopeTree, Exclude},
		{NSBranchTip, ScopeTree, Reconstruct},
		{NSLaneConfig, ScopeTree, Reconstruct},
		{NSLaneState, ScopeTree, Reconstruct},
		{NSResult, ScopeTree, Exclude},
		{"pi.op.meta", ScopeTree, Exclude},
		{"pi.pending.assistant_frame", ScopeTree, Exclude},
		{"app", ScopeTree, Copy},
		{"app", ScopeBranch, Exclude},
		{"pix", ScopeTree, Copy},
	} {
		got, err := Classify(tc.ns, "k", tc.scope, never)
		require.NoError(t, err, tc.ns)
		assert.Equal(t, tc.want, got, tc.ns)
	}
}
