package lane

import (
	"errors"

	"github.com/frameproof/frameproof/impl/compaction"
	"github.com/frameproof/frameproof/impl/pi"
)

// Models is pi's model registry (runtime/harness.ts options.models) as a
// run boundary reads it: lane.models.getModel(provider, modelId) answers
// the context window of a model it knows, ok=false for one it does not
// (pi's undefined). A nil Models is a registry that knows no model, so
// every boundary skips threshold compaction (Config.Models).
type Models func(model ModelRef) (contextWindow float64, ok bool)

// thresholdRead is what prepareCompactionThreshold answered a boundary.
type thresholdRead struct {
	prep *compactionPrep // compact: the summary task and its preparation
	// declined: readBoundedEntries answered cancel_requested (or found the
	// operation moved on), so the boundary commits nothing; stale: the
	// operation is no longer the current one
	declined, stale bool
}

// prepareThreshold is runtime/drive/structural.ts prepareCompactionThreshold,
// run first at every run boundary (checkpoint.ts runCheckpoint): nothing
// when the checkpoint's settings.compaction is not enabled or the lane's
// configured model is unknown to Config.Models; else one turn on the line
// reads the bounded branch, and nothing when a compaction at or after the
// checkpoint's trigger already guards it. A trigger missing from the branch
// is pi's invariant error. Otherwise prepareCompaction runs with the
// operation's settings.compaction, and a task id is minted after it when
// shouldCompact holds for the preparation's tokensBefore.
func (l *Lane) prepareThreshold(op string, s *OpState) (thresholdRead, error) {
	if l.cfg.Models == nil {
		return thresholdRead{}, nil // frameproof reads no settings without a registry
	}
	settings := s.Settings.Prop("compaction")
	window, known := l.knownModel()
	if err := readPropertyOf(settings, "enabled"); err != nil {
		return thresholdRead{}, l.faultWith(err)
	}
	if !pi.ToBoolean(settings.Prop("enabled")) || !known {
		return thresholdRead{}, nil
	}
	read := thresholdRead{declined: true}
	var path []compaction.Entry
	var trigger string
	_, _, err := l.command(CmdThresholdRead, func(cur view) (plan, error) {
		if cur.op == nil || cur.op.ID != op || cur.op.State.At != LeafCheckpoint || cur.op.State.Control.CancelRequested {
			read.stale = cur.op == nil || cur.op.ID != op
			return plan{}, l.lostOperation(cur) // continueOperation: cancel_requested or moved on
		}
		entries, err := l.readBounded(cur)
		if err != nil {
			return plan{}, err
		}
		path, trigger, read.declined = entries, cur.op.State.TriggerEntryID, false
		return plan{}, nil
	})
	if err != nil || read.declined {
		return read, err
	}
	if guarded, err := guardedTrigger(path, trigger); guarded || err != nil {
		return read, l.faultErr(err)
	}
	value, ok, err := compaction.Prepare(path, settings)
	if err != nil || !ok || !shouldCompact(value.Prop("tokensBefore").Number(), window, settings) {
		return read, l.faultErr(err)
	}
	read.prep = &compactionPrep{taskID: l.cfg.IDs.NewID(), value: value}
	return read, nil
}

// knownModel asks Config.Models about the lane's configured model (pi
// reads lane.state.configuration.model; a lane never acquired knows none).
func (l *Lane) knownModel() (float64, bool) {
	l.mu.Lock()
	config := l.view.config
	l.mu.Unlock()
	if config == nil {
		return 0, false
	}
	return l.cfg.Models(config.Model)
}

// guardedTrigger is prepareCompactionThreshold's guard: true when the
// path's newest compaction is at or after the trigger (a trigger missing
// from a path with a compaction is guarded too, as pi's index test says);
// a missing trigger otherwise is pi's invariant error.
func guardedTrigger(path []compaction.Entry, trigger string) (bool, error) {
	triggerIndex, newest := -1, -1
	for i, e := range path {
		if e.ID == trigger && triggerIndex == -1 {
			triggerIndex = i // findIndex: the first entry with the id
		}
		if e.Type == "compaction" {
			newest = i
		}
	}
	if newest != -1 && newest >= triggerIndex {
		return true, nil
	}
	if triggerIndex == -1 {
		return false, &invariantError{"Checkpoint trigger " + trigger + " is missing from its Branch"}
	}
	return false, nil
}

// shouldCompact is compaction/compaction.ts shouldCompact: enabled, and the
// context is over the window less settings.reserveTokens (ToNumber, so a
// missing reserve is NaN and never compacts).
func shouldCompact(tokens, window float64, settings pi.JSONValue) bool {
	if !pi.ToBoolean(settings.Prop("enabled")) {
		return false
	}
	return tokens > window-pi.ToNumber(settings.Prop("reserveTokens"))
}

// readPropertyOf is V8's TypeError for reading key of undefined or null.
func readPropertyOf(v pi.JSONValue, key string) error {
	switch v.Kind() {
	case pi.Undefined:
		return errors.New("Cannot read properties of undefined (reading '" + key + "')")
	case pi.Null:
		return errors.New("Cannot read properties of null (reading '" + key + "')")
	}
	return nil
}

// faultErr faults the lane with err, if any.
func (l *Lane) faultErr(err error) error {
	if err == nil {
		return nil
	}
	return l.faultWith(err)
}
