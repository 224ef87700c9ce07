package lane

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

const (
	overflowText     = "prompt is too long: 213462 tokens > 200000 maximum"
	compactionConfig = `{"enabled":true,"reserveTokens":16384,"keepRecentTokens":20000}`
)

func overflowRun(t *testing.T) RunOptions {
	run := defaultRun(1)
	s, err := pi.ParseJSON(`{"compaction":` + compactionConfig + `}`)
	require.NoError(t, err)
	run.Settings = s
	return run
}

func overflowScript() *script {
	a := newAcc()
	return seq(a.start(), a.fail(pi.StopError, overflowText))
}

// lastTX is the telemetry of the step's last commit: kind:op:namespace.
func (h *harness) lastTX(n int) []string {
	var got []string
	for _, r := range h.tele[len(h.tele)-n:] {
		got = append(got, r.Kind+":"+r.Op+":"+r.Namespace)
	}
	return got
}

// runtime/drive/response.ts publishResponse: an overflow with something to
// compact settles into summary.deciding and writes prepareOverflowCompaction's
// durable preparation (structural.ts) after the frame list delete and before
// the op state, keyed by the task id the new state names.
func TestOverflowSettlementWritesPreparation(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.startRun(overflowRun(t))
		h.provider.add(overflowScript())
		_, err := l.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, []string{"entry::", "usage::", "value:set:pi.branch.tip", "list:delete:pi.pending.assistant_frame",
			"value:set:pi.op.preparation", "value:set:pi.op.state"}, h.lastTX(6))

		st := h.stateOf(op)
		require.Equal(t, LeafSummaryDeciding, st.At)
		taskID := st.Task.Prop("taskId").Str()
		require.NotEmpty(t, taskID)
		require.Equal(t, op+":"+taskID, h.tele[len(h.tele)-2].Key)
		v, err := h.store.GetValue(PreparationAddr(op, taskID))
		require.NoError(t, err)
		require.NotNil(t, v)
		user := h.firstMessageJSON()
		want := `{"kind":"compaction","messagesToSummarize":[],"turnPrefixMessages":[],"retainedTail":[` + user +
			`],"isSplitTurn":false,"tokensBefore":1,"fileOps":{"read":[],"written":[],"edited":[]},"settings":` + compactionConfig + `}`
		require.Equal(t, want, string(v.Value))
		require.Contains(t, h.eventTypes(), string(EvCompactionStart))
	})
}

// firstMessageJSON is the stored message of the first entry (the run's user entry).
func (h *harness) firstMessageJSON() string {
	es, err := h.store.Entries()
	require.NoError(h.t, err)
	require.NotEmpty(h.t, es)
	v, err := pi.ParseJSON(string(es[0].Entry.Raw))
	require.NoError(h.t, err)
	return string(v.Prop("message").AppendJSON(nil))
}

// seedAfterCompaction commits, before the lane opens, a branch whose tip is
// a compaction entry and a run at assistant.ready on it (pi's state after a
// threshold compaction resumed a need_assistant checkpoint).
func (h *harness) seedAfterCompaction(t *testing.T, op string) {
	user := `{"role":"user","content":"old question","timestamp":1}`
	tip := "c1"
	st := &OpState{At: LeafAssistantReady, Settings: overflowRun(t).Settings, NextAttempt: 1, Gen: &GenerationContext{
		StepID: "step-1", TriggerEntryID: "u0", Configuration: defaultRun(1).Configuration, RetryPolicy: defaultRun(1).RetryPolicy}}
	meta := OpMeta{OperationID: op, Kind: "run", SourceTipID: &tip, StartedAt: 1}
	ls := LaneState{CurrentOperationID: &op}
	u0 := "u0"
	_, err := h.store.Commit([]store.Write{
		store.InsertEntry(store.Entry{ID: "u0", Raw: messageEntryRaw("u0", nil, []byte(user))}),
		store.InsertEntry(store.Entry{ID: "c1", ParentID: &u0, Raw: []byte(`{"id":"c1","parentId":"u0","type":"compaction","summary":"S","retainedTail":[` +
			user + `],"tokensBefore":5,"fromHook":false}`)}),
		store.SetValueRaw(BranchTipAddr("main"), []byte(`"c1"`)),
		store.SetValueRaw(LaneConfigAddr("main"), defaultRun(1).Configuration.value().AppendJSON(nil)),
		store.SetValueRaw(OpMetaAddr(op), meta.raw()),
		store.SetValueRaw(OpStateAddr(op), MarshalState(st)),
		store.SetValueRaw(LaneStateAddr("main"), ls.raw()),
	})
	require.NoError(t, err)
}

// runtime/drive/response.ts publishResponse: when prepareCompaction finds
// nothing to compact (the branch ends in a compaction), the overflow fails
// the run with providerError — assistant_error and the committed error
// message — and writes no preparation.
func TestOverflowWithNothingToCompactFailsRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		const op = "op-after-compaction"
		h.seedAfterCompaction(t, op)
		l := h.open()
		h.provider.add(overflowScript())
		r, err := l.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepSettled, r.Kind)
		require.Equal(t, "failed", r.Status)
		require.Equal(t, []string{"entry::", "usage::", "value:set:pi.branch.tip", "value:delete:pi.op.meta", "value:delete:pi.op.state",
			"list:delete:pi.pending.assistant_frame", "value:set:pi.result", "value:set:pi.lane.state"}, h.lastTX(8))
		require.Contains(t, h.resultOf(op), `"error":{"code":"assistant_error","message":"`+overflowText+`"}`)
		vals, err := h.store.ScanValues(NSPreparation, "")
		require.NoError(t, err)
		require.Empty(t, vals)
		types := h.eventTypes()
		require.NotContains(t, types, string(EvCompactionStart))
		require.Equal(t, string(EvRunEnd), types[len(types)-1])
	})
}

// runtime/drive/structural.ts prepareOverflowCompaction reads
// settings.compaction; a run whose settings lack it makes prepareCompaction
// throw, which faults the harness before any settlement commits.
func TestOverflowWithoutCompactionSettingsFaults(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	op := h.start(1)
	h.provider.add(overflowScript())
	_, err := l.Step(StepOptions{})
	var hf *HarnessFault
	require.ErrorAs(t, err, &hf)
	require.EqualError(t, hf.Cause, "Cannot read properties of undefined (reading 'keepRecentTokens')")
	require.Equal(t, LeafAssistantEffectPending, h.stateOf(op).At)
}

// runtime/drive/structural.ts prepareOverflowCompaction: once a cancel is
// requested, readBoundedEntries answers cancel_requested and nothing is
// prepared (so a run without settings.compaction does not throw); the
// settlement commits the aborted response with no preparation write.
func TestOverflowAfterCancelPreparesNothing(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	op := h.start(1) // no settings.compaction: preparing would throw
	h.hook = func(m *pi.AssistantMessage) (*pi.AssistantMessage, error) {
		return m, l.RequestCancel()
	}
	h.provider.add(overflowScript())
	_, err := l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"entry::", "usage::", "value:set:pi.branch.tip", "list:delete:pi.pending.assistant_frame",
		"value:set:pi.op.state"}, h.lastTX(5))
	st := h.stateOf(op)
	require.Equal(t, LeafCheckpoint, st.At)
	require.Equal(t, pi.StopAborted, h.entryMessage(*st.LatestAssistantEntryID).StopReason)
}
