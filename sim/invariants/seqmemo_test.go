package invariants

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
)

// seqStore is a memory store that says its seqs name its records.
type seqStore struct{ *memory.Store }

func (seqStore) SeqsNameWrites() bool { return true }

// Views read from storage whose seqs name its records key invariant 3's memo
// by seq, and still catch a non-canonical element: one appended to a list
// re-created under a remembered key, and one of a second such store at a
// seq the first store's canonical frame has.
func TestSeqKeyedFrameMemoStillCatchesBadFrames(t *testing.T) {
	frames := store.Address{Namespace: lane.NSAssistantFrame, Key: "op1:r1", Kind: store.KindList}
	good := frameJSON(t, &pi.Frame{Type: pi.FrameTextStart, ContentIndex: pi.Index(0), Block: pi.TextContent{Text: "a"}})
	bad := []byte(`{"type": "text_start"}`)
	var r ViewReader
	check := func(st store.Storage) error {
		t.Helper()
		v, err := r.Read(st, nil, []string{"op1:r1"})
		require.NoError(t, err)
		return elementsAreFrames(v)
	}
	commit := func(st store.Storage, ws ...store.Write) {
		t.Helper()
		_, err := st.Commit(ws)
		require.NoError(t, err)
	}
	a := seqStore{memory.New(envtest.NewClock(envtest.Epoch))}
	commit(a, store.AppendListRaw(frames, good))
	require.NoError(t, check(a))
	require.Len(t, r.canonicalSeqs, 1, "remembered by seq")

	b := seqStore{memory.New(envtest.NewClock(envtest.Epoch))}
	commit(b, store.AppendListRaw(frames, bad)) // a's seq, other bytes
	require.Error(t, check(b))

	commit(a, store.DeleteListRaw(frames))
	commit(a, store.AppendListRaw(frames, bad))
	require.Error(t, check(a))
}

// A ViewReader's Frame hook parses the elements of seq-named storage in
// pi.ParseFrame's place, and invariant 3 still refuses an element that
// parses but is not canonical, or does not parse.
func TestFrameHookStillCatchesBadFrames(t *testing.T) {
	frames := store.Address{Namespace: lane.NSAssistantFrame, Key: "op1:r1", Kind: store.KindList}
	good := frameJSON(t, &pi.Frame{Type: pi.FrameTextStart, ContentIndex: pi.Index(0), Block: pi.TextContent{Text: "a"}})
	reordered := []byte(`{"contentIndex":0,"type":"text_start","content":{"type":"text","text":"a"}}`) // parses, not canonical
	var asked []int64
	for _, tc := range []struct {
		name string
		el   []byte
		ok   bool
	}{{"canonical", good, true}, {"not canonical", reordered, false}, {"not a frame", []byte(`{"type": 1}`), false}} {
		t.Run(tc.name, func(t *testing.T) {
			r := ViewReader{Frame: func(seq int64, value []byte) (*pi.Frame, error) {
				asked = append(asked, seq)
				return pi.ParseFrame(string(value))
			}}
			st := seqStore{memory.New(envtest.NewClock(envtest.Epoch))}
			_, err := st.Commit([]store.Write{store.AppendListRaw(frames, tc.el)})
			require.NoError(t, err)
			v, err := r.Read(st, nil, []string{"op1:r1"})
			require.NoError(t, err)
			asked = nil
			err = elementsAreFrames(v)
			require.Equal(t, tc.ok, err == nil, "%v", err)
			require.Len(t, asked, 1, "parsed through the hook")
		})
	}
}

// fixedEntries is seq-named storage whose entries are whatever the test
// says.
type fixedEntries struct {
	seqStore
	es []store.StoredEntry
}

func (f *fixedEntries) Entries() ([]store.StoredEntry, error) { return f.es, nil }

// Views of seq-named storage share an entries map that each Read only
// grows while the entries read before are still the head; anything else
// (here an entry replaced, which the reference never does) rebuilds it.
func TestSharedEntriesFollowTheStore(t *testing.T) {
	entry := func(id string, seq int64) store.StoredEntry {
		return store.StoredEntry{Entry: store.Entry{ID: id, Raw: []byte(`{"message":{"role":"user"}}`)}, Seq: seq}
	}
	st := &fixedEntries{seqStore: seqStore{memory.New(envtest.NewClock(envtest.Epoch))}}
	var r ViewReader
	ids := func() []string {
		t.Helper()
		v, err := r.Read(st, nil, nil)
		require.NoError(t, err)
		var out []string
		for id := range v.Entries {
			out = append(out, id)
		}
		slices.Sort(out)
		return out
	}
	st.es = []store.StoredEntry{entry("a", 1), entry("b", 2)}
	require.Equal(t, []string{"a", "b"}, ids())
	st.es = append(st.es, entry("c", 3))
	require.Equal(t, []string{"a", "b", "c"}, ids())
	st.es = []store.StoredEntry{entry("a", 1), entry("d", 4), entry("e", 5)}
	require.Equal(t, []string{"a", "d", "e"}, ids())
}
