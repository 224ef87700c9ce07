package lanecmp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
	ml "github.com/frameproof/frameproof/model/lane"
)

// changeStore is a seq-named memory store that logs the addresses its
// commits write (a Changes); forget drops the next commit's from the log,
// the bug an incremental view must not hide.
type changeStore struct {
	seqStore
	written []store.Address
	forget  bool
}

func (c *changeStore) Commit(ws []store.Write) (store.CommitResult, error) {
	res, err := c.seqStore.Commit(ws)
	if err == nil && !c.forget {
		for _, w := range ws {
			if w.Kind == store.WriteValue || w.Kind == store.WriteList {
				c.written = append(c.written, store.Address{Namespace: w.Namespace, Key: w.Key})
			}
		}
	}
	c.forget = false
	return res, err
}

func (c *changeStore) WrittenSince(from int) ([]store.Address, int) {
	if from >= len(c.written) {
		return nil, len(c.written)
	}
	return c.written[from:], len(c.written)
}

// An incremental read sees every change a full read sees (a value
// rewritten, a list deleted and re-created, a list and an operation named
// for the first time), and VerifyViews catches a view that missed a write.
func TestIncrementalViewReadsWhatAFullReadDoes(t *testing.T) {
	st := &changeStore{seqStore: seqStore{memory.New(envtest.NewClock(envtest.Epoch))}}
	tip := lane.BranchTipAddr("main")
	l1 := store.Address{Namespace: lane.NSAssistantFrame, Key: "op1:r1", Kind: store.KindList}
	l2 := store.Address{Namespace: lane.NSAssistantFrame, Key: "op1:r2", Kind: store.KindList}
	r := Reader{VerifyViews: true}
	commit := func(ws ...store.Write) {
		t.Helper()
		_, err := st.Commit(ws)
		require.NoError(t, err)
	}
	read := func(keys ...string) {
		t.Helper()
		got, err := r.ReadState(st, "main", []string{"op1"}, keys)
		require.NoError(t, err)
		want, err := new(Reader).ReadStateFull(st, "main", []string{"op1"}, keys)
		require.NoError(t, err)
		require.True(t, equalStates(want, got), "view %+v, full read %+v", got, want)
	}
	commit(store.SetValueRaw(tip, []byte(`"e1"`)), store.AppendListRaw(l1, []byte(`{"type":"start"}`)))
	read("op1:r1")
	require.NotNil(t, r.view, "the reference's reads go through the view")
	commit(store.SetValueRaw(tip, []byte(`"e2"`)), store.DeleteListRaw(l1))
	read("op1:r1")
	commit(store.AppendListRaw(l1, []byte(`{"type":"text_end"}`)), store.AppendListRaw(l2, []byte(`{"type":"start"}`)))
	read("op1:r1", "op1:r2")
	read("op1:r2", "op1:r1")

	st.forget = true
	commit(store.SetValueRaw(tip, []byte(`"e3"`)))
	_, err := r.ReadState(st, "main", []string{"op1"}, []string{"op1:r1"})
	require.ErrorContains(t, err, "incremental view differs from a full read")
	r.VerifyViews = false // what a campaign's end-of-run check sees
	require.ErrorContains(t, r.VerifyView(st, "main", []string{"op1"}, []string{"op1:r1"}), "incremental view differs from a full read")
}

// A read asked for fewer operations or lists drops theirs from the view:
// one written while no read asked for it is read afresh when asked again.
func TestIncrementalViewRereadsWhatItStoppedReading(t *testing.T) {
	st := &changeStore{seqStore: seqStore{memory.New(envtest.NewClock(envtest.Epoch))}}
	l1 := store.Address{Namespace: lane.NSAssistantFrame, Key: "op1:r1", Kind: store.KindList}
	l2 := store.Address{Namespace: lane.NSAssistantFrame, Key: "op1:r2", Kind: store.KindList}
	result := lane.ResultAddr("op1")
	var r Reader
	commit := func(ws ...store.Write) {
		t.Helper()
		_, err := st.Commit(ws)
		require.NoError(t, err)
	}
	read := func(ops []string, keys ...string) {
		t.Helper()
		got, err := r.ReadState(st, "main", ops, keys)
		require.NoError(t, err)
		want, err := new(Reader).ReadStateFull(st, "main", ops, keys)
		require.NoError(t, err)
		require.True(t, equalStates(want, got), "view %+v, full read %+v", got, want)
	}
	commit(store.AppendListRaw(l1, []byte(`{"type":"start"}`)), store.AppendListRaw(l2, []byte(`{"type":"start"}`)),
		store.SetValueRaw(result, []byte(`{"status":"completed"}`)))
	read([]string{"op1"}, "op1:r1", "op1:r2")
	read(nil, "op1:r2")
	commit(store.AppendListRaw(l1, []byte(`{"type":"text_end"}`)), store.SetValueRaw(result, []byte(`{"status":"failed"}`)))
	read(nil, "op1:r2") // the writes since are not its lists'
	read([]string{"op1"}, "op1:r1", "op1:r2")
}

// The Reader's canonical form of stored bytes is the model's (ml.Canonical),
// for frames, messages and what is not JSON at all.
func TestCanonicalJSONIsTheModels(t *testing.T) {
	for _, raw := range []string{
		`{"type":"text_delta","contentIndex":0,"delta":"h\u00e9","partial":{"role":"assistant","content":[{"type":"text","text":"hé"}]}}`,
		`{"b":1,"a":2,"1":3,"0":4}`, `{"a":1,"a":2}`, `[1e400,-0,0.1]`, `[1E2]`, ` {"x" : "\ud83d"} `, `not json`, `{"a":`, ``,
	} {
		// the Reader's scratch as it is: empty, too small, or large enough
		for _, buf := range [][]byte{nil, make([]byte, 0, 4), make([]byte, 0, 512)} {
			require.Equal(t, ml.Canonical([]byte(raw)), canonicalJSONIn(buf, raw), raw)
		}
	}
}
