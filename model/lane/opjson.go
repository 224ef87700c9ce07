package lane

import "github.com/frameproof/frameproof/impl/pi"

// The stored values fillStateValues states, written as JSON.stringify
// writes the object literals pi builds them with (opvalue.go's comments
// name the literals): members in literal order, none undefined, no
// integer-like key, so the text is the members' texts in that order.
// Strings, numbers and the run's opaque objects are written by their
// pi.JSONValue (AppendJSON), as the tree they replace wrote them
// (TestStateJSONMatchesTrees holds each writer to that tree).

func appendStr(dst []byte, s string) []byte { return pi.StringValue(s).AppendJSON(dst) }

func appendNum(dst []byte, n float64) []byte { return pi.NumberValue(n).AppendJSON(dst) }

func appendInt(dst []byte, n int) []byte { return appendNum(dst, float64(n)) }

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// appendNullable is nullable's text: null for "", else the string.
func appendNullable(dst []byte, id string) []byte {
	if id == "" {
		return append(dst, "null"...)
	}
	return appendStr(dst, id)
}

// appendOrEmpty is objectOrEmpty's text: {} for an absent object.
func appendOrEmpty(dst []byte, v pi.JSONValue) []byte {
	if v.IsUndefined() {
		return append(dst, "{}"...)
	}
	return v.AppendJSON(dst)
}

// appendMetaJSON appends the operation meta (metaValue) of op; ok is
// false when op is unknown.
func (m *Model) appendMetaJSON(dst []byte, op string) ([]byte, bool) {
	info := m.ops[op]
	if info == nil {
		return dst, false
	}
	dst = append(dst, `{"operationId":`...)
	dst = appendStr(dst, op)
	dst = append(dst, `,"lane":`...)
	dst = appendStr(dst, m.cfg.Lane)
	dst = append(dst, `,"sourceTipId":`...)
	dst = appendNullable(dst, info.fromTip)
	dst = append(dst, `,"startedAt":`...)
	dst = appendNum(dst, info.started)
	dst = append(dst, `,"intent":{"kind":"run","promptEntryIds":[`...)
	dst = appendStr(dst, info.trigger)
	return append(dst, "]}}"...), true
}

// appendLaneStateJSON appends the lane state (laneStateValue).
func (m *Model) appendLaneStateJSON(dst []byte) []byte {
	dst = append(dst, `{"currentOperationId":`...)
	dst = appendNullable(dst, m.st.Lane.Current)
	dst = append(dst, `,"lastOperationId":`...)
	dst = appendNullable(dst, m.st.Lane.Last)
	dst = append(dst, `,"inbox":[`...)
	for i, it := range m.st.Lane.Inbox {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"entryId":`...)
		dst = appendStr(dst, it.EntryID)
		dst = append(dst, `,"kind":`...)
		dst = appendStr(dst, it.Kind)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

// appendResultJSON appends the result record (resultValue) of op; ok is
// false when op has no result or is unknown.
func (m *Model) appendResultJSON(dst []byte, op string) ([]byte, bool) {
	res, found := m.st.Results[op]
	info := m.ops[op]
	if !found || info == nil {
		return dst, false
	}
	dst = append(dst, `{"operationId":`...)
	dst = appendStr(dst, op)
	dst = append(dst, `,"kind":"run","status":`...)
	dst = appendStr(dst, res.Status)
	if res.ErrorCode != "" || res.ErrorMessage != "" {
		dst = append(dst, `,"error":{"code":`...)
		dst = appendStr(dst, res.ErrorCode)
		dst = append(dst, `,"message":`...)
		dst = appendStr(dst, res.ErrorMessage)
		if res.ErrorDetails != "" {
			dst = append(append(dst, `,"details":`...), res.ErrorDetails...)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"fromTipId":`...)
	dst = appendNullable(dst, res.FromTipID)
	dst = append(dst, `,"tipId":`...)
	dst = appendNullable(dst, res.TipID)
	dst = append(dst, `,"startedAt":`...)
	dst = appendNum(dst, info.started)
	dst = append(dst, `,"endedAt":`...)
	dst = appendNum(dst, m.now())
	return append(dst, '}'), true
}

// appendOpStateJSON appends the operation state (opStateValue) of op; ok
// is false for an unknown op or a leaf whose payload the model does not
// state.
func (m *Model) appendOpStateJSON(dst []byte, op string) ([]byte, bool) {
	o, found := m.st.Ops[op]
	info := m.ops[op]
	if !found || info == nil {
		return dst, false
	}
	r := info.run
	if o.At == AtStarting { // acceptRun's literal: `at` before the scope
		dst = append(dst, `{"at":`...)
		dst = appendStr(dst, o.At)
		dst = append(dst, `,"control":`...)
		dst = appendControlJSON(dst, o)
		dst = append(dst, `,"settings":`...)
		dst = appendOrEmpty(dst, r.Settings)
		dst = append(dst, `,"latestAssistantEntryId":`...)
		dst = appendNullable(dst, o.LatestAssistantEntryID)
		return append(dst, '}'), true
	}
	n := len(dst)
	dst = append(dst, `{"control":`...)
	dst = appendControlJSON(dst, o)
	dst = append(dst, `,"settings":`...)
	dst = appendOrEmpty(dst, r.Settings)
	dst = append(dst, `,"latestAssistantEntryId":`...)
	dst = appendNullable(dst, o.LatestAssistantEntryID)
	dst = append(dst, `,"at":`...)
	dst = appendStr(dst, o.At)
	switch o.At {
	case AtReady:
		if o.Continuation != "" { // the checkpoint's pair, spread in (opStateValue)
			dst = append(dst, `,"continuation":`...)
			dst = info.readyFrom.continuation.AppendJSON(dst)
			dst = append(dst, `,"triggerEntryId":`...)
			dst = appendStr(dst, info.readyFrom.trigger)
		}
		dst = append(dst, `,"generationContext":`...)
		dst = info.appendGenerationContextJSON(dst)
		dst = append(dst, `,"nextAttempt":`...)
		dst = appendInt(dst, o.NextAttempt)
	case AtEffectPending:
		dst = append(dst, `,"generationContext":`...)
		dst = info.appendGenerationContextJSON(dst)
		dst = append(dst, `,"attempt":`...)
		dst = appendInt(dst, o.Attempt)
		dst = append(dst, `,"responseEntryId":`...)
		dst = appendStr(dst, o.ResponseEntryID)
		dst = append(dst, `,"usageId":`...)
		dst = appendStr(dst, o.UsageID)
		dst = append(dst, `,"intendedOutputLimit":`...)
		dst = appendNum(dst, m.cfg.Limits.MaxTokens)
		dst = append(dst, `,"contextWindow":`...)
		dst = appendNum(dst, m.cfg.Limits.ContextWindow)
	case AtRetryWait:
		dst = append(dst, `,"generationContext":`...)
		dst = info.appendGenerationContextJSON(dst)
		dst = append(dst, `,"nextAttempt":`...)
		dst = appendInt(dst, o.NextAttempt)
		dst = append(dst, `,"notBefore":`...)
		dst = appendNum(dst, o.NotBefore)
		dst = append(dst, `,"errorMessage":`...)
		dst = appendStr(dst, o.RetryError)
	case AtDeferredSuspend:
		dst = appendDeferredStep(dst, &r, &o)
		dst = append(dst, `,"configuration":`...)
		dst = appendConfigJSON(dst, runConfig(r))
		dst = append(dst, `,"streamOptions":`...)
		dst = appendOrEmpty(dst, r.StreamOptions)
	case AtDeferredEffect:
		dst = appendDeferredStep(dst, &r, &o)
		dst = append(dst, `,"responseEntryId":`...)
		dst = appendStr(dst, o.ResponseEntryID)
		dst = append(dst, `,"usageId":`...)
		dst = appendStr(dst, o.UsageID)
		dst = append(dst, `,"configuration":`...)
		dst = appendConfigJSON(dst, runConfig(r))
		dst = append(dst, `,"streamOptions":`...)
		dst = appendOrEmpty(dst, r.StreamOptions)
	case AtTools:
		dst = append(dst, `,"batch":`...)
		dst = info.tools.appendJSON(dst, o, runConfig(r))
	case AtCheckpoint:
		cont, trigger := info.checkpointResume(o)
		dst = append(dst, `,"continuation":`...)
		dst = cont.AppendJSON(dst)
		dst = append(dst, `,"triggerEntryId":`...)
		dst = appendStr(dst, trigger)
	case AtSummaryDeciding:
		if info.task == nil { // an overflow's task: the model does not state it
			return dst[:n], false
		}
		dst = append(dst, `,"task":{"taskId":`...)
		dst = appendStr(dst, info.task.id)
		dst = append(dst, `,"reason":"threshold","boundary":{"kind":"resume_checkpoint","resumeAfter":{`...)
		if !info.task.continuation.IsUndefined() {
			dst = append(dst, `"continuation":`...)
			dst = info.task.continuation.AppendJSON(dst)
			dst = append(dst, ',')
		}
		dst = append(dst, `"triggerEntryId":`...)
		dst = appendStr(dst, info.task.trigger)
		dst = append(dst, "}}}"...)
	default:
		return dst[:n], false
	}
	return append(dst, '}'), true
}

// appendControlJSON appends the durable control (controlValue).
func appendControlJSON(dst []byte, o Op) []byte {
	if o.CancelRequested {
		dst = append(dst, `{"status":"cancel_requested","requestedAt":`...)
		dst = appendNum(dst, o.RequestedAt)
		return append(dst, '}')
	}
	return append(dst, `{"status":"running"}`...)
}

// appendGenerationContextJSON appends the run's generation context
// (generationContext).
func (info *opInfo) appendGenerationContextJSON(dst []byte) []byte {
	r := info.run
	dst = append(dst, `{"stepId":`...)
	dst = appendStr(dst, r.StepID)
	dst = append(dst, `,"triggerEntryId":`...)
	dst = appendStr(dst, info.generationTrigger())
	dst = append(dst, `,"configuration":`...)
	dst = appendConfigJSON(dst, runConfig(r))
	dst = append(dst, `,"streamOptions":`...)
	dst = appendOrEmpty(dst, r.StreamOptions)
	dst = append(dst, `,"retryPolicy":{"maxAttempts":`...)
	dst = appendInt(dst, r.MaxAttempts)
	dst = append(dst, `,"baseDelayMs":`...)
	dst = appendNum(dst, r.BaseDelayMs)
	if r.MaxAgentDelayMs != nil {
		dst = append(dst, `,"maxAgentDelayMs":`...)
		dst = appendNum(dst, *r.MaxAgentDelayMs)
	}
	return append(dst, `},"overflowRecoveryUsed":false}`...)
}

// appendConfigJSON appends the lane configuration (LaneConfig.json; its
// tree, LaneConfig.value, is the test's reference).
func appendConfigJSON(dst []byte, c LaneConfig) []byte {
	dst = append(dst, `{"model":{"provider":`...)
	dst = appendStr(dst, c.Model.Provider)
	dst = append(dst, `,"modelId":`...)
	dst = appendStr(dst, c.Model.ModelID)
	dst = append(dst, `},"thinkingLevel":`...)
	dst = appendStr(dst, c.ThinkingLevel)
	dst = append(dst, `,"activeToolNames":[`...)
	for i, n := range c.ActiveToolNames {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendStr(dst, n)
	}
	return append(dst, "]}"...)
}

// appendJSON appends the batch literal (toolBatch.value) with the run's
// configuration c.
func (b toolBatch) appendJSON(dst []byte, o Op, c LaneConfig) []byte {
	dst = append(dst, `{"assistantEntryId":`...)
	dst = appendStr(dst, o.LatestAssistantEntryID)
	dst = append(dst, `,"configuration":`...)
	dst = appendConfigJSON(dst, c)
	dst = append(dst, `,"turnId":`...)
	dst = appendStr(dst, b.turn)
	dst = append(dst, `,"calls":[`...)
	for i, src := range o.ToolCalls {
		id, call := "", toolCall{status: callPlanned}
		if i < len(b.ids) {
			id = b.ids[i]
		}
		if i < len(b.calls) {
			call = b.calls[i]
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"status":`...)
		dst = appendStr(dst, call.status)
		dst = append(dst, `,"sourceIndex":`...)
		dst = appendInt(dst, src)
		dst = append(dst, `,"resultEntryId":`...)
		dst = appendStr(dst, id)
		switch call.status {
		case callEffectPending:
			dst = append(dst, `,"replay":`...)
			dst = appendStr(dst, call.replay)
		case callOutcomeReady, callCompleted:
			dst = append(dst, `,"terminate":`...)
			dst = appendBool(dst, call.terminate)
		}
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

// appendDeferredStep writes the members both deferred leaves begin with:
// the run's step, the entry the deferred tool call came from and the poll.
func appendDeferredStep(dst []byte, r *Run, o *Op) []byte {
	dst = append(dst, `,"stepId":`...)
	dst = appendStr(dst, r.StepID)
	dst = append(dst, `,"sourceEntryId":`...)
	dst = appendStr(dst, o.SourceEntryID)
	dst = append(dst, `,"poll":`...)
	return appendInt(dst, o.Poll)
}
