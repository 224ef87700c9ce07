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
// without content leaves the text undefined, so JSON drops it). The lane
// commits those bytes too instead of settling as if no frame had been
// committed; Snapshot, typed, shows no streaming message for it.
func TestRecoveryCommitsAnUntypedReductionAsPiDoes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op, resp := storedCrash(t, h, `{"type":"text_end","contentIndex":0}`)
		partial, err := pi.ParseJSON(string(h.frameList(op, resp)[0].Value))
		require.NoError(t, err)
		start, _ := partial.ObjectValue().Get("partial")
		snap, err := h.lane.Snapshot()
		require.NoError(t, err)
		require.Nil(t, snap.StreamingMessage)
		_, err = h.lane.Step(StepOptions{})
		require.NoError(t, err)

		want := pi.DeepClone(start).ObjectValue()
		zero, err := pi.ParseJSON(string(ZeroUsage().AppendJSON(nil)))
		require.NoError(t, err)
		want.Set("content", pi.ArrayValue([]pi.JSONValue{jobj("type", "text")}))
		want.Set("usage", zero)
		want.Set("stopReason", pi.StringValue("error"))
		want.Set("errorMessage", pi.StringValue(InterruptedWarning))
		require.Equal(t, string(pi.ObjectValue(want).AppendJSON(nil)), h.entryMessageRaw(resp))
		require.Empty(t, h.frameList(op, resp))
		require.Equal(t, LeafAssistantRetryWait, h.stateOf(op).At)
	})
}

// entryMessageRaw is the committed entry's message as stored.
func (h *harness) entryMessageRaw(id string) string {
	return string(h.entryMessageValue(id).AppendJSON(nil))
}
