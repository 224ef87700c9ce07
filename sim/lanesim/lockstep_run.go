package lanesim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
)

// decodeFunc decodes an operation state (the runner's memo,
// decodeMemo.decodeState, or lane.DecodeState).
type decodeFunc func([]byte) (*lane.OpState, error)

// modelRun is the run request the lane was given, in the model's
// vocabulary (the checkpoint names the step id the lane mints later).
func modelRun(o lane.RunOptions) ml.Run {
	return ml.Run{UserText: o.UserText,
		Model:       ml.ModelRef{Provider: o.Configuration.Model.Provider, ModelID: o.Configuration.Model.ModelID},
		MaxAttempts: o.RetryPolicy.MaxAttempts, BaseDelayMs: o.RetryPolicy.BaseDelayMs,
		MaxAgentDelayMs: o.RetryPolicy.MaxAgentDelayMs,
		ThinkingLevel:   o.Configuration.ThinkingLevel, ActiveToolNames: o.Configuration.ActiveToolNames,
		Settings: o.Settings, StreamOptions: o.StreamOptions}
}

// mintedStepID is the generation step id in a checkpoint's op state ("" if
// it cannot be read: the model refuses it and the comparison shows the
// write).
func mintedStepID(ws []store.Write, decode decodeFunc) string {
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSOpState && w.Op == store.OpSet {
			if st, err := decode(w.Value); err == nil && st.Gen != nil {
				return st.Gen.StepID
			}
		}
	}
	return ""
}

// plannedToolResults are the result entry ids a settlement's tools state
// planned (ids the lane minted; none when it settles elsewhere).
func plannedToolResults(ws []store.Write, decode decodeFunc) []string {
	var ids []string
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSOpState && w.Op == store.OpSet {
			if st, err := decode(w.Value); err == nil && st.At == lane.LeafTools {
				for _, c := range st.Calls {
					ids = append(ids, c.ResultEntryID)
				}
			}
		}
	}
	return ids
}

// toolIntentResult is the result entry id of the call a tool intent
// started: its arguments' key "<op>:<turn>:<sourceIndex>" names the source
// index, and the intent's op state names the call's result id.
func toolIntentResult(ws []store.Write, decode decodeFunc) (string, error) {
	src := -1
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSToolArgs && w.Op == store.OpSet {
			n, err := strconv.Atoi(w.Key[strings.LastIndexByte(w.Key, ':')+1:])
			if err != nil {
				return "", fmt.Errorf("tool intent: arguments key %q names no source index", w.Key)
			}
			src = n
		}
	}
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSOpState && w.Op == store.OpSet {
			st, err := decode(w.Value)
			if err != nil {
				return "", fmt.Errorf("tool intent state: %w", err)
			}
			for _, c := range st.Calls {
				if c.SourceIndex == src {
					return c.ResultEntryID, nil
				}
			}
		}
	}
	return "", fmt.Errorf("tool intent without arguments of a call of its batch: %s", describeWrites(ws))
}

// toolOutcomeResult is the result entry id a tool outcome staged (the key
// of its pending entry; "" when it stages none: the model refuses that).
func toolOutcomeResult(ws []store.Write) string {
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSPendingEntry && w.Op == store.OpSet {
			return w.Key
		}
	}
	return ""
}

// toolReplayResult is the result entry id whose progress checkpoint a
// replay clears ("<op>:<resultEntryId>").
func toolReplayResult(ws []store.Write) string {
	for _, w := range ws {
		if w.Kind == store.WriteValue && w.Namespace == lane.NSPendingOutput && w.Op == store.OpDelete {
			_, id, _ := strings.Cut(w.Key, ":")
			return id
		}
	}
	return ""
}
