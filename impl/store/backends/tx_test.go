package backends_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
)

// CommitTx(NewTx(w)) must be Commit(w) on every
// backend: result, error text, state, file bytes, state after reopen.

func txEnv() env.Env {
	return env.Env{Clock: envtest.NewClock(1_767_000_000_000), FS: env.OSFS{}, IDs: envtest.IDsAfter(0), Executor: env.Goroutines{}}
}

var (
	rvIDs  = []string{"a", "b", "c", "d"}
	rvNS   = []string{"n", "pi.branch.tip", "n\xff", ""}
	rvKeys = []string{"k", "l", ""}
)

// rvRaw draws a JSON payload fragment: compact, spaced, odd bytes.
func rvPayload(t *rapid.T) string {
	return rapid.SampledFrom([]string{
		`1`, `"x"`, ` { "a" : [ 1 , 2 ] } `, `"\ud800"`, "\"\xff\"", "\"\xed\xa0\x80\"", `"\u00e9"`, `null`, `{"a":1,"a":2}`, `{"unterminated"`, `1e400`, `"` + "\x7f" + `"`,
	}).Draw(t, "payload")
}

func rvWrite(t *rapid.T) store.Write {
	ns := rvNS[rapid.IntRange(0, 1).Draw(t, "ns")]
	if rapid.IntRange(0, 19).Draw(t, "badNS") == 0 {
		ns = rapid.SampledFrom(rvNS).Draw(t, "anyNS")
	}
	key := rapid.SampledFrom(rvKeys).Draw(t, "key")
	addr := store.Address{Namespace: ns, Key: key}
	switch rapid.IntRange(0, 9).Draw(t, "kind") {
	case 0, 1, 2:
		id := rapid.SampledFrom(rvIDs).Draw(t, "id")
		var parent *string
		pj := "null"
		if rapid.Bool().Draw(t, "hasParent") {
			p := rapid.SampledFrom(rvIDs).Draw(t, "parent")
			parent, pj = &p, `"`+p+`"`
		}
		rawID := id
		if rapid.IntRange(0, 9).Draw(t, "badID") == 0 {
			rawID = "zz"
		}
		sp := rapid.SampledFrom([]string{"", " "}).Draw(t, "sp")
		raw := `{` + sp + `"type":"message",` + sp + `"id":"` + rawID + `","parentId":` + pj + `,"p":` + rvPayload(t) + `}`
		if rapid.IntRange(0, 15).Draw(t, "reserved") == 0 {
			raw = `{"type":"message","id":"` + rawID + `","parentId":` + pj + `,"timestamp":1}`
		}
		return store.InsertEntry(store.Entry{ID: id, ParentID: parent, Raw: json.RawMessage(raw)})
	case 3:
		id := rapid.SampledFrom(rvIDs).Draw(t, "id")
		usage := rapid.SampledFrom([]string{`{"input":1,"cost":{"total":0.5}}`, `null`, `{"input":1}`, `{"input":1,"cost":null}`, `3`, ` { "input" : 2 , "cost" : { "total" : 1 } } `}).Draw(t, "usage")
		return store.InsertUsage(store.UsageRow{ID: id, Raw: json.RawMessage(`{"id":"` + id + `","usage":` + usage + `,"adjustment":false}`)})
	case 4:
		return store.SetValueRaw(addr, json.RawMessage(rvPayload(t)))
	case 5:
		return store.DeleteValueRaw(addr)
	case 6, 7:
		return store.AppendListRaw(addr, json.RawMessage(rvPayload(t)))
	case 8:
		return store.DeleteListRaw(addr)
	default:
		if rapid.IntRange(0, 3).Draw(t, "invalidKind") != 0 {
			return store.SetValueRaw(addr, json.RawMessage(`2`))
		}
		return rapid.SampledFrom([]store.Write{
			{Kind: store.WriteEntry},
			{Kind: store.WriteUsage},
			{Kind: "register", Namespace: "n", Key: "k"},
			{Kind: store.WriteValue, Op: store.OpAppend, Namespace: "n", Key: "k", Value: json.RawMessage(`1`)},
		}).Draw(t, "invalid")
	}
}

func rvClone(ws []store.Write) []store.Write {
	out := make([]store.Write, len(ws))
	for i, w := range ws {
		out[i] = w
		if w.Entry != nil {
			e := *w.Entry
			e.Raw = append(json.RawMessage(nil), e.Raw...)
			if e.ParentID != nil {
				p := *e.ParentID
				e.ParentID = &p
			}
			out[i].Entry = &e
		}
		if w.Usage != nil {
			u := *w.Usage
			u.Raw = append(json.RawMessage(nil), u.Raw...)
			out[i].Usage = &u
		}
		if w.Value != nil {
			out[i].Value = append(json.RawMessage(nil), w.Value...)
		}
	}
	return out
}

func rvClear(ws []store.Write) {
	for _, w := range ws {
		if w.Entry != nil {
			clear(w.Entry.Raw)
			w.Entry.ID = "cleared"
		}
		if w.Usage != nil {
			clear(w.Usage.Raw)
		}
		clear(w.Value)
	}
}

// rvDump is everything a store answers, as one string.
func rvDump(t require.TestingT, st store.Storage) string {
	out := fmt.Sprintf("next=%d\n", st.NextSeq())
	es, err := st.Entries()
	require.NoError(t, err)
	for _, e := range es {
		p := "<nil>"
		if e.Entry.ParentID != nil {
			p = *e.Entry.ParentID
		}
		out += fmt.Sprintf("entry %q parent=%q seq=%d ts=%d raw=%q\n", e.Entry.ID, p, e.Seq, e.Timestamp, e.Entry.Raw)
	}
	us, err := st.Usage()
	require.NoError(t, err)
	for _, u := range us {
		out += fmt.Sprintf("usage %q seq=%d raw=%q\n", u.Row.ID, u.Seq, u.Row.Raw)
	}
	for _, ns := range rvNS {
		vs, err := st.ScanValues(ns, "")
		if err != nil {
			out += fmt.Sprintf("scan %q: %v\n", ns, err)
			continue
		}
		for _, v := range vs {
			out += fmt.Sprintf("value %q/%q seq=%d %q\n", v.Address.Namespace, v.Address.Key, v.Seq, v.Value)
		}
		for _, k := range rvKeys {
			l, err := st.ReadList(store.Address{Namespace: ns, Key: k, Kind: store.KindList}, store.ReadOptions{})
			if err != nil {
				out += fmt.Sprintf("list %q/%q: %v\n", ns, k, err)
				continue
			}
			for _, e := range l {
				out += fmt.Sprintf("list %q/%q seq=%d %q\n", ns, k, e.Seq, e.Value)
			}
		}
	}
	if q, ok := st.(store.Querier); ok {
		s, err := q.GetStats()
		require.NoError(t, err)
		b, _ := s.MarshalJSON()
		out += "stats " + string(b) + "\n"
		for _, id := range rvIDs {
			l, err := q.ScanBranch(store.BranchScan{Start: id})
			if err != nil {
				out += fmt.Sprintf("branch %q: %v\n", id, err)
				continue
			}
			for _, e := range l.Slice() {
				out += fmt.Sprintf("branch %q: %q\n", id, e.Entry.ID)
			}
		}
	}
	return out
}

func rvResult(res store.CommitResult, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%+v", res)
}

// TestCommitTxIsCommit: per backend, store A takes Commit(w), stores
// B and C take one NewTx(w) concurrently (the caller's bytes cleared once
// the Tx is made); results, errors, state, file bytes and reopened state
// must agree.
func TestCommitTxIsCommit(t *testing.T) {
	for _, b := range backends.All() {
		t.Run(b.Name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				dirs := [3]string{}
				var sts [3]store.Storage
				for i := range sts {
					d, err := os.MkdirTemp(t.TempDir(), "s")
					require.NoError(rt, err)
					dirs[i] = d
					sts[i], err = b.Create(txEnv(), d, txOpts)
					require.NoError(rt, err)
				}
				defer func() {
					for _, st := range sts {
						_ = st.Close()
					}
				}()
				steps := rapid.IntRange(1, 12).Draw(rt, "steps")
				for step := range steps {
					n := rapid.IntRange(0, 5).Draw(rt, "n")
					ws := make([]store.Write, n)
					for i := range ws {
						ws[i] = rvWrite(rt)
					}
					want := rvResult(sts[0].Commit(rvClone(ws)))
					txWrites := rvClone(ws)
					tx, err := store.NewTx(txWrites)
					var got [2]string
					if err != nil {
						got[0], got[1] = "error: "+err.Error(), "error: "+err.Error()
					} else {
						rvClear(txWrites)
						var wg sync.WaitGroup
						for i := range 2 {
							wg.Add(1)
							go func() {
								defer wg.Done()
								got[i] = rvResult(store.CommitTx(sts[1+i], tx))
							}()
						}
						wg.Wait()
					}
					rvStats[strings.HasPrefix(want, "error")]++
					require.Equal(rt, want, got[0], "step %d: CommitTx result differs from Commit's", step)
					require.Equal(rt, want, got[1], "step %d: second store", step)
					dump := rvDump(rt, sts[0])
					require.Equal(rt, dump, rvDump(rt, sts[1]), "step %d", step)
					require.Equal(rt, dump, rvDump(rt, sts[2]), "step %d", step)
				}
				if !b.Durable {
					return
				}
				t.Logf("commits accepted/refused so far: %d/%d", rvStats[false], rvStats[true])
				var files [3][]byte
				for i := range sts {
					require.NoError(rt, sts[i].Close())
					if b.Name == "jsonl" {
						f, err := os.ReadFile(b.Path(dirs[i]))
						require.NoError(rt, err)
						files[i] = f
					}
					again, err := b.Open(txEnv(), dirs[i], txOpts)
					require.NoError(rt, err)
					sts[i] = again
				}
				require.Equal(rt, string(files[0]), string(files[1]), "file bytes")
				require.Equal(rt, string(files[0]), string(files[2]), "file bytes")
				dump := rvDump(rt, sts[0])
				require.Equal(rt, dump, rvDump(rt, sts[1]), "after reopen")
				require.Equal(rt, dump, rvDump(rt, sts[2]), "after reopen")
			})
		})
	}
}

// TestOneTxRacedIntoOneStore: one Tx committed by several callers at
// once to one store (JSONL batches them into one group commit, beside
// ordinary Commits of the same ids): exactly one commit of each id wins,
// the rest are pi's duplicate error, and the reopened store reads as the
// live one.
func TestOneTxRacedIntoOneStore(t *testing.T) {
	mk := func(id, parent string) store.Write {
		pj, pp := "null", (*string)(nil)
		if parent != "" {
			p := parent
			pj, pp = `"`+p+`"`, &p
		}
		return store.InsertEntry(store.Entry{ID: id, ParentID: pp, Raw: json.RawMessage(`{"type":"message","id":"` + id + `","parentId":` + pj + `}`)})
	}
	for _, b := range backends.All() {
		t.Run(b.Name, func(t *testing.T) {
			for round := range 20 {
				dir := t.TempDir()
				st, err := b.Create(txEnv(), dir, backends.Options{Sync: backends.SyncNever})
				require.NoError(t, err)
				ws := []store.Write{mk("r", ""), mk("c", "r"), store.AppendListRaw(store.Address{Namespace: "n", Key: "l"}, json.RawMessage(`1`))}
				tx, err := store.NewTx(ws)
				require.NoError(t, err)
				const callers = 8
				errs := make([]error, callers)
				var wg sync.WaitGroup
				for i := range callers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						if i%2 == 0 {
							_, errs[i] = store.CommitTx(st, tx)
						} else {
							_, errs[i] = st.Commit(rvClone(ws))
						}
					}()
				}
				wg.Wait()
				ok := 0
				for _, err := range errs {
					if err == nil {
						ok++
					} else {
						require.Contains(t, err.Error(), "Duplicate entry or usage id: r", "round %d", round)
					}
				}
				require.Equal(t, 1, ok, "round %d: %v", round, errs)
				live := rvDump(t, st)
				require.Contains(t, live, "next=4\n")
				if b.Durable {
					require.NoError(t, st.Close())
					st, err = b.Open(txEnv(), dir, backends.Options{Sync: backends.SyncNever})
					require.NoError(t, err)
					require.Equal(t, live, rvDump(t, st))
				}
				require.NoError(t, st.Close())
			}
		})
	}
}

var rvStats = map[bool]int{}

// txOpts compacts a JSONL store at the first dead byte.
var txOpts = backends.Options{Sync: backends.SyncNever, CompactDeadRatio: 0.001}
