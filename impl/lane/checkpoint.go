package lane

import (
	"errors"
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// GenerationConfig is a process's share of what a run boundary puts into
// an assistant step's generation context (boundary.ts
// assistantReadyAtBoundary): pi's harness options, the stream options and
// the retry policy, normalized. Configuration only seeds pi.lane.config
// when the lane is acquired (laneconfig.go); the boundary reads the
// stored one.
type GenerationConfig struct {
	Configuration Configuration
	StreamOptions pi.JSONValue
	RetryPolicy   RetryPolicy
}

// errNoGeneration faults a boundary that has no harness options to read.
var errNoGeneration = errors.New("lane: checkpoint: no stream options and retry policy to mint the assistant step with " +
	"(this process did not start the run: set Config.Generation)")

// startRun is runtime/drive/checkpoint.ts startRun: one turn on the line
// reads the run's prompt entries (continueOperation, no commit), the
// before_run hook is admitted through the effect gate (no hooks run here,
// but a cancel that began earlier still refuses the admission), and a
// second turn commits the initial checkpoint {continuation:
// need_assistant, triggerEntryId: the tip}. The TX sets only the op state
// and nothing is emitted (no hook injected entries). A cancel requested
// meanwhile makes either turn commit nothing; the next step reconciles.
func (l *Lane) startRun(op string, meta OpMeta) (StepResult, error) {
	current := func(cur view) bool {
		return cur.op != nil && cur.op.ID == op && cur.op.State.At == LeafStarting && !cur.op.State.Control.CancelRequested
	}
	if _, _, err := l.command(CmdStartRead, func(cur view) (plan, error) {
		if !current(cur) {
			return plan{}, l.lostOperation(cur)
		}
		return plan{}, l.checkPromptEntries(meta.PromptEntryIDs)
	}); err != nil {
		return StepResult{}, err
	}
	// before_run: lane.hooks.runWithGate admits through drive.gate
	if _, aborting := l.admit(op); aborting != nil {
		return awaitCancellation(aborting)
	}
	_, _, err := l.command(CmdStart, func(cur view) (plan, error) {
		if !current(cur) {
			return plan{}, l.lostOperation(cur)
		}
		if cur.tip == nil {
			return plan{}, errors.New("Run start has no trigger entry")
		}
		next := cur.clone()
		st := cur.op.State.scope(LeafCheckpoint)
		st.Continuation = Continuation{Kind: ContinueNeedAssistant}
		st.TriggerEntryID = *cur.tip
		next.op.State = st
		return plan{commit: true, writes: []store.Write{store.SetValueRaw(OpStateAddr(op), MarshalState(st))}, next: next}, nil
	})
	return StepResult{Kind: StepProgress}, err
}

// checkPromptEntries is startRun's read: every prompt entry of the run is
// a stored message entry ("Run prompt entry <id> is missing its message").
func (l *Lane) checkPromptEntries(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	entries, err := store.GetEntriesOf(l.cfg.Storage, ids)
	if err != nil {
		return fmt.Errorf("lane: start run: read entries: %w", err)
	}
	found := make(map[string]bool, entries.Len())
	for _, e := range entries.All() {
		found[e.Entry.ID] = isMessageEntry(e.Entry.Raw)
	}
	for _, id := range ids {
		if !found[id] {
			return fmt.Errorf("Run prompt entry %s is missing its message", id)
		}
	}
	return nil
}

func isMessageEntry(raw []byte) bool {
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return false
	}
	t := v.Prop("type")
	return t.Kind() == pi.String && t.Str() == "message"
}
