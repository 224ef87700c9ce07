package lane

import "github.com/frameproof/frameproof/impl/pi"

// The stored values as pi JSON value trees, the form the model built them
// in before opjson.go wrote their text directly: the reference the
// writers are held to (TestStateJSONMatchesTrees).

// metaValue is the operation meta acceptRun writes (runtime/lane.ts):
// {operationId, lane, sourceTipId, startedAt, intent:{kind:"run",
// promptEntryIds}}. The model's run appends one prompt entry, the user's.
func (m *Model) metaValue(op string) (pi.JSONValue, bool) {
	info := m.ops[op]
	if info == nil {
		return pi.JSONValue{}, false
	}
	prompt := pi.ArrayValue([]pi.JSONValue{pi.StringValue(info.trigger)})
	return object("operationId", pi.StringValue(op), "lane", pi.StringValue(m.cfg.Lane),
		"sourceTipId", nullable(info.fromTip), "startedAt", pi.NumberValue(info.started),
		"intent", object("kind", pi.StringValue("run"), "promptEntryIds", prompt)), true
}

// laneStateValue is durableLaneState (runtime/lane.ts):
// {currentOperationId, lastOperationId, inbox}, ids null when absent; the
// inbox lists the queued items {entryId, kind} in queue order (queue.go).
func (m *Model) laneStateValue() pi.JSONValue {
	inbox := make([]pi.JSONValue, 0, len(m.st.Lane.Inbox))
	for _, it := range m.st.Lane.Inbox {
		inbox = append(inbox, object("entryId", pi.StringValue(it.EntryID), "kind", pi.StringValue(it.Kind)))
	}
	return object("currentOperationId", nullable(m.st.Lane.Current), "lastOperationId", nullable(m.st.Lane.Last),
		"inbox", pi.ArrayValue(inbox))
}

// resultValue is operationResultRecord (runtime/drive/terminal.ts):
// {operationId, kind, status, error?, fromTipId, tipId, startedAt, endedAt},
// ended now (the terminal transaction's planning time); error, {code,
// message}, when the result has one (only a failed result does: Finalize
// refuses any other pairing, as the record builder does).
func (m *Model) resultValue(op string) (pi.JSONValue, bool) {
	res, found := m.st.Results[op]
	info := m.ops[op]
	if !found || info == nil {
		return pi.JSONValue{}, false
	}
	kv := []any{"operationId", pi.StringValue(op), "kind", pi.StringValue("run"), "status", pi.StringValue(res.Status)}
	if res.ErrorCode != "" || res.ErrorMessage != "" {
		kv = append(kv, "error", object("code", pi.StringValue(res.ErrorCode), "message", pi.StringValue(res.ErrorMessage)))
	}
	kv = append(kv, "fromTipId", nullable(res.FromTipID), "tipId", nullable(res.TipID),
		"startedAt", pi.NumberValue(info.started), "endedAt", pi.NumberValue(m.now()))
	return object(kv...), true
}

// opStateValue is the stored operation state of op, in the key order pi's
// object literals build it: the scope ({control, settings,
// latestAssistantEntryId}, operationScopeOf), "at", then the leaf's
// payload. ok is false for a leaf whose payload the model does not state.
func (m *Model) opStateValue(op string) (v pi.JSONValue, ok bool) {
	o, found := m.st.Ops[op]
	info := m.ops[op]
	if !found || info == nil {
		return pi.JSONValue{}, false
	}
	r := info.run
	if o.At == AtStarting { // runtime/lane.ts acceptRun's literal: `at` before the scope
		return object("at", pi.StringValue(o.At), "control", controlValue(o), "settings", objectOrEmpty(r.Settings),
			"latestAssistantEntryId", nullable(o.LatestAssistantEntryID)), true
	}
	kv := []any{"control", controlValue(o), "settings", objectOrEmpty(r.Settings),
		"latestAssistantEntryId", nullable(o.LatestAssistantEntryID), "at", pi.StringValue(o.At)}
	switch o.At {
	case AtReady: // boundary.ts assistantReadyAtBoundary, generation.ts runRetryWait
		if o.Continuation != "" {
			// assistantReadyAtBoundary's {...scope, at, ...}: the scope is
			// the whole checkpoint state (checkpoint.ts runCheckpoint), so
			// its continuation and triggerEntryId stay after at
			kv = append(kv, "continuation", info.readyFrom.continuation, "triggerEntryId", pi.StringValue(info.readyFrom.trigger))
		}
		kv = append(kv, "generationContext", info.generationContext(), "nextAttempt", num(o.NextAttempt))
	case AtEffectPending: // generation.ts publishGenerationIntent
		kv = append(kv, "generationContext", info.generationContext(), "attempt", num(o.Attempt),
			"responseEntryId", pi.StringValue(o.ResponseEntryID), "usageId", pi.StringValue(o.UsageID),
			"intendedOutputLimit", pi.NumberValue(m.cfg.Limits.MaxTokens),
			"contextWindow", pi.NumberValue(m.cfg.Limits.ContextWindow))
	case AtRetryWait: // response.ts publishResponse
		kv = append(kv, "generationContext", info.generationContext(), "nextAttempt", num(o.NextAttempt),
			"notBefore", pi.NumberValue(o.NotBefore), "errorMessage", pi.StringValue(o.RetryError))
	case AtDeferredSuspend: // response.ts publishResponse: the generation's step
		kv = append(kv, "stepId", pi.StringValue(r.StepID), "sourceEntryId", pi.StringValue(o.SourceEntryID),
			"poll", num(o.Poll), "configuration", r.configuration(), "streamOptions", objectOrEmpty(r.StreamOptions))
	case AtDeferredEffect: // deferred.ts publishPollIntent: ids before the configuration
		kv = append(kv, "stepId", pi.StringValue(r.StepID), "sourceEntryId", pi.StringValue(o.SourceEntryID),
			"poll", num(o.Poll), "responseEntryId", pi.StringValue(o.ResponseEntryID), "usageId", pi.StringValue(o.UsageID),
			"configuration", r.configuration(), "streamOptions", objectOrEmpty(r.StreamOptions))
	case AtTools: // response.ts publishResponse: one planned call per tool-call block
		kv = append(kv, "batch", info.tools.value(o, r.configuration()))
	case AtCheckpoint:
		cont, trigger := info.checkpointResume(o)
		kv = append(kv, "continuation", cont, "triggerEntryId", pi.StringValue(trigger))
	case AtSummaryDeciding:
		if info.task == nil { // an overflow's task: the model does not state it
			return pi.JSONValue{}, false
		}
		// checkpoint.ts runCheckpoint: a threshold task resuming the checkpoint
		kv = append(kv, "task", object("taskId", pi.StringValue(info.task.id), "reason", pi.StringValue("threshold"),
			"boundary", object("kind", pi.StringValue("resume_checkpoint"), "resumeAfter",
				object("continuation", info.task.continuation, "triggerEntryId", pi.StringValue(info.task.trigger)))))
	default:
		return pi.JSONValue{}, false
	}
	return object(kv...), true
}

// controlValue is the durable control: {status:"running"}, or
// {status:"cancel_requested", requestedAt} (lane.ts requestOperationAbort).
func controlValue(o Op) pi.JSONValue {
	if o.CancelRequested {
		return object("status", pi.StringValue("cancel_requested"), "requestedAt", pi.NumberValue(o.RequestedAt))
	}
	return object("status", pi.StringValue("running"))
}

// generationContext is the run's generation context (boundary.ts
// assistantReadyAtBoundary): {stepId, triggerEntryId, configuration,
// streamOptions, retryPolicy, overflowRecoveryUsed}. The retry policy is
// {maxAttempts, baseDelayMs}, with the pi-ai 1.0.3 cap maxAgentDelayMs when
// the run sets one.
func (info *opInfo) generationContext() pi.JSONValue {
	r := info.run
	policy := []any{"maxAttempts", num(r.MaxAttempts), "baseDelayMs", pi.NumberValue(r.BaseDelayMs)}
	if r.MaxAgentDelayMs != nil {
		policy = append(policy, "maxAgentDelayMs", pi.NumberValue(*r.MaxAgentDelayMs))
	}
	return object("stepId", pi.StringValue(r.StepID), "triggerEntryId", pi.StringValue(info.generationTrigger()),
		"configuration", r.configuration(), "streamOptions", objectOrEmpty(r.StreamOptions),
		"retryPolicy", object(policy...), "overflowRecoveryUsed", pi.BoolValue(false))
}

// configuration is the lane configuration the run captured:
// {model{provider, modelId}, thinkingLevel, activeToolNames}.
func (r Run) configuration() pi.JSONValue { return runConfig(r).value() }

// objectOrEmpty is an opaque object member; a run that gives none stores {}.
func objectOrEmpty(v pi.JSONValue) pi.JSONValue {
	if v.IsUndefined() {
		return pi.EmptyObject()
	}
	return v
}

// nullable is an id member that is null when absent ("").
func nullable(id string) pi.JSONValue {
	if id == "" {
		return pi.NullValue()
	}
	return pi.StringValue(id)
}

func num(n int) pi.JSONValue { return pi.NumberValue(float64(n)) }

// value is the batch literal: {assistantEntryId, configuration, turnId,
// calls}, each call {status, sourceIndex, resultEntryId} followed by replay
// (effect_pending) or terminate (outcome_ready, completed), as the object
// literals of tools.ts and tool-placement.ts build them. A call the driver
// named no id for gets "", which no lane writes.
func (b toolBatch) value(o Op, configuration pi.JSONValue) pi.JSONValue {
	calls := make([]pi.JSONValue, len(o.ToolCalls))
	for i, src := range o.ToolCalls {
		id, c := "", toolCall{status: callPlanned}
		if i < len(b.ids) {
			id = b.ids[i]
		}
		if i < len(b.calls) {
			c = b.calls[i]
		}
		kv := []any{"status", pi.StringValue(c.status), "sourceIndex", num(src), "resultEntryId", pi.StringValue(id)}
		switch c.status {
		case callEffectPending:
			kv = append(kv, "replay", pi.StringValue(c.replay))
		case callOutcomeReady, callCompleted:
			kv = append(kv, "terminate", pi.BoolValue(c.terminate))
		}
		calls[i] = object(kv...)
	}
	return object("assistantEntryId", pi.StringValue(o.LatestAssistantEntryID), "configuration", configuration,
		"turnId", pi.StringValue(b.turn), "calls", pi.ArrayValue(calls))
}

// value is the stored object as a tree, in the order pi's literal writes
// it: the reference appendConfigJSON is tested against
// (runtime/harness.ts Harness.lane: {model: {provider, modelId},
// thinkingLevel, activeToolNames}).
func (c LaneConfig) value() pi.JSONValue {
	names := make([]pi.JSONValue, len(c.ActiveToolNames))
	for i, n := range c.ActiveToolNames {
		names[i] = pi.StringValue(n)
	}
	return object("model", object("provider", pi.StringValue(c.Model.Provider), "modelId", pi.StringValue(c.Model.ModelID)),
		"thinkingLevel", pi.StringValue(c.ThinkingLevel), "activeToolNames", pi.ArrayValue(names))
}
