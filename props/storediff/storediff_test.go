// Package storediff compares every store backend with model/store, the
// sequential specification written from pi's storage rules, read by read:
// commit results and rejections, values, prefix scans, and list pages
// through every cursor, order and limit (including the 10,000 clamp).
package storediff

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/impl/store/memory"
	"github.com/frameproof/frameproof/impl/store/sqlite"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/props/crash"
)

var backends = map[string]func(t *testing.T) store.Storage{
	"memory": func(*testing.T) store.Storage { return memory.New(env.SystemClock{}) },
	"jsonl": func(t *testing.T) store.Storage {
		s, err := jsonl.Create(env.Production(), filepath.Join(t.TempDir(), "s.jsonl"), jsonl.Header{ID: "s", CreatedAt: 1, Cwd: "/"}, jsonl.Options{})
		require.NoError(t, err)
		return s
	},
	"sqlite": func(t *testing.T) store.Storage {
		s, err := sqlite.Open(filepath.Join(t.TempDir(), "s.db"), env.SystemClock{}, sqlite.Options{})
		require.NoError(t, err)
		return s
	},
}

// limits are the read limits tried: unset (1000), small pages, the clamp
// edge, above it, and the invalid negative.
var limits = []int{0, 1, 2, 3, 10_000, 10_001, 20_000, -1}

func TestBackendsMatchModel(t *testing.T) {
	seeds, commits := 6, 60
	if testing.Short() {
		seeds, commits = 2, 40
	}
	for _, name := range []string{"memory", "jsonl", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			for seed := uint64(0); seed < uint64(seeds); seed++ {
				s := backends[name](t)
				d := &differ{t: t, s: s, spec: mstore.New(), r: rand.New(rand.NewPCG(seed, 7)), where: fmt.Sprintf("%s seed %d", name, seed)}
				g := crash.NewGen(seed)
				for i := 0; i < commits; i++ {
					d.commit(g.Commit())
					d.reads()
				}
				d.rejections()
				got, err := crash.ReadSnapshot(s)
				require.NoError(t, err)
				require.Empty(t, cmp.Diff(crash.ModelSnapshot(d.spec), got), d.where)
				d.bulk()
				require.NoError(t, s.Close())
			}
		})
	}
}

type differ struct {
	t     *testing.T
	s     store.Storage
	spec  *mstore.Spec
	r     *rand.Rand
	where string
}

// commit applies one transaction to both and compares the results.
func (d *differ) commit(ws []mstore.Write) {
	res, err := d.s.Commit(crash.ToStore(ws))
	want, wantErr := d.spec.Clone().Commit(ws, res.Timestamp)
	if wantErr != nil {
		require.Error(d.t, err, "%s: backend accepted %v; model: %v", d.where, ws, wantErr)
		require.Equal(d.t, wantErr.Error(), err.Error(), d.where)
		return
	}
	require.NoError(d.t, err, "%s: commit %v", d.where, ws)
	_, _ = d.spec.Commit(ws, res.Timestamp)
	require.Equal(d.t, want.FirstSeq, res.FirstSeq, "%s: first seq of %v", d.where, ws)
	require.Equal(d.t, want.Seqs, append([]int64{}, res.Seqs...), "%s: seqs of %v", d.where, ws)
	require.Equal(d.t, d.spec.NextSeq(), d.s.NextSeq(), d.where)
}

// reads compares one value, one scan and a few list reads.
func (d *differ) reads() {
	ns := crash.Namespaces[d.r.IntN(len(crash.Namespaces))]
	key := crash.Keys[d.r.IntN(len(crash.Keys))]
	got, err := d.s.GetValue(store.Address{Namespace: ns, Key: key})
	require.NoError(d.t, err)
	want, ok := d.spec.GetValue(mstore.Addr{Namespace: ns, Key: key})
	require.Equal(d.t, ok, got != nil, "%s: value %s/%s present", d.where, ns, key)
	if ok {
		require.Equal(d.t, want.Value, string(got.Value), d.where)
		require.Equal(d.t, want.Seq, got.Seq, d.where)
	}
	prefix := []string{"", "k", "k1", "op", "x"}[d.r.IntN(5)]
	scan, err := d.s.ScanValues(ns, prefix)
	require.NoError(d.t, err)
	var gotKeys, wantKeys []string
	for _, v := range scan {
		gotKeys = append(gotKeys, v.Address.Key+"="+string(v.Value)+"@"+strconv.FormatInt(v.Seq, 10))
	}
	for _, v := range d.spec.ScanValues(ns, prefix) {
		wantKeys = append(wantKeys, v.Key+"="+v.Value+"@"+strconv.FormatInt(v.Seq, 10))
	}
	require.Equal(d.t, wantKeys, gotKeys, "%s: scan %s prefix %q", d.where, ns, prefix)
	for i := 0; i < 3; i++ {
		var cursor *int64
		if d.r.IntN(2) == 0 {
			c := d.r.Int64N(d.spec.NextSeq() + 1)
			cursor = &c
		}
		d.readList(mstore.Addr{Namespace: ns, Key: crash.Keys[d.r.IntN(len(crash.Keys))]}, cursor,
			d.r.IntN(2) == 0, limits[d.r.IntN(len(limits))])
	}
}

func (d *differ) readList(a mstore.Addr, cursor *int64, desc bool, limit int) {
	order := store.Asc
	if desc {
		order = store.Desc
	}
	got, err := d.s.ReadList(store.Address{Namespace: a.Namespace, Key: a.Key, Kind: store.KindList},
		store.ReadOptions{Cursor: cursor, Order: order, Limit: limit})
	want, wantErr := d.spec.ReadList(a, cursor, desc, limit)
	what := fmt.Sprintf("%s: list %s %s limit %d cursor %v", d.where, a, order, limit, cursorText(cursor))
	if wantErr != nil {
		require.EqualError(d.t, err, wantErr.Error(), what)
		return
	}
	require.NoError(d.t, err, what)
	require.Len(d.t, got, len(want), what)
	for i := range want {
		require.Equal(d.t, want[i].Seq, got[i].Seq, what)
		require.Equal(d.t, want[i].Value, string(got[i].Value), what)
	}
}

// bulk appends more than 10,000 elements to one list in one commit and
// reads it at and around the clamp, forwards and backwards.
func (d *differ) bulk() {
	a := mstore.Addr{Namespace: "a", Key: "bulk"}
	ws := make([]mstore.Write, 10_002)
	for i := range ws {
		ws[i] = mstore.Write{Kind: mstore.List, Op: mstore.Append, Addr: a, Value: strconv.Itoa(i)}
	}
	d.commit(ws)
	for _, limit := range []int{0, 10_000, 10_001, 20_000} {
		d.readList(a, nil, false, limit)
		d.readList(a, nil, true, limit)
	}
	mid := d.spec.NextSeq() - 5_000
	d.readList(a, &mid, false, 10_001)
}

// rejections commits transactions pi's rules refuse, each with a valid
// write before the bad one: every backend must report pi's error and apply
// nothing (the generated workload breaks a rule only now and then).
func (d *differ) rejections() {
	root, missing := "root-"+d.where, "no-such-entry"
	d.commit([]mstore.Write{{Kind: mstore.Entry, ID: root}})
	set := mstore.Write{Kind: mstore.Value, Op: mstore.Set, Addr: mstore.Addr{Namespace: "a", Key: "k1"}, Value: `"r"`}
	for _, bad := range [][]mstore.Write{
		{set, {Kind: mstore.Entry, ID: root}},
		{set, {Kind: mstore.Usage, ID: root}},
		{set, {Kind: mstore.Entry, ID: "x-" + d.where, ParentID: &missing}},
		{set, {Kind: mstore.Usage, ID: "u-" + d.where}, {Kind: mstore.Entry, ID: "u-" + d.where}},
	} {
		before := d.spec.NextSeq()
		_, wantErr := d.spec.Clone().Commit(bad, 0)
		require.Error(d.t, wantErr, "%s: the model accepts %v", d.where, bad)
		d.commit(bad)
		require.Equal(d.t, before, d.s.NextSeq(), "%s: a rejected commit consumed seqs", d.where)
	}
}

func cursorText(c *int64) string {
	if c == nil {
		return "none"
	}
	return strconv.FormatInt(*c, 10)
}
