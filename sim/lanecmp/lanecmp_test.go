package lanecmp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
	ml "github.com/frameproof/frameproof/model/lane"
)

// Each comparison below is shown to reject a broken input and to accept the
// sound one: a comparison that cannot fail proves nothing.

// inboxOf keeps pi.lane.state's inbox order and reads a malformed item as
// empty strings, so a reordered or reshaped inbox cannot match the model's.
func TestInboxOfKeepsOrderAndShape(t *testing.T) {
	ls, err := pi.ParseJSON(`{"inbox":[{"entryId":"a","kind":"steer"},{"entryId":"b","kind":"followUp"},{"id":"c"}]}`)
	require.NoError(t, err)
	require.Equal(t, []ml.InboxItem{{EntryID: "a", Kind: "steer"}, {EntryID: "b", Kind: "followUp"}, {}}, inboxOf(ls))
	notArray, err := pi.ParseJSON(`{"inbox":{"entryId":"a"}}`)
	require.NoError(t, err)
	require.Nil(t, inboxOf(notArray))
}

// readPending lists only the named ids that storage still holds, so a
// pending entry the implementation failed to delete (or to write) shows.
func TestReadPendingListsOnlyStoredIDs(t *testing.T) {
	st := memory.New(envtest.NewClock(envtest.Epoch))
	addr := func(id string) store.Address {
		return store.Address{Namespace: lane.NSPendingEntry, Key: id, Kind: store.KindValue}
	}
	_, err := st.Commit([]store.Write{
		store.SetValueRaw(addr("q2"), []byte(`{"type":"message"}`)),
		store.SetValueRaw(addr("q1"), []byte(`{"type":"message"}`)),
	})
	require.NoError(t, err)
	got, err := readPending(st, []string{"q3", "q2", "q1"})
	require.NoError(t, err)
	require.Equal(t, []string{"q1", "q2"}, got)
}

// DiffTX names the first write whose value differs, in full, past the trim
// ListTX applies.
func TestDiffTXSpellsOutAValueDifference(t *testing.T) {
	long := strings.Repeat("y", 300)
	want := []ml.TXWrite{{Kind: "value", Op: "set", Namespace: "pi.op.state", Key: "op1", Value: long + "A"}}
	require.NoError(t, DiffTX([]ml.TXWrite{want[0]}, want))
	got := []ml.TXWrite{want[0]}
	got[0].Value = long + "B"
	err := DiffTX(got, want)
	require.ErrorContains(t, err, "write 0 (value pi.op.state/op1) value:")
	require.ErrorContains(t, err, long+"B")
	require.Empty(t, valueDiff(got, []ml.TXWrite{{Kind: "value", Op: "set", Namespace: "pi.op.state", Key: "op2", Value: "1"}}))
}

// CompareTX says what DiffTX(TXWrites(ws), want) says, error text and all,
// on equal transactions and on each kind of difference: a value the model
// states (compared canonically: key order and spacing do not count), a
// value it does not state (not compared), the order, the count, an address.
func TestCompareTXIsDiffTXOfTheRenderedWrites(t *testing.T) {
	frames := store.Address{Namespace: lane.NSAssistantFrame, Key: "op1:r1", Kind: store.KindList}
	state := store.Address{Namespace: lane.NSOpState, Key: "op1", Kind: store.KindValue}
	ws := []store.Write{
		store.AppendListRaw(frames, []byte(`{"type":"text_delta", "contentIndex":0,"delta":"a"}`)),
		store.SetValueRaw(state, []byte(`{"at": "x"}`)),
	}
	want := []ml.TXWrite{
		{Kind: "list", Op: "append", Namespace: lane.NSAssistantFrame, Key: "op1:r1", Value: `{"type":"text_delta","contentIndex":0,"delta":"a"}`},
		{Kind: "value", Op: "set", Namespace: lane.NSOpState, Key: "op1"},
	}
	otherValue := append([]ml.TXWrite(nil), want...)
	otherValue[0].Value = `{"type":"text_delta","contentIndex":0,"delta":"b"}`
	otherKey := append([]ml.TXWrite(nil), want...)
	otherKey[1].Key = "op2"
	stated := append([]ml.TXWrite(nil), want...)
	stated[1].Value = `{"at":"y"}`
	// a state value stated canonically (canonicalized once, not
	// remembered, unlike a frame)
	statedSame := append([]ml.TXWrite(nil), want...)
	statedSame[1].Value = `{"at":"x"}`
	for name, w := range map[string][]ml.TXWrite{
		"equal": want, "equal, the state stated": statedSame, "another frame": otherValue, "another key": otherKey, "a stated state": stated,
		"reordered": {want[1], want[0]}, "fewer": want[:1], "more": append(append([]ml.TXWrite(nil), want...), want[1]),
	} {
		full := DiffTX(TXWrites(ws), w)
		got := new(Reader).CompareTX(ws, w)
		require.Equal(t, strings.HasPrefix(name, "equal"), full == nil, name)
		if full == nil {
			require.NoError(t, got, name)
		} else {
			require.EqualError(t, got, full.Error(), name)
		}
	}
}

// CompareCaptureAt rejects a capture that differs from the model's cut in
// liveness, transcript or streaming message, and accepts the equal one.
func TestCompareCaptureAtRejectsAnotherCut(t *testing.T) {
	cut := ml.Snapshot{Transcript: []string{"e1"}}
	same := &lane.Snapshot{Transcript: []lane.TranscriptEntry{{ID: "e1"}}}
	require.NoError(t, CompareCaptureAt(same, cut))
	for name, s := range map[string]*lane.Snapshot{
		"live":       {Live: true, Transcript: []lane.TranscriptEntry{{ID: "e1"}}},
		"transcript": {Transcript: []lane.TranscriptEntry{{ID: "e2"}}},
		"empty":      {},
		"streaming":  {Transcript: []lane.TranscriptEntry{{ID: "e1"}}, StreamingMessage: &pi.AssistantMessage{Content: []pi.Content{}}},
	} {
		require.ErrorContains(t, CompareCaptureAt(s, cut), "capture differs", name)
	}
}
