package invariants

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

func frameJSON(t *testing.T, f *pi.Frame) []byte {
	b, err := pi.Marshal(f)
	require.NoError(t, err)
	return b
}

// baseline: op A settled response R1 (entry, list gone, checkpoint); op B is
// effect_pending on R2 with two committed frames.
func baseline(t *testing.T) *View {
	start := frameJSON(t, &pi.Frame{Type: pi.FrameStart, Partial: &pi.AssistantMessage{Content: []pi.Content{}, API: "x", Provider: "p", Model: "m", StopReason: pi.StopPending}})
	delta := frameJSON(t, &pi.Frame{Type: pi.FrameTextStart, ContentIndex: pi.Index(0), Block: pi.TextContent{Text: "a"}})
	rec := func(op, resp string, i int, et pi.EventType, o lane.FrameOutcome, seq int64) LogItem {
		return LogItem{Frame: &lane.FrameRecord{OperationID: op, ResponseEntryID: resp, EventIndex: i, EventType: et, Outcome: o, Seq: seq}}
	}
	ev := func(e lane.Event) LogItem { return LogItem{Event: &e} }
	ok := &pi.AssistantMessage{Content: []pi.Content{pi.TextContent{Text: "a"}}, StopReason: pi.StopStop}
	epB := &lane.OpState{At: lane.LeafAssistantEffectPending, ResponseEntryID: "R2", UsageID: "U2", Gen: &lane.GenerationContext{}}
	return &View{
		Ops:     map[string]*lane.OpState{"A": {At: lane.LeafCheckpoint, TriggerEntryID: "R1"}, "B": epB},
		Results: map[string]bool{},
		Lists: map[string][]store.ListElement{
			"A:R1": nil,
			"B:R2": {{Seq: 10, Value: start}, {Seq: 11, Value: delta}},
		},
		Entries: map[string]*pi.AssistantMessage{"R1": ok},
		Log: []LogItem{
			rec("A", "R1", 0, pi.EventStart, lane.FrameEnqueued, 0),
			rec("A", "R1", 0, pi.EventStart, lane.FrameCommitted, 3),
			ev(lane.Event{Type: lane.EvMessageEnd, EntryID: "R1"}),
			ev(lane.Event{Type: lane.EvEntryAdded, EntryID: "R1"}),
			rec("B", "R2", 0, pi.EventStart, lane.FrameEnqueued, 0),
			rec("B", "R2", 1, pi.EventTextStart, lane.FrameEnqueued, 0),
			rec("B", "R2", 0, pi.EventStart, lane.FrameCommitted, 10),
			rec("B", "R2", 1, pi.EventTextStart, lane.FrameCommitted, 11),
		},
		Snapshot:   &lane.Snapshot{State: epB, StreamingMessage: ok, Transcript: []lane.TranscriptEntry{{ID: "R1"}}},
		Restored:   &lane.Operation{ID: "B", State: epB.Clone()},
		Structural: [][2]string{{"S", "s1"}},
	}
}

func TestBaselinePasses(t *testing.T) {
	require.NoError(t, Check(baseline(t)))
	require.Len(t, All, 12)
}

// Each invariant rejects a deliberately broken view, and only that break
// is needed to trip it.
func TestEachInvariantRejectsABrokenView(t *testing.T) {
	breaks := brokenViews()
	for _, c := range All {
		br, ok := breaks[c.N]
		require.True(t, ok, "invariant %d has no mutation test", c.N)
		v := baseline(t)
		require.NoError(t, c.Check(v), "invariant %d on baseline", c.N)
		br(v)
		err := c.Check(v)
		require.Error(t, err, "invariant %d did not reject its broken view", c.N)
		full := Check(v)
		require.Error(t, full)
		require.True(t, strings.HasPrefix(full.Error(), "invariant "), full.Error())
	}
}

// brokenViews breaks the baseline for each invariant: only that break is
// needed to trip it.
func brokenViews() map[int]func(v *View) {
	return map[int]func(v *View){
		1: func(v *View) { v.Restored.State.ResponseEntryID = "R-other" },
		2: func(v *View) {
			v.Log = append(v.Log, LogItem{Frame: &lane.FrameRecord{OperationID: "C", ResponseEntryID: "R2", EventIndex: 9, Outcome: lane.FrameCommitted, Seq: 99}})
		},
		3: func(v *View) {
			v.Lists["B:R2"] = append(v.Lists["B:R2"], store.ListElement{Seq: 12, Value: []byte(`{"type":"done"}`)})
		},
		4: func(v *View) {
			v.Log = append(v.Log, LogItem{Frame: &lane.FrameRecord{OperationID: "B", ResponseEntryID: "R2", EventIndex: 5, EventType: pi.EventDone, Outcome: lane.FrameEnqueued}})
		},
		5: func(v *View) { v.Lists["B:R2"][0].Seq, v.Lists["B:R2"][1].Seq = 11, 10 },
		6: func(v *View) {
			// message_end of R1 before its frame committed
			v.Log[1], v.Log[2] = v.Log[2], v.Log[1]
		},
		7: func(v *View) {
			v.Log = append(v.Log, LogItem{Event: &lane.Event{Type: lane.EvEntryAdded, EntryID: "R1", Recovery: true, Synthetic: true}})
		},
		8: func(v *View) { v.Lists["A:R1"] = v.Lists["B:R2"] },
		9: func(v *View) { v.Snapshot.Transcript = append(v.Snapshot.Transcript, lane.TranscriptEntry{ID: "R2"}) },
		10: func(v *View) {
			v.Entries["R3"] = &pi.AssistantMessage{StopReason: pi.StopError, Content: []pi.Content{pi.ToolCall{ID: "c"}}}
			v.Ops["D"] = &lane.OpState{At: lane.LeafTools, BatchAssistantEntryID: "R3"}
		},
		11: func(v *View) { v.Lists["S:s1"] = v.Lists["B:R2"] },
		12: func(v *View) {
			v.Ops["B"] = nil
			v.Results["B"] = true
			v.Snapshot = nil
			v.Restored = nil
		},
	}
}

// Invariant 7 counts only synthetic settlements: a live poll that replaces
// an orphaned deferred poll is recovery-tagged, streams for real and may
// succeed. (The checker once keyed on Recovery and failed such runs.)
func TestLiveRecoveryTaggedSuccessIsNotASyntheticSettlement(t *testing.T) {
	v := baseline(t)
	v.Log = append(v.Log, LogItem{Event: &lane.Event{Type: lane.EvEntryAdded, EntryID: "R1", Recovery: true}})
	require.NoError(t, framesNeverComplete(v))
	v.Log[len(v.Log)-1].Event.Synthetic = true
	require.Error(t, framesNeverComplete(v), "the same success marked synthetic is a violation")
}

// Invariant 3's memo (a ViewReader's views share it) skips only the bytes it
// found canonical: a non-canonical element, or one that no longer parses,
// still fails after the canonical ones were remembered.
func TestCanonicalFrameMemoSkipsOnlyCanonicalBytes(t *testing.T) {
	memo := map[string]bool{}
	v := baseline(t)
	v.canonical = memo
	require.NoError(t, elementsAreFrames(v))
	require.Len(t, memo, 2, "both committed frames remembered")

	for _, bad := range []string{`{"type":"done"}`, `{"type": "start"}`, `not json`} {
		w := baseline(t)
		w.canonical = memo
		w.Lists["B:R2"] = append(w.Lists["B:R2"], store.ListElement{Seq: 12, Value: []byte(bad)})
		require.Error(t, elementsAreFrames(w), bad)
		require.False(t, memo[bad], bad)
	}
}

// Invariant 2 also holds a response to one list: a list of the response
// under another operation's key is a violation, and so is a record of the
// response under another operation.
func TestOneAddressRejectsASecondListOrKey(t *testing.T) {
	require.NoError(t, oneAddress(baseline(t)))
	v := baseline(t)
	v.Lists["X:R2"] = nil
	require.ErrorContains(t, oneAddress(v), "response R2 has lists B:R2 and X:R2")
	v = baseline(t)
	v.Log = append(v.Log, LogItem{Frame: &lane.FrameRecord{OperationID: "X", ResponseEntryID: "R2", Outcome: lane.FrameCommitted, Seq: 12}})
	require.ErrorContains(t, oneAddress(v), "response R2 written to B:R2 and X:R2")
}
