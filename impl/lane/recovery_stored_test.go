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

// A frame list pi-ai itself refuses (a second start frame) still faults
// recovery, as pi's recovery throws there too.
func TestRecoveryFaultsWherePiAIThrows(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		storedCrash(t, h, `{"type":"start","partial":{}}`)
		_, err := h.lane.Step(StepOptions{})
		require.ErrorContains(t, err, "Assistant message frame sequence contains more than one start frame")
	})
}

// A reduction no typed message can hold (text_end without content leaves
// the text undefined) settles as if no frame had been committed: the lane
// is not wedged. pi would commit the odd message as it is; this is the
// lane's one deliberate difference here (see reduceStored).
func TestRecoverySettlesUntypedReductionWithoutPartial(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		op, resp := storedCrash(t, h, `{"type":"text_end","contentIndex":0}`)
		_, err := h.lane.Step(StepOptions{})
		require.NoError(t, err)
		m := h.entryMessage(resp)
		require.Equal(t, "unknown", m.API)
		require.Empty(t, m.Content)
		require.Empty(t, h.frameList(op, resp))
	})
}
