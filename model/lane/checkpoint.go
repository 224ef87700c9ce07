package lane

import (
	"fmt"
)

// The run's start leaves (runtime/drive/checkpoint.ts): acceptance leaves
// the operation at `starting`; the drive's start step commits the initial
// checkpoint, which asks for an assistant step; the checkpoint step mints
// that step (boundary.ts assistantReadyAtBoundary) and moves to
// assistant.ready. The start emits nothing (no hooks inject entries); the
// checkpoint places the queued steering input (inbox.go); a cancel requested before
// either commits makes it commit nothing, and the next step reconciles.

// startDone is the start step's outcome at its commit (or at its end when
// nothing committed): the op state set to the checkpoint {need_assistant,
// triggerEntryId: the prompt entry}, unless the operation was cancelled or
// is no longer current by then.
func (m *Model) startDone(id string, o Op) Outcome {
	if id == "" || id != m.dispatched.op || o.At != AtStarting || o.CancelRequested {
		return Outcome{Kind: "progress"}
	}
	m.expectTX(setValue(nsOpState, id, ""))
	m.st.Ops[id] = Op{At: AtCheckpoint, Continuation: NeedAssistant, CancelRequested: o.CancelRequested,
		RequestedAt: o.RequestedAt, LatestAssistantEntryID: o.LatestAssistantEntryID}
	return Outcome{Kind: "progress"}
}

// Checkpoint: the checkpoint step's TX committed with the step id the lane
// minted: the placed steer input, the op state at assistant.ready (attempt
// 1, triggered by the last placed message or else the checkpoint's
// trigger), then the lane state (the boundary's placement always names the
// inbox).
func (m *Model) Checkpoint(stepID string) error {
	defer m.fillStateValues()
	if m.plan == nil || m.plan.Kind != "checkpoint" || m.boundary {
		return fmt.Errorf("model/lane: checkpoint %s: no checkpoint step expects it", stepID)
	}
	id, o, ok := m.current()
	if !ok || id != m.dispatched.op || o.At != AtCheckpoint || o.Continuation != NeedAssistant || o.CancelRequested {
		return fmt.Errorf("model/lane: checkpoint %s committed, but operation %q is not at a running need_assistant checkpoint", stepID, id)
	}
	// boundary.ts planBoundaryInbox without followUps; the step's
	// configuration is the lane's (pi.lane.config), whatever the run was
	// started with; past the threshold with no message placed, the run
	// compacts (threshold.go)
	items := m.boundaryItems(id, false)
	if a := m.threshold(id, o); a.prep != "" && len(items) == 0 {
		if stepID != "" {
			return fmt.Errorf("model/lane: the boundary compacts past the threshold, but the lane minted assistant step %s", stepID)
		}
		return m.compactAtBoundary(id, o, a.prep, items)
	}
	if err := m.noTaskExpected(); err != nil {
		return err
	}
	return m.readyAtBoundary(id, o, stepID, items)
}
