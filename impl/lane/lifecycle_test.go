package lane

import (
	"strconv"
	"testing"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

func TestSmokeNormalResponse(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(3)
		h.provider.add(helloScript())
		r, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepSettled, r.Kind, "%+v", r)
		require.Equal(t, "completed", r.Status)
		require.Equal(t, []string{"lane_created", "run_start", "message_start", "message_end", "entry_added", "turn_start", "message_start", "message_update", "message_update", "message_update", "message_update", "message_end", "entry_added", "usage", "turn_end", "run_end"}, h.eventTypes())
		resp := h.provider.requests[0].ResponseEntryID
		require.Empty(t, h.frameList(op, resp))
		require.Equal(t, "hello world", textOf(h.entryMessage(resp)))
		require.Nil(t, h.stateOf(op))
		require.Contains(t, h.resultOf(op), `"status":"completed"`)
		_ = pi.StopStop
	})
}

// runtime/lane.ts acceptRun: the op meta is {operationId, lane, sourceTipId,
// startedAt, intent:{kind:"run", promptEntryIds}}, in that order.
func TestStartRunWritesPiOpMeta(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		h.open()
		op := h.start(1)
		tip, err := h.store.GetValue(BranchTipAddr("main"))
		require.NoError(t, err)
		meta, err := h.store.GetValue(OpMetaAddr(op))
		require.NoError(t, err)
		want := `{"operationId":"` + op + `","lane":"main","sourceTipId":null,"startedAt":` +
			strconv.FormatInt(envtest.Epoch, 10) + `,"intent":{"kind":"run","promptEntryIds":[` + string(tip.Value) + `]}}`
		require.Equal(t, want, string(meta.Value))
		m, err := decodeMeta(meta.Value)
		require.NoError(t, err)
		require.Equal(t, OpMeta{OperationID: op, Lane: "main", StartedAt: float64(envtest.Epoch), Kind: "run",
			PromptEntryIDs: []string{m.PromptEntryIDs[0]}}, m)
	})
}

// A meta frameproof wrote before it followed acceptRun (no lane, no
// promptEntryIds) still opens; a run meta whose promptEntryIds is not an
// array of strings is refused with its path.
func TestDecodeMetaToleratesEarlierForm(t *testing.T) {
	m, err := decodeMeta([]byte(`{"operationId":"op","intent":{"kind":"run"},"sourceTipId":null,"startedAt":5}`))
	require.NoError(t, err)
	require.Equal(t, OpMeta{OperationID: "op", Kind: "run", StartedAt: 5}, m)
	_, err = decodeMeta([]byte(`{"operationId":"op","lane":"main","sourceTipId":null,"startedAt":5,"intent":{"kind":"run","promptEntryIds":[1]}}`))
	require.ErrorContains(t, err, "promptEntryIds[0]")
}
