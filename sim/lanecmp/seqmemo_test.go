package lanecmp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
)

// seqStore is a memory store that says its seqs name its records (true of
// a store nothing rolls back).
type seqStore struct{ *memory.Store }

func (seqStore) SeqsNameWrites() bool { return true }

// A Reader keying its memos by seq still sees every change: a value
// rewritten at the same address, a frame list re-created under the same
// key, and a second seq-named store whose seqs name other records.
func TestSeqMemoSeesEveryWrite(t *testing.T) {
	a := seqStore{memory.New(envtest.NewClock(envtest.Epoch))}
	b := seqStore{memory.New(envtest.NewClock(envtest.Epoch))}
	tip := lane.BranchTipAddr("main")
	frames := store.Address{Namespace: lane.NSAssistantFrame, Key: "op1:r1", Kind: store.KindList}
	var r Reader
	read := func(st store.Storage) (string, []string) {
		t.Helper()
		s, err := r.ReadState(st, "main", nil, []string{"op1:r1"})
		require.NoError(t, err)
		return s.Tip, s.Lists["op1:r1"]
	}
	commit := func(st store.Storage, ws ...store.Write) {
		t.Helper()
		_, err := st.Commit(ws)
		require.NoError(t, err)
	}
	commit(a, store.SetValueRaw(tip, []byte(`"e1"`)), store.AppendListRaw(frames, []byte(`{"type":"start"}`)))
	commit(b, store.SetValueRaw(tip, []byte(`"x1"`)), store.AppendListRaw(frames, []byte(`{"type":"text_start"}`)))
	tipA, listA := read(a)
	require.Equal(t, "e1", tipA)
	require.Equal(t, []string{`{"type":"start"}`}, listA)
	tipB, listB := read(b) // the same seqs as a's, other records
	require.Equal(t, "x1", tipB)
	require.Equal(t, []string{`{"type":"text_start"}`}, listB)

	commit(a, store.SetValueRaw(tip, []byte(`"e2"`)), store.DeleteListRaw(frames))
	commit(a, store.AppendListRaw(frames, []byte(`{"type":"text_end"}`)))
	tipA, listA = read(a)
	require.Equal(t, "e2", tipA)
	require.Equal(t, []string{`{"type":"text_end"}`}, listA)
}
