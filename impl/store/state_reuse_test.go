package store_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// A deleted list's element array is reused for the next list created
// (State's spare). Nothing handed out before the delete may change when
// the next list overwrites that array: a read page, a snapshot, the
// entries of a snapshot, and a list key listing.
func TestDeletedListMemoryDoesNotLeakIntoEarlierReads(t *testing.T) {
	s := store.NewState()
	a := store.Address{Namespace: "pi.pending.assistant_frame", Key: "op1:r1", Kind: store.KindList}
	b := store.Address{Namespace: "pi.pending.assistant_frame", Key: "op2:r2", Kind: store.KindList}
	seq := int64(1)
	apply := func(w store.Write) {
		s.Apply([]store.CommittedWrite{{Write: w, Seq: seq}})
		seq++
	}
	for i := range 20 {
		apply(store.AppendListRaw(a, json.RawMessage(`"a`+string(rune('a'+i))+`"`)))
	}
	asc, err := s.ReadList(a, store.ReadOptions{Limit: 100})
	require.NoError(t, err)
	desc, err := s.ReadList(a, store.ReadOptions{Limit: 100, Order: store.Desc})
	require.NoError(t, err)
	snap, keys := s.Snapshot(), s.ListKeys(a.Namespace)
	want := deepCopy(t, []any{asc, desc, snap, keys})

	apply(store.DeleteListRaw(a))
	for range 40 { // past the first array's capacity, and within it
		apply(store.AppendListRaw(b, json.RawMessage(`"b"`)))
	}
	got := deepCopy(t, []any{asc, desc, snap, keys})
	require.Empty(t, cmp.Diff(want, got), "a reused array leaked into an earlier read")
	gone, err := s.ReadList(a, store.ReadOptions{Limit: 100})
	require.NoError(t, err)
	require.Empty(t, gone)
	page, err := s.ReadList(b, store.ReadOptions{Limit: 100})
	require.NoError(t, err)
	require.Len(t, page, 40)
	require.Equal(t, int64(22), page[0].Seq)
}

// deepCopy round-trips v through JSON so that later writes to shared
// memory cannot change the copy.
func deepCopy(t *testing.T, v any) string {
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}

// Snapshot's writes point at copies: changing them leaves the state's
// entries and usage rows as they were.
func TestSnapshotDoesNotAliasRows(t *testing.T) {
	s := store.NewState()
	s.Apply([]store.CommittedWrite{{Write: entry("e1", ""), Seq: 1}, {Write: usage("u1"), Seq: 2}, {Write: entry("e2", "e1"), Seq: 3}})
	want := deepCopy(t, []any{s.Entries(), s.Usage()})
	for _, w := range s.Snapshot() {
		if w.Entry != nil {
			w.Entry.ID = "changed" // Raw bytes are shared, as they always were
		}
		if w.Usage != nil {
			w.Usage.ID = "changed"
		}
	}
	require.Equal(t, want, deepCopy(t, []any{s.Entries(), s.Usage()}))
}

// A transaction's rows are copied into one array (rowArena), each copy
// capped at its end: appending to one row's Raw can never write into the
// next row's bytes, and the rows are copies, not the caller's bytes.
func TestPreparedRowsAreSeparateCopies(t *testing.T) {
	raws := []string{`{"id":"a","parentId":null,"type":"message"}`, `{"id":"b","parentId":"a","type":"message"}`}
	in := []store.Write{
		store.InsertEntry(store.Entry{ID: "a", Raw: json.RawMessage(raws[0])}),
		store.InsertEntry(store.Entry{ID: "b", ParentID: ptrTo("a"), Raw: json.RawMessage(raws[1])}),
	}
	out, err := store.Prepare(in, 1, 0)
	require.NoError(t, err)
	_ = append(out[0].Entry.Raw, "xxxxxxxx"...)
	require.Equal(t, raws[1], string(out[1].Entry.Raw))
	in[0].Entry.Raw[2] = 'X'
	require.Equal(t, raws[0], string(out[0].Entry.Raw))
	require.Equal(t, "a", *out[1].Entry.ParentID)
}
