package lanesim

import (
	"testing"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// textFrames encodes a text stream of the given deltas into frames, its
// message stating api.
func textFrames(t *testing.T, api string, deltas ...string) [][]byte {
	t.Helper()
	m := &pi.AssistantMessage{Content: []pi.Content{}, API: api, Provider: simProvider, Model: simModel, StopReason: pi.StopPending}
	evs := []pi.Event{{Type: pi.EventStart, Partial: m}}
	text := ""
	for i, d := range deltas {
		text += d
		p := m.Clone()
		p.Content = []pi.Content{pi.TextContent{Text: text}}
		if i == 0 {
			evs = append(evs, pi.Event{Type: pi.EventTextStart, ContentIndex: pi.Index(0), Partial: p})
		}
		evs = append(evs, pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: d, Partial: p})
	}
	enc := frames.NewEncoder()
	var out [][]byte
	for i := range evs {
		f, err := enc.Encode(&evs[i])
		require.NoError(t, err)
		if f != nil {
			out = append(out, f.AppendJSON(nil))
		}
	}
	return out
}

// wholeReduction is what the prefix checks stand for: every committed frame
// of op/r1 read afresh, parsed, then reduced (the error's text if any).
func wholeReduction(t *testing.T, ref *specStore, op string) string {
	t.Helper()
	els, err := ref.ReadList(lane.FramesAddr(op, "r1"), store.ReadOptions{Limit: 10_000})
	require.NoError(t, err)
	fs := make([]pi.Frame, 0, len(els))
	for _, e := range els {
		f, err := pi.ParseFrame(string(e.Value))
		if err != nil {
			return err.Error()
		}
		fs = append(fs, *f)
	}
	m, err := frames.Reduce(fs)
	if err != nil {
		return err.Error()
	}
	return marshalMsg(m)
}

// remembered is what the runner's remembered list reduces to.
func remembered(t *testing.T, r *runner, op string) string {
	t.Helper()
	l, err := r.prefix.committedList(op, "r1")
	require.NoError(t, err)
	m, err := l.reduce()
	if err != nil {
		return err.Error()
	}
	return marshalMsg(m)
}

// The remembered reduction of a frame list is, after every commit, the
// reduction of the whole list read afresh: while it grows, after it is
// deleted at settlement and re-created by a later operation under the same
// key, and when a frame does not reduce or does not parse (a parse error
// anywhere wins, as when every frame is parsed before reducing).
func TestCommittedListFollowsTheReference(t *testing.T) {
	ref := newSpecStore(envtest.NewClock(envtest.Epoch))
	r := bareRunner()
	r.ref = ref
	list := lane.FramesAddr("op", "r1")
	commitUnread := func(ws ...store.Write) {
		t.Helper()
		_, err := ref.Commit(ws)
		require.NoError(t, err)
	}
	commit := func(ws ...store.Write) {
		t.Helper()
		commitUnread(ws...)
		require.Equal(t, wholeReduction(t, ref, "op"), remembered(t, r, "op"))
	}
	for _, f := range textFrames(t, "a", "hel", "lo", " world") {
		commit(store.AppendListRaw(list, f))
	}
	require.Contains(t, remembered(t, r, "op"), "hello world")

	// settlement deletes the list; a later operation re-creates it
	commit(store.DeleteListRaw(list))
	require.Equal(t, "null", remembered(t, r, "op"))
	second := textFrames(t, "a", "b", "ye")
	require.GreaterOrEqual(t, len(second), 3)
	commit(store.AppendListRaw(list, second[0]), store.AppendListRaw(list, second[1]))
	commit(store.AppendListRaw(list, second[2]))
	require.Contains(t, remembered(t, r, "op"), `"bye"`)
	require.NotContains(t, remembered(t, r, "op"), "world")

	// a second start frame does not reduce; a later unparsable frame wins
	commit(store.AppendListRaw(list, second[0]))
	require.Contains(t, remembered(t, r, "op"), "more than one start frame")
	commit(store.AppendListRaw(list, []byte(`{"type":"text_delta"`)))
	require.NotContains(t, remembered(t, r, "op"), "more than one start frame")

	// re-created once more: the errors go with the old list
	commit(store.DeleteListRaw(list))
	commit(store.AppendListRaw(list, second[0]))
	require.NotContains(t, remembered(t, r, "op"), "bye")

	// deleted and re-created longer between two reads (a settlement and a
	// later operation's appends before the next check)
	commitUnread(store.DeleteListRaw(list))
	for _, f := range textFrames(t, "other", "a", "b", "c", "d") {
		commitUnread(store.AppendListRaw(list, f))
	}
	require.Equal(t, wholeReduction(t, ref, "op"), remembered(t, r, "op"))
	require.Contains(t, remembered(t, r, "op"), `"abcd"`)
	require.Contains(t, remembered(t, r, "op"), `"other"`)
}
