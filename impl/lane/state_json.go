package lane

import (
	"math"

	"github.com/frameproof/frameproof/impl/pi"
)

// appendState writes s.Value().AppendJSON(dst) without building the value:
// the same members in the same order (Value is the reference;
// TestAppendStateIsValueJSON compares the two).
func appendState(dst []byte, s *OpState) []byte {
	if s.At == LeafStarting {
		dst = append(dst, `{"at":`...)
		dst = pi.AppendQuote(dst, string(s.At))
		dst = append(dst, `,"control":`...)
		dst = s.Control.appendJSON(dst)
		dst = append(dst, `,"settings":`...)
		dst = appendObjOrEmpty(dst, s.Settings)
		dst = append(dst, `,"latestAssistantEntryId":`...)
		dst = appendOptStr(dst, s.LatestAssistantEntryID)
		return append(dst, '}')
	}
	dst = append(dst, `{"control":`...)
	dst = s.Control.appendJSON(dst)
	dst = append(dst, `,"settings":`...)
	dst = appendObjOrEmpty(dst, s.Settings)
	dst = append(dst, `,"latestAssistantEntryId":`...)
	dst = appendOptStr(dst, s.LatestAssistantEntryID)
	dst = append(dst, `,"at":`...)
	dst = pi.AppendQuote(dst, string(s.At))
	switch s.At {
	case LeafAssistantReady:
		if s.carriesCheckpoint() {
			dst = appendCheckpointPair(dst, s)
		}
		dst = append(dst, `,"generationContext":`...)
		dst = s.Gen.appendJSON(dst)
		dst = append(dst, `,"nextAttempt":`...)
		dst = appendNum(dst, float64(s.NextAttempt))
	case LeafAssistantEffectPending:
		dst = append(dst, `,"generationContext":`...)
		dst = s.Gen.appendJSON(dst)
		dst = append(dst, `,"attempt":`...)
		dst = appendNum(dst, float64(s.Attempt))
		dst = append(dst, `,"responseEntryId":`...)
		dst = pi.AppendQuote(dst, s.ResponseEntryID)
		dst = append(dst, `,"usageId":`...)
		dst = pi.AppendQuote(dst, s.UsageID)
		dst = append(dst, `,"intendedOutputLimit":`...)
		dst = appendNum(dst, s.IntendedOutputLimit)
		dst = append(dst, `,"contextWindow":`...)
		dst = appendNum(dst, s.ContextWindow)
	case LeafAssistantRetryWait:
		dst = append(dst, `,"generationContext":`...)
		dst = s.Gen.appendJSON(dst)
		dst = append(dst, `,"nextAttempt":`...)
		dst = appendNum(dst, float64(s.NextAttempt))
		dst = append(dst, `,"notBefore":`...)
		dst = appendNum(dst, s.NotBefore)
		dst = append(dst, `,"errorMessage":`...)
		dst = pi.AppendQuote(dst, s.ErrorMessage)
	case LeafDeferredSuspended:
		dst = appendDeferredConfig(appendDeferredStep(dst, s), s)
	case LeafDeferredEffectPending:
		dst = append(appendDeferredStep(dst, s), `,"responseEntryId":`...)
		dst = pi.AppendQuote(dst, s.ResponseEntryID)
		dst = append(dst, `,"usageId":`...)
		dst = pi.AppendQuote(dst, s.UsageID)
		dst = appendDeferredConfig(dst, s)
	case LeafCheckpoint:
		dst = appendCheckpointPair(dst, s)
	case LeafTools:
		dst = append(dst, `,"batch":{"assistantEntryId":`...)
		dst = pi.AppendQuote(dst, s.BatchAssistantEntryID)
		dst = append(dst, `,"configuration":`...)
		dst = s.Configuration.appendJSON(dst)
		dst = append(dst, `,"turnId":`...)
		dst = pi.AppendQuote(dst, s.BatchTurnID)
		dst = append(dst, `,"calls":[`...)
		for i, c := range s.Calls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = c.appendJSON(dst)
		}
		dst = append(dst, "]}"...)
	case LeafSummaryDeciding:
		if !s.Task.IsUndefined() {
			dst = append(dst, `,"task":`...)
			dst = s.Task.AppendJSON(dst)
		}
	}
	return append(dst, '}')
}

// appendNum writes a number as JSONValue.AppendJSON does.
func appendNum(dst []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(dst, "null"...)
	}
	return pi.AppendNumber(dst, x)
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// appendOptStr writes jval(*string): null for nil.
func appendOptStr(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return pi.AppendQuote(dst, *s)
}

func appendObjOrEmpty(dst []byte, v pi.JSONValue) []byte {
	if v.IsUndefined() {
		return append(dst, "{}"...)
	}
	return v.AppendJSON(dst)
}

func (c Control) appendJSON(dst []byte) []byte {
	if c.CancelRequested {
		dst = append(dst, `{"status":"cancel_requested","requestedAt":`...)
		dst = appendNum(dst, c.RequestedAt)
		return append(dst, '}')
	}
	return append(dst, `{"status":"running"}`...)
}

func (c *Configuration) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"model":{"provider":`...)
	dst = pi.AppendQuote(dst, c.Model.Provider)
	dst = append(dst, `,"modelId":`...)
	dst = pi.AppendQuote(dst, c.Model.ModelID)
	dst = append(dst, `},"thinkingLevel":`...)
	dst = pi.AppendQuote(dst, c.ThinkingLevel)
	dst = append(dst, `,"activeToolNames":[`...)
	for i, n := range c.ActiveToolNames {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = pi.AppendQuote(dst, n)
	}
	return append(dst, "]}"...)
}

func (g *GenerationContext) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"stepId":`...)
	dst = pi.AppendQuote(dst, g.StepID)
	dst = append(dst, `,"triggerEntryId":`...)
	dst = pi.AppendQuote(dst, g.TriggerEntryID)
	dst = append(dst, `,"configuration":`...)
	dst = g.Configuration.appendJSON(dst)
	dst = append(dst, `,"streamOptions":`...)
	dst = appendObjOrEmpty(dst, g.StreamOptions)
	dst = append(dst, `,"retryPolicy":{"maxAttempts":`...)
	dst = appendNum(dst, float64(g.RetryPolicy.MaxAttempts))
	dst = append(dst, `,"baseDelayMs":`...)
	dst = appendNum(dst, g.RetryPolicy.BaseDelayMs)
	if g.RetryPolicy.MaxAgentDelayMs != nil {
		dst = append(dst, `,"maxAgentDelayMs":`...)
		dst = appendNum(dst, *g.RetryPolicy.MaxAgentDelayMs)
	}
	dst = append(dst, `},"overflowRecoveryUsed":`...)
	dst = appendBool(dst, g.OverflowRecoveryUsed)
	return append(dst, '}')
}

func (c Continuation) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"kind":`...)
	dst = pi.AppendQuote(dst, c.Kind)
	if c.Kind == ContinueNeedAssistant {
		dst = append(dst, `,"overflowRecoveryUsed":`...)
		dst = appendBool(dst, c.OverflowRecoveryUsed)
	} else {
		dst = append(dst, `,"includeFinalAssistant":`...)
		dst = appendBool(dst, c.IncludeFinalAssistant)
	}
	return append(dst, '}')
}

func (c PlannedCall) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"status":`...)
	dst = pi.AppendQuote(dst, c.status())
	dst = append(dst, `,"sourceIndex":`...)
	dst = appendNum(dst, float64(c.SourceIndex))
	dst = append(dst, `,"resultEntryId":`...)
	dst = pi.AppendQuote(dst, c.ResultEntryID)
	switch c.status() {
	case CallEffectPending:
		dst = append(dst, `,"replay":`...)
		dst = pi.AppendQuote(dst, c.Replay)
	case CallOutcomeReady, CallCompleted:
		dst = append(dst, `,"terminate":`...)
		dst = appendBool(dst, c.Terminate)
	}
	return append(dst, '}')
}

// appendDeferredStep writes the members both deferred leaves start with:
// the step, its source entry and the poll count.
func appendDeferredStep(dst []byte, s *OpState) []byte {
	dst = append(dst, `,"stepId":`...)
	dst = pi.AppendQuote(dst, s.StepID)
	dst = append(dst, `,"sourceEntryId":`...)
	dst = pi.AppendQuote(dst, s.SourceEntryID)
	dst = append(dst, `,"poll":`...)
	return appendNum(dst, float64(s.Poll))
}

// appendDeferredConfig writes the members both deferred leaves end with:
// the generation's configuration and stream options.
func appendDeferredConfig(dst []byte, s *OpState) []byte {
	dst = append(dst, `,"configuration":`...)
	dst = s.Configuration.appendJSON(dst)
	dst = append(dst, `,"streamOptions":`...)
	return appendObjOrEmpty(dst, s.StreamOptions)
}

// appendCheckpointPair writes a checkpoint's continuation and trigger, the
// members an assistant.ready state carries from it (carriesCheckpoint).
func appendCheckpointPair(dst []byte, s *OpState) []byte {
	dst = append(dst, `,"continuation":`...)
	dst = s.Continuation.appendJSON(dst)
	dst = append(dst, `,"triggerEntryId":`...)
	return pi.AppendQuote(dst, s.TriggerEntryID)
}
