package lane

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
)

// lostStep is one drive step whose command reaches the line after an
// external Finalize removed the operation the step read.
type lostStep struct {
	name string
	// leaf is where the run is driven to before the finalization.
	leaf Leaf
	// step runs the step's procedure on the operation as it was read.
	step func(l *Lane, op string, read *Operation) (StepResult, error)
}

var lostSteps = []lostStep{
	{"intent", LeafAssistantReady, func(l *Lane, op string, read *Operation) (StepResult, error) {
		return l.runGeneration(op, read.State)
	}},
	{"retry-ready", LeafAssistantReady, func(l *Lane, op string, read *Operation) (StepResult, error) {
		wait := read.State.Clone()
		wait.At, wait.NotBefore = LeafAssistantRetryWait, 0 // due: no wait
		return l.runRetryWait(op, wait, StepOptions{})
	}},
	{"start", LeafStarting, func(l *Lane, op string, read *Operation) (StepResult, error) {
		return l.startRun(op, read.Meta)
	}},
	{"checkpoint", LeafCheckpoint, func(l *Lane, op string, read *Operation) (StepResult, error) {
		return l.runCheckpoint(op, read.State)
	}},
	{"recovery-read", LeafAssistantReady, func(l *Lane, op string, read *Operation) (StepResult, error) {
		eff := read.State.Clone()
		eff.At, eff.ResponseEntryID = LeafAssistantEffectPending, "r-orphan"
		return l.recoverEffect(op, eff, false)
	}},
}

// driveTo starts a run and steps it until the operation is at leaf.
func (h *harness) driveTo(leaf Leaf) (string, *Operation) {
	op, err := h.lane.StartRun(defaultRun(1))
	require.NoError(h.t, err)
	for h.lane.Current().State.At != leaf {
		r, err := h.lane.Step(StepOptions{})
		require.NoError(h.t, err)
		require.Equal(h.t, StepProgress, r.Kind)
	}
	return op, h.lane.Current()
}

// runtime/lane.ts continueOperation: every drive command runs through
// settleOperation, which reads state.operation!.state; after an external
// Finalize removed the operation that read throws and the harness faults
// (pi's default), where frameproof's SkipStaleSettlement declines.
func TestDriveCommandAfterExternalFinalization(t *testing.T) {
	for _, s := range lostSteps {
		t.Run(s.name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, b backend) {
				h := newHarness(t, b)
				l := h.open()
				op, read := h.driveTo(s.leaf)
				require.NoError(t, l.Finalize("aborted", nil))
				h.resetEvents()
				_, err := s.step(l, op, read)
				var hf *HarnessFault
				require.ErrorAs(t, err, &hf)
				require.Equal(t, "Cannot read properties of null (reading 'state')", hf.Cause.Error())
				require.ErrorIs(t, l.Fault(), hf, "the fault seals the lane")
				require.Empty(t, h.tele, "the faulted command writes nothing")
				require.Empty(t, h.eventTypes())
				require.Empty(t, h.provider.requests)

				h = newHarness(t, b)
				h.skipStale = true
				l = h.open()
				op, read = h.driveTo(s.leaf)
				require.NoError(t, l.Finalize("aborted", nil))
				h.resetEvents()
				r, err := s.step(l, op, read)
				require.NoError(t, err)
				require.Equal(t, StepResult{Kind: StepProgress}, r)
				require.NoError(t, l.Fault())
				require.Empty(t, h.tele)
				require.Empty(t, h.eventTypes())
				require.Empty(t, h.provider.requests)
			})
		})
	}
}

// runtime/drive.ts driveOperation: the loop reads currentOperation before
// and after every procedure and throws "Drive <id> has no matching current
// operation" once the operation is gone, so a Drive whose operation an
// external Finalize removed between two steps faults (pi's default) where
// SkipStaleSettlement ends it idle.
func TestDriveLoopAfterExternalFinalization(t *testing.T) {
	for _, skip := range []bool{false, true} {
		h := newHarness(t, backends[0])
		h.skipStale = skip
		l := h.open()
		op := h.start(1)
		h.provider.add(helloScript())
		var once sync.Once
		h.mu.Lock()
		h.listener = func(ev Event) env.Future { // the settlement's last event: the step has no command left
			if ev.Type == EvTurnEnd {
				once.Do(func() { require.NoError(t, l.Finalize("aborted", nil)) })
			}
			return nil
		}
		h.mu.Unlock()
		r, err := l.Drive(StepOptions{})
		require.Contains(t, h.resultOf(op), `"status":"aborted"`)
		if skip {
			require.NoError(t, err)
			require.Equal(t, StepResult{Kind: StepIdle}, r)
			require.NoError(t, l.Fault())
			continue
		}
		var hf *HarnessFault
		require.ErrorAs(t, err, &hf)
		require.Equal(t, "Drive "+op+" has no matching current operation", hf.Cause.Error())
		require.ErrorIs(t, l.Fault(), hf)
	}
}

// runtime/drive/deferred.ts readSourceHandle: a deferred step reads its
// source handle through lane.continueOperation with or without a permit, so
// a step whose operation an external Finalize removed faults with pi's null
// read (pi's default) instead of reporting the wait; SkipStaleSettlement
// declines it as a stale step.
func TestDeferredStepAfterExternalFinalization(t *testing.T) {
	for _, permit := range []bool{false, true} {
		for _, skip := range []bool{false, true} {
			h := newHarness(t, backends[0])
			h.skipStale = skip
			op := suspend(t, h)
			l, read := h.lane, h.lane.Current()
			require.NoError(t, l.Finalize("aborted", nil))
			h.resetEvents()
			requests := len(h.provider.requests)
			p := permit
			r, err := l.pollDeferred(op, read.State, &p)
			require.Empty(t, h.eventTypes(), "permit %v skip %v", permit, skip)
			require.Len(t, h.provider.requests, requests)
			if skip {
				require.NoError(t, err)
				require.Equal(t, StepResult{Kind: StepProgress}, r, "permit %v", permit)
				require.NoError(t, l.Fault())
				continue
			}
			var hf *HarnessFault
			require.ErrorAs(t, err, &hf, "permit %v", permit)
			require.Equal(t, "Cannot read properties of null (reading 'state')", hf.Cause.Error())
			require.ErrorIs(t, l.Fault(), hf)
		}
	}
}

// A deferred step without a permit whose operation was cancelled after the
// step read it: continueOperation answers cancel_requested and pollDeferred
// continues (runtime/drive/deferred.ts pollDeferred), so the step reports
// progress and the next step reconciles.
func TestDeferredWaitAfterCancelContinues(t *testing.T) {
	h := newHarness(t, backends[0])
	op := suspend(t, h)
	l, read := h.lane, h.lane.Current()
	require.NoError(t, l.RequestCancel())
	noPermit := false
	r, err := l.pollDeferred(op, read.State, &noPermit)
	require.NoError(t, err)
	require.Equal(t, StepResult{Kind: StepProgress}, r)
}

// runtime/drive.ts driveOperation: the currentOperation check after a
// procedure is the loop's, which Drive is; Step is one procedure and
// leaves it out (Step's doc comment). A step whose operation is finalized
// after its last command reports its own progress, and the next Step
// finds no operation to drive.
func TestStepAfterLastCommandLeavesTheCheckToTheLoop(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	op := h.start(1)
	h.provider.add(helloScript())
	for l.Current().State.At != LeafAssistantReady {
		_, err := l.Step(StepOptions{})
		require.NoError(t, err)
	}
	var once sync.Once
	h.mu.Lock()
	h.listener = func(ev Event) env.Future {
		if ev.Type == EvTurnEnd {
			once.Do(func() { require.NoError(t, l.Finalize("aborted", nil)) })
		}
		return nil
	}
	h.mu.Unlock()
	r, err := l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, StepResult{Kind: StepProgress}, r)
	require.Contains(t, h.resultOf(op), `"status":"aborted"`)
	r, err = l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, StepResult{Kind: StepIdle}, r)
	require.NoError(t, l.Fault())
}

// runtime/drive/deferred.ts readSourceHandle runs inside
// continueOperation, so the null read comes before the handle is read: a
// step on a source pi refuses, whose operation a Finalize removed after
// the step read it, faults with the lost-operation message, not the
// refusal.
func TestDeferredRefusedSourceAfterExternalFinalization(t *testing.T) {
	h := newHarness(t, backends[0])
	h.open()
	op, _ := pollWithBadHandle(t, h)
	l, read := h.lane, h.lane.Current()
	require.NoError(t, l.Finalize("aborted", nil))
	noPermit := false
	_, err := l.pollDeferred(op, read.State, &noPermit)
	var hf *HarnessFault
	require.ErrorAs(t, err, &hf)
	require.Equal(t, "Cannot read properties of null (reading 'state')", hf.Cause.Error())
}
