package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// storedCrash leaves an orphaned effect_pending whose committed frames are
// start, text_start and a "par" text_delta, followed by extra stored frames.
func storedCrash(t *testing.T, h *harness, extra ...string) (op, resp string) {
	a := newAcc()
	s := seq(a.start(), a.textStart(0), a.textDelta(0, "par"), a.done(pi.StopStop))
	op, resp, _ = crashRun(t, h, 3, s, 5)
	require.Len(t, h.frameList(op, resp), 3)
	for _, f := range extra {
		_, err := h.store.Commit([]store.Write{store.AppendListRaw(FramesAddr(op, resp), []byte(f))})
		require.NoError(t, err)
	}
	return op, resp
}

// pi agent runtime/drive/recovery.ts with pi-ai reduceAssistantMessageFrames:
// a stored frame of a type pi-ai does not know is skipped, so the snapshot
// shows the committed partial and recovery settles the operation.
func TestRecoverySettlesPastUnknownFrameType(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op, resp := storedCrash(t, h, `{"type":"citation","contentIndex":0,"url":"https://example.com"}`)
		snap, err := h.lane.Snapshot()
		require.NoError(t, err)
		require.NotNil(t, snap.StreamingMessage)
		require.Equal(t, "par", textOf(snap.StreamingMessage))

		_, err = h.lane.Step(StepOptions{})
		require.NoError(t, err, "recovery must not fault on a frame pi-ai skips")
		m := h.entryMessage(resp)
		require.Equal(t, pi.StopError, m.StopReason)
		require.Equal(t, "par", textOf(m))
		require.Empty(t, h.frameList(op, resp))
		require.Equal(t, LeafAssistantRetryWait, h.stateOf(op).At)
	})
}

// pi-ai reduceAssistantMessageFrames: `block.text += frame.delta` with the
// delta missing appends "undefined"; recovery commits what pi reduces.
func TestRecoveryReducesUncheckedMembersLikePiAI(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		_, resp := storedCrash(t, h, `{"type":"text_delta","contentIndex":0}`)
		_, err := h.lane.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, "parundefined", textOf(h.entryMessage(resp)))
	})
}

// A frame list pi-ai itself refuses (a second start frame; pi-ai
// utils/assistant-message-frame.js reduceAssistantMessageFrames) still faults
// recovery, as pi's runtime/drive/recovery.ts throws there too.
func TestRecoveryFaultsWherePiAIThrows(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		storedCrash(t, h, `{"type":"start","partial":{}}`)
		_, err := h.lane.Step(StepOptions{})
		require.ErrorContains(t, err, "Assistant message frame sequence contains more than one start frame")
	})
}

// runtime/drive/recovery.ts interruptedAssistantMessage: pi commits
// { ...partial, usage, stopReason, errorMessage } over whatever pi-ai's
// reducer returned, even a partial its types do not allow (text_end
// without content leaves the text undefined, so JSON drops it), and emits
// that message in its recovery message_start/message_end;
// captureLaneSnapshot shows the reduction itself.
func TestRecoveryCommitsAnUntypedReductionAsPiDoes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op, resp := storedCrash(t, h, `{"type":"text_end","contentIndex":0}`)
		partial, err := pi.ParseJSON(string(h.frameList(op, resp)[0].Value))
		require.NoError(t, err)
		start, _ := partial.ObjectValue().Get("partial")
		reduced := pi.DeepClone(start).ObjectValue()
		reduced.Set("content", pi.ArrayValue([]pi.JSONValue{jobj("type", "text")}))
		requireShowsRaw(t, h.lane, pi.ObjectValue(reduced))
		_, err = h.lane.Step(StepOptions{})
		require.NoError(t, err)

		zero, err := pi.ParseJSON(string(ZeroUsage().AppendJSON(nil)))
		require.NoError(t, err)
		reduced.Set("usage", zero)
		reduced.Set("stopReason", pi.StringValue("error"))
		reduced.Set("errorMessage", pi.StringValue(InterruptedWarning))
		want := string(pi.ObjectValue(reduced).AppendJSON(nil))
		require.Equal(t, want, h.entryMessageRaw(resp))
		h.requireRecoveryCarries(want)
		require.Empty(t, h.frameList(op, resp))
		require.Equal(t, LeafAssistantRetryWait, h.stateOf(op).At)
	})
}

// pi-ai utils/assistant-message-frame.js reduceAssistantMessageFrames returns
// a start frame's partial as it is (a string, a number, an array) when no
// later frame touches it, and runtime/drive/recovery.ts
// interruptedAssistantMessage spreads it: a string's UTF-16 units and an
// array's elements under their indexes, nothing of a number.
func TestRecoverySpreadsANonObjectReductionAsPiDoes(t *testing.T) {
	tail := `"usage":` + string(ZeroUsage().AppendJSON(nil)) + `,"stopReason":"error","errorMessage":` + string(pi.StringValue(InterruptedWarning).AppendJSON(nil)) + `}`
	cases := []struct{ partial, reduced, committed string }{
		{`"a\ud83d\ude00"`, `"a😀"`, `{"0":"a","1":"\ud83d","2":"\ude00",` + tail},
		{`[true,{"x":1}]`, `[true,{"x":1}]`, `{"0":true,"1":{"x":1},` + tail},
		{`7`, `7`, `{` + tail},
	}
	for _, c := range cases {
		t.Run(c.partial, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, b backend) {
				h := newHarness(t, b)
				op, resp := storedCrash(t, h)
				_, err := h.store.Commit([]store.Write{store.DeleteListRaw(FramesAddr(op, resp))})
				require.NoError(t, err)
				_, err = h.store.Commit([]store.Write{store.AppendListRaw(FramesAddr(op, resp), []byte(`{"type":"start","partial":`+c.partial+`}`))})
				require.NoError(t, err)
				reduced, err := pi.ParseJSON(c.reduced)
				require.NoError(t, err)
				requireShowsRaw(t, h.lane, reduced)

				_, err = h.lane.Step(StepOptions{})
				require.NoError(t, err)
				require.Equal(t, c.committed, h.entryMessageRaw(resp))
				h.requireRecoveryCarries(c.committed)
				require.Equal(t, LeafAssistantRetryWait, h.stateOf(op).At)
			})
		})
	}
}

// requireShowsRaw checks that Snapshot and Capture show want, the untyped
// reduction pi's captureLaneSnapshot shows, and no typed message.
func requireShowsRaw(t *testing.T, l *Lane, want pi.JSONValue) {
	t.Helper()
	snap, err := l.Snapshot()
	require.NoError(t, err)
	capt, err := l.Capture()
	require.NoError(t, err)
	for _, s := range []*Snapshot{snap, capt} {
		require.Nil(t, s.StreamingMessage)
		require.Equal(t, string(want.AppendJSON(nil)), string(s.StreamingRaw.AppendJSON(nil)))
	}
	require.Equal(t, string(want.AppendJSON(nil)), string(NewClientFold(capt).StreamingRaw.AppendJSON(nil)))
}

// requireRecoveryCarries checks that the recovery's message_start,
// message_end and entry_added carry the committed message want, untyped.
func (h *harness) requireRecoveryCarries(want string) {
	h.t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := map[EventType]bool{}
	for _, ev := range h.events {
		switch ev.Type {
		case EvMessageStart, EvMessageEnd, EvEntryAdded:
			require.True(h.t, ev.Recovery, "%s", ev.Type)
			require.Nil(h.t, ev.Message, "%s carries the typed stand-in", ev.Type)
			require.Equal(h.t, want, string(ev.Raw.AppendJSON(nil)), "%s", ev.Type)
			seen[ev.Type] = true
		}
	}
	require.Len(h.t, seen, 3, "events %v", seen)
}

// entryMessageRaw is the committed entry's message as stored.
func (h *harness) entryMessageRaw(id string) string {
	return string(h.entryMessageValue(id).AppendJSON(nil))
}

// runtime/drive/recovery.ts recoverCancelledAssistantEffect then
// response.ts publishResponse: a cancelled deferred poll settles
// normalizeAborted({ ...partial, ... }) and its turn_end carries that
// committed message, here one no typed message holds.
func TestCancelledPollCarriesAnUntypedReductionInTurnEnd(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op, resp := crashPoll(t, h, 3) // start, text_start, "polled "
		_, err := h.store.Commit([]store.Write{store.AppendListRaw(FramesAddr(op, resp), []byte(`{"type":"text_end","contentIndex":0}`))})
		require.NoError(t, err)
		require.NoError(t, h.lane.RequestCancel())
		_, err = h.lane.Step(StepOptions{})
		require.NoError(t, err)

		committed := h.entryMessageRaw(resp)
		require.Contains(t, committed, `"content":[{"type":"text"}]`)
		require.Contains(t, committed, `"stopReason":"aborted"`)
		h.mu.Lock()
		defer h.mu.Unlock()
		var turnEnd *Event
		for i, ev := range h.events {
			if ev.Type == EvTurnEnd {
				turnEnd = &h.events[i]
			}
		}
		require.NotNil(t, turnEnd, "events %v", h.events)
		require.Nil(t, turnEnd.Message)
		require.Equal(t, committed, string(turnEnd.Raw.AppendJSON(nil)))
	})
}
