package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
)

// decodeFunc decodes an operation state (the runner's memo,
// runner.decodeState, or lane.DecodeState).
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
