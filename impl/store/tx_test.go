package store

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Tx.Writes says "a second Prepare of them accepts
// them and changes nothing" (the fallback for stores without CommitTx).
func TestTxWritesPrepareAgainIsIdentity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		payload := func() string {
			return rapid.SampledFrom([]string{`1`, ` { "a" : [ 1 , 2 ] } `, `"\ud800"`, "\"\xff\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", `{"a":1,"a":2}`, `1e400`, `-0`, `"\u0000"`, "\"\xc0\xaf\""}).Draw(t, "p")
		}
		n := rapid.IntRange(0, 4).Draw(t, "n")
		var ws []Write
		for i := range n {
			switch rapid.IntRange(0, 3).Draw(t, "k") {
			case 0:
				id := fmt.Sprint("e", i)
				ws = append(ws, InsertEntry(Entry{ID: id, Raw: json.RawMessage(`{"type":"x","id":"` + id + `","parentId":null,"p":` + payload() + `}`)}))
			case 1:
				id := fmt.Sprint("u", i)
				ws = append(ws, InsertUsage(UsageRow{ID: id, Raw: json.RawMessage(`{"id":"` + id + `","usage":` + payload() + `}`)}))
			case 2:
				ws = append(ws, SetValueRaw(Address{Namespace: "n", Key: "k"}, json.RawMessage(payload())))
			default:
				ws = append(ws, AppendListRaw(Address{Namespace: "n", Key: "k"}, json.RawMessage(payload())))
			}
		}
		tx, err := NewTx(ws)
		if err != nil {
			return
		}
		again, err := NewTx(tx.Writes())
		require.NoError(t, err)
		a, ka := tx.Stamp(1, 2)
		b, kb := again.Stamp(1, 2)
		require.Equal(t, a, b)
		require.Equal(t, ka, kb)
	})
}

// "A Tx is immutable once made": Tx.Writes must not hand out
// the Tx's own entries, rows and value bytes: a caller (or a fallback
// store's Commit) writing through them changes the Tx, every store it was
// committed to, and every later commit of it, bypassing NewTx's checks.
func TestTxWritesDoNotAliasTheTx(t *testing.T) {
	tx, err := NewTx([]Write{
		InsertEntry(Entry{ID: "e1", Raw: json.RawMessage(`{"type":"custom","id":"e1","parentId":null}`)}),
		SetValueRaw(Address{Namespace: "n", Key: "k"}, json.RawMessage(`"v"`)),
	})
	require.NoError(t, err)
	st := NewState()
	_, err = st.CommitTx(tx, 1)
	require.NoError(t, err)

	ws := tx.Writes()
	ws[0].Entry.ID = "other" // the Tx's own entry
	ws[1].Value[1] = 'X'     // the Tx's (and st's) value bytes

	v := st.GetValue(Address{Namespace: "n", Key: "k"})
	assert.Equal(t, `"v"`, string(v.Value), "a committed value changed under the store")

	fresh := NewState()
	_, err = fresh.CommitTx(tx, 1)
	require.NoError(t, err)
	es := fresh.Entries()
	assert.Equal(t, "e1", es[0].Entry.ID, "the Tx committed an entry whose ID is not its raw id (NewTx refuses that)")
}

// A first commit of many entries reserves rows before
// it is validated; when it is refused, the reserved rows stay, and later
// commits must read as on a state that never saw it.
func TestReserveAfterRefusedFirstCommit(t *testing.T) {
	entries := func(from, n int, parent string) []Write {
		var ws []Write
		for i := from; i < from+n; i++ {
			id := fmt.Sprint("e", i)
			pj, pp := "null", (*string)(nil)
			if parent != "" {
				p := parent
				pj, pp = `"`+p+`"`, &p
			}
			ws = append(ws, InsertEntry(Entry{ID: id, ParentID: pp, Raw: json.RawMessage(`{"type":"message","id":"` + id + `","parentId":` + pj + `}`)}))
			parent = id
		}
		return ws
	}
	for _, bad := range []int{9, 100, 1025, 3000} {
		withRefusal, plain := NewState(), NewState()
		refused := entries(0, bad, "")
		refused = append(refused, entries(bad, 1, "missing")...)
		_, err := withRefusal.Commit(refused, 1)
		require.EqualError(t, err, "Missing parent entry: missing")
		var held []EntryList
		parent := ""
		next := 0
		for _, n := range []int{3, 20, 600, 1500} {
			for _, s := range []*State{withRefusal, plain} {
				_, err := s.Commit(entries(next, n, parent), 1)
				require.NoError(t, err)
			}
			next += n
			parent = fmt.Sprint("e", next-1)
			held = append(held, withRefusal.ScanEntries(EntryScan{}))
			require.Equal(t, plain.Entries(), withRefusal.Entries(), "bad=%d", bad)
			a, err := withRefusal.ScanBranch(BranchScan{Start: parent})
			require.NoError(t, err)
			b, err := plain.ScanBranch(BranchScan{Start: parent})
			require.NoError(t, err)
			require.Equal(t, b.Slice(), a.Slice())
			sa, err := withRefusal.ScanBranchStructure(BranchScan{Start: parent})
			require.NoError(t, err)
			sb, err := plain.ScanBranchStructure(BranchScan{Start: parent})
			require.NoError(t, err)
			require.Equal(t, sb.Len(), sa.Len())
			for i := range sa.Len() {
				require.Equal(t, sb.At(i), sa.At(i))
			}
		}
		total := 0
		for i, l := range held {
			total += []int{3, 20, 600, 1500}[i]
			require.Equal(t, total, l.Len())
			for j := range l.Len() {
				require.Equal(t, fmt.Sprint("e", j), l.At(j).Entry.ID)
			}
		}
	}
}
