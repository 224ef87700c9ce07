package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// stateJSON is the stored op state of op, byte for byte.
func (h *harness) stateJSON(op string) string {
	v, err := h.store.GetValue(OpStateAddr(op))
	require.NoError(h.t, err)
	require.NotNil(h.t, v)
	return string(v.Value)
}

func settingsRun() RunOptions {
	run := defaultRun(1)
	run.Settings = mustParse(`{"steeringMode":"all"}`)
	return run
}

func mustParse(s string) pi.JSONValue {
	v, err := pi.ParseJSON(s)
	if err != nil {
		panic(err)
	}
	return v
}

// runtime/lane.ts acceptRun: the run is accepted at `starting`, a literal
// whose `at` comes before the scope {control, settings,
// latestAssistantEntryId:null}; no step id is minted at acceptance.
func TestStartRunCommitsStartingLeaf(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op, err := l.StartRun(settingsRun())
		require.NoError(t, err)
		require.Equal(t, `{"at":"starting","control":{"status":"running"},"settings":{"steeringMode":"all"},"latestAssistantEntryId":null}`,
			h.stateJSON(op))
		require.Equal(t, envtest.IDsAfter(2).NewID(), h.ids.NewID(), "operation and prompt entry ids only")
	})
}

// runtime/drive/checkpoint.ts startRun: the first drive step commits the
// initial checkpoint {scope, at, continuation:{kind:"need_assistant",
// overflowRecoveryUsed:false}, triggerEntryId: the prompt entry} in a TX
// that sets only the op state, and emits nothing.
func TestStartRunStepCommitsNeedAssistantCheckpoint(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op, err := l.StartRun(settingsRun())
		require.NoError(t, err)
		user := h.firstEntryID()
		events, commits := len(h.eventTypes()), len(h.tele)
		r, err := l.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepResult{Kind: StepProgress}, r)
		require.Equal(t, []string{"value:set:pi.op.state"}, h.lastTX(len(h.tele)-commits))
		require.Equal(t, `{"control":{"status":"running"},"settings":{"steeringMode":"all"},"latestAssistantEntryId":null,`+
			`"at":"checkpoint","continuation":{"kind":"need_assistant","overflowRecoveryUsed":false},"triggerEntryId":"`+user+`"}`,
			h.stateJSON(op))
		require.Len(t, h.eventTypes(), events, "startRun emits nothing without hooks")
	})
}

// runtime/drive/checkpoint.ts runCheckpoint: a need_assistant checkpoint
// moves to assistant.ready through boundary.ts assistantReadyAtBoundary,
// which mints the step id then; the TX sets the op state and the lane
// state (the boundary's placement names the inbox) and emits nothing.
// runCheckpoint passes the whole checkpoint state as the scope, and
// assistantReadyAtBoundary's literal spreads it ({...scope, at,
// generationContext, nextAttempt}), so the ready state keeps the
// checkpoint's continuation and triggerEntryId between at and
// generationContext (pi-agent-core 0.85.1 writes exactly these bytes).
func TestCheckpointMintsAssistantStep(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op, err := l.StartRun(settingsRun())
		require.NoError(t, err)
		user := h.firstEntryID()
		_, err = l.Step(StepOptions{})
		require.NoError(t, err)
		events, commits := len(h.eventTypes()), len(h.tele)
		r, err := l.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepResult{Kind: StepProgress}, r)
		require.Equal(t, []string{"value:set:pi.op.state", "value:set:pi.lane.state"}, h.lastTX(len(h.tele)-commits))
		st := h.stateOf(op)
		require.Equal(t, envtest.IDsAfter(2).NewID(), st.Gen.StepID, "the step id is the first id minted after acceptance")
		require.Equal(t, LeafAssistantReady, st.At)
		require.Equal(t, `{"control":{"status":"running"},"settings":{"steeringMode":"all"},"latestAssistantEntryId":null,`+
			`"at":"assistant.ready","continuation":{"kind":"need_assistant","overflowRecoveryUsed":false},"triggerEntryId":"`+user+`",`+
			`"generationContext":{"stepId":"`+st.Gen.StepID+`","triggerEntryId":"`+user+`",`+
			`"configuration":{"model":{"provider":"openai","modelId":"gpt-test"},"thinkingLevel":"off","activeToolNames":[]},`+
			`"streamOptions":{},"retryPolicy":{"maxAttempts":1,"baseDelayMs":1000},"overflowRecoveryUsed":false},"nextAttempt":1}`,
			h.stateJSON(op))
		ls, err := h.store.GetValue(LaneStateAddr("main"))
		require.NoError(t, err)
		require.Equal(t, `{"currentOperationId":"`+op+`","lastOperationId":null,"inbox":[]}`, string(ls.Value))
		require.Len(t, h.eventTypes(), events, "runCheckpoint emits nothing without queued input")
	})
}

// runtime/drive.ts driveOperation dispatches on the restored leaf
// (restore.ts does not interpret it): a process lost at `starting` or at
// the checkpoint resumes with startRun or runCheckpoint and completes.
func TestCrashAtStartLeavesResumes(t *testing.T) {
	for _, steps := range []int{0, 1} {
		h := newHarness(t, backends[0])
		l := h.open()
		op, err := l.StartRun(defaultRun(1))
		require.NoError(t, err)
		for i := 0; i < steps; i++ {
			_, err := l.Step(StepOptions{})
			require.NoError(t, err)
		}
		require.NoError(t, l.Close())
		cfg := h.config()
		cfg.Generation = &GenerationConfig{Configuration: defaultRun(1).Configuration, RetryPolicy: defaultRun(1).RetryPolicy}
		l, err = Open(cfg)
		require.NoError(t, err)
		h.provider.add(helloScript())
		r, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepResult{Kind: StepSettled, Status: "completed"}, r, "after %d steps", steps)
		require.Contains(t, h.resultOf(op), `"status":"completed"`)
	}
}

// runtime/drive/boundary.ts assistantReadyAtBoundary takes stream options
// and the retry policy from the harness's options, which pi never persists:
// a process reopened at the checkpoint without them (Config.Generation)
// cannot mint the assistant step, so the boundary faults and commits
// nothing.
func TestCheckpointWithoutGenerationFaults(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	op, err := l.StartRun(defaultRun(1))
	require.NoError(t, err)
	_, err = l.Step(StepOptions{})
	require.NoError(t, err)
	require.NoError(t, l.Close())
	l = h.open()
	_, err = l.Step(StepOptions{})
	var hf *HarnessFault
	require.ErrorAs(t, err, &hf)
	require.ErrorIs(t, err, errNoGeneration)
	require.Equal(t, LeafCheckpoint, h.stateOf(op).At)
}

// runtime/drive/reconcile.ts reconcileOperation: a cancelled `starting` or
// `checkpoint` operation gets publishAbortedTerminal: the aborted result,
// no provider request, no assistant entry.
func TestCancelAtStartLeavesAborts(t *testing.T) {
	for _, steps := range []int{0, 1} {
		h := newHarness(t, backends[0])
		l := h.open()
		op, err := l.StartRun(defaultRun(1))
		require.NoError(t, err)
		for i := 0; i < steps; i++ {
			_, err := l.Step(StepOptions{})
			require.NoError(t, err)
		}
		require.NoError(t, l.RequestCancel())
		r, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepResult{Kind: StepSettled, Status: "aborted"}, r)
		require.Empty(t, h.provider.requests)
		require.Contains(t, h.resultOf(op), `"status":"aborted"`)
	}
}

// runtime/drive/checkpoint.ts startRun admits the before_run hook through
// the drive's effect gate (hooks.ts runWithGate): a cancel whose abort
// began before that admission leaves the op at `starting`; the step awaits
// the cancellation and the next step reconciles.
func TestCancelBeforeBeforeRunAdmissionCommitsNoCheckpoint(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	op, err := l.StartRun(defaultRun(1))
	require.NoError(t, err)
	// requestOperationAbort's synchronous half; its command then completed
	// without committing (as for a request that lost its operation)
	l.beginAbort("").Resolve(nil)
	r, err := l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, StepProgress, r.Kind)
	require.Equal(t, LeafStarting, h.stateOf(op).At)
}

// firstEntryID is the id of the first stored entry (the run's prompt).
func (h *harness) firstEntryID() string {
	es, err := h.store.Entries()
	require.NoError(h.t, err)
	require.NotEmpty(h.t, es)
	return es[0].Entry.ID
}

// session/types.ts StartingOperation and CheckpointOperation as pi stores
// them (a pi session left at either leaf) decode and re-encode byte for
// byte: `at` first for starting, both continuation kinds for checkpoint.
func TestStartLeavesDecodeAsPiStoresThem(t *testing.T) {
	for _, raw := range []string{
		`{"at":"starting","control":{"status":"cancel_requested","requestedAt":5},"settings":{"steeringMode":"all"},"latestAssistantEntryId":null}`,
		`{"control":{"status":"running"},"settings":{},"latestAssistantEntryId":"a1","at":"checkpoint","continuation":{"kind":"need_assistant","overflowRecoveryUsed":true},"triggerEntryId":"t1"}`,
		`{"control":{"status":"running"},"settings":{},"latestAssistantEntryId":"a1","at":"checkpoint","continuation":{"kind":"may_finish","includeFinalAssistant":false},"triggerEntryId":"t1"}`,
	} {
		s, err := DecodeState([]byte(raw))
		require.NoError(t, err, raw)
		require.Equal(t, raw, string(MarshalState(s)))
	}
	_, err := DecodeState([]byte(`{"control":{"status":"running"},"settings":{},"latestAssistantEntryId":null,"at":"checkpoint","continuation":{"kind":"later"},"triggerEntryId":"t1"}`))
	require.ErrorContains(t, err, `unsupported checkpoint continuation "later"`)
}

// runtime/drive/checkpoint.ts runCheckpoint: the may_finish boundary's
// planning continueOperation (and finishRunBoundary's after it) answers
// cancel_requested for a run cancelled after the step read its
// checkpoint, so the finish commits nothing and returns continue; the next
// step reconciles the cancellation with the aborted terminal, where the
// old finish command ignored the cancel and completed the run.
func TestMayFinishBoundaryAfterCancelCommitsNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(1)
		h.provider.add(helloScript())
		_, err := l.Step(StepOptions{})
		require.NoError(t, err)
		read := l.Current() // the step's dispatch reads the checkpoint
		require.Equal(t, LeafCheckpoint, read.State.At)
		require.Equal(t, ContinueMayFinish, read.State.Continuation.Kind)
		require.NoError(t, l.RequestCancel())
		commits := len(h.tele)
		r, err := l.finishBoundary(op, read.State)
		require.NoError(t, err)
		require.Equal(t, StepResult{Kind: StepProgress}, r)
		require.Len(t, h.tele, commits)
		r, err = l.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepResult{Kind: StepSettled, Status: "aborted"}, r)
		require.Contains(t, h.resultOf(op), `"status":"aborted"`)
	})
}
