package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/compaction"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// PreparationAddr is operationPreparation(operationId, taskId)
// (session/values.ts): value("pi.op.preparation", `${op}:${taskId}`).
func PreparationAddr(op, taskID string) store.Address { return valueAddr(NSPreparation, op+":"+taskID) }

// compactionPrep is a durable compaction preparation (prepareOverflowCompaction
// and prepareCompactionThreshold return one): the summary task's id and
// the durable preparation the settlement or boundary TX writes.
type compactionPrep struct {
	taskID string
	value  pi.JSONValue
}

// isOverflow is publishResponse's overflow test: an assistant generation
// whose response overflowed the context window or stopped at a recoverable
// length.
func isOverflow(patterns *errorPatterns, intent *OpState, resp *pi.AssistantMessage) bool {
	return intent.At == LeafAssistantEffectPending &&
		(patterns.contextOverflow(resp, intent.ContextWindow) || IsRecoverableLength(resp, intent.IntendedOutputLimit))
}

// prepareOverflow is runtime/drive/structural.ts prepareOverflowCompaction,
// run before the settlement TX as publishResponse does: nothing when
// overflow recovery was already used or when the operation is no longer
// the running intent (readBoundedEntries' continueOperation answers
// cancel_requested); else prepareCompaction over the branch up to its
// newest compaction with the operation's settings.compaction, and a task id
// minted after it. nil means nothing to compact: the settlement fails the run.
func (l *Lane) prepareOverflow(op string, intent *OpState) (*compactionPrep, error) {
	if intent.Gen == nil || intent.Gen.OverflowRecoveryUsed {
		return nil, nil
	}
	var path []compaction.Entry
	var settings pi.JSONValue
	read := false
	_, _, err := l.command(CmdOverflowPreparation, func(cur view) (plan, error) {
		if !sameEffect(cur, op, intent) || cur.op.State.Control.CancelRequested {
			return plan{}, l.lostOperation(cur)
		}
		entries, err := l.readBounded(cur)
		if err != nil {
			return plan{}, err
		}
		path, settings, read = entries, cur.op.State.Settings.Prop("compaction"), true
		return plan{}, nil
	})
	if err != nil || !read {
		return nil, err
	}
	value, ok, err := compaction.Prepare(path, settings)
	if err != nil || !ok {
		return nil, err
	}
	return &compactionPrep{taskID: l.cfg.IDs.NewID(), value: value}, nil
}

// readBounded is readBoundedEntries' read of the current operation's
// branch (runtime/transcript.ts), which needs a tip.
func (l *Lane) readBounded(cur view) ([]compaction.Entry, error) {
	if cur.tip == nil {
		return nil, &invariantError{"Run operation has no Branch tip"}
	}
	return boundedBranch(l, cur.tip)
}

// boundedBranch is readBoundedEntries (runtime/transcript.ts): the branch
// from tip back to, and including, its newest compaction, oldest first.
func boundedBranch(l *Lane, tip *string) ([]compaction.Entry, error) {
	stored, err := l.cfg.Storage.Entries()
	if err != nil {
		return nil, fmt.Errorf("lane: overflow preparation: entries: %w", err)
	}
	byID := make(map[string]store.StoredEntry, len(stored))
	for _, e := range stored {
		byID[e.Entry.ID] = e
	}
	var rev []compaction.Entry
	for id := tip; id != nil; {
		s, ok := byID[*id]
		if !ok {
			return nil, fmt.Errorf("lane: overflow preparation: branch entry %s is missing", *id)
		}
		e, err := compaction.ParseEntry(s.Entry.Raw, float64(s.Timestamp))
		if err != nil {
			return nil, fmt.Errorf("lane: overflow preparation: %w", err)
		}
		rev = append(rev, e)
		if e.Type == "compaction" {
			break
		}
		if len(rev) > len(stored) {
			return nil, fmt.Errorf("lane: overflow preparation: branch has a cycle at %s", e.ID)
		}
		id = s.Entry.ParentID
	}
	path := make([]compaction.Entry, len(rev))
	for i, e := range rev {
		path[len(rev)-1-i] = e
	}
	return path, nil
}
