package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// stateValue is the value the last taken transaction sets at ns/key.
func stateValue(t *testing.T, m *Model, ns, key string) string {
	t.Helper()
	ws, known := m.TakeTX()
	if !known {
		t.Fatal("no transaction stated")
	}
	for _, w := range ws {
		if w.Namespace == ns && w.Key == key && w.Op == "set" {
			return w.Value
		}
	}
	t.Fatalf("no set of %s/%s in %s", ns, key, names(ws))
	return ""
}

func pinValue(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s\n got %s\nwant %s", what, got, want)
	}
}

// The op-state and lane-state values of one run, each in the key order of
// the pi object literal that builds it: lane.ts durableLaneState (start,
// cancel and finish), boundary.ts assistantReadyAtBoundary (start),
// generation.ts publishGenerationIntent (intent), response.ts
// publishResponse (retry_wait), generation.ts runRetryWait (ready again),
// lane.ts requestOperationAbort (cancel), terminal.ts operationResultRecord
// (finish).
func TestStateValuesFollowPiLiterals(t *testing.T) {
	limit := 2000.0
	settings, _ := pi.ParseJSON(`{"steeringMode":"all"}`)
	m := New(Config{Lane: "main", Now: func() float64 { return 1000 }, Limits: Limits{MaxTokens: 4096, ContextWindow: 200000},
		NewObserver: func() Observer { return &partialObserver{} }})
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 2, BaseDelayMs: 10,
		MaxAgentDelayMs: &limit, ThinkingLevel: "low", ActiveToolNames: []string{"read"}, Settings: settings}))
	gen := `"generationContext":{"stepId":"s1","triggerEntryId":"u1","configuration":{"model":{"provider":"openai","modelId":"gpt"},"thinkingLevel":"low","activeToolNames":["read"]},"streamOptions":{},"retryPolicy":{"maxAttempts":2,"baseDelayMs":10,"maxAgentDelayMs":2000},"overflowRecoveryUsed":false}`
	scope := `{"control":{"status":"running"},"settings":{"steeringMode":"all"},"latestAssistantEntryId":null,`
	ws, _ := m.TakeTX()
	// lane.ts acceptRun's meta literal
	pinValue(t, "start op meta", ws[2].Value,
		`{"operationId":"op","lane":"main","sourceTipId":null,"startedAt":1000,"intent":{"kind":"run","promptEntryIds":["u1"]}}`)
	pinValue(t, "start op state", ws[3].Value, `{"at":"starting","control":{"status":"running"},"settings":{"steeringMode":"all"},"latestAssistantEntryId":null}`)
	pinValue(t, "start lane state", ws[4].Value, `{"currentOperationId":"op","lastOperationId":null,"inbox":[]}`)

	// checkpoint.ts startRun, then runCheckpoint through boundary.ts
	// assistantReadyAtBoundary (which mints the step): its literal spreads
	// the scope it is given, the whole checkpoint state, so the ready state
	// keeps the checkpoint's continuation and triggerEntryId after at
	_, err := m.Step(false)
	must(t, err)
	_, err = m.StepDone(true)
	must(t, err)
	pinValue(t, "initial checkpoint", stateValue(t, m, nsOpState, "op"),
		scope+`"at":"checkpoint","continuation":{"kind":"need_assistant","overflowRecoveryUsed":false},"triggerEntryId":"u1"}`)
	_, err = m.Step(false)
	must(t, err)
	must(t, m.Checkpoint("s1"))
	ws, _ = m.TakeTX()
	pinValue(t, "checkpoint op state", ws[0].Value, scope+`"at":"assistant.ready",`+
		`"continuation":{"kind":"need_assistant","overflowRecoveryUsed":false},"triggerEntryId":"u1",`+gen+`,"nextAttempt":1}`)
	pinValue(t, "checkpoint lane state", ws[1].Value, `{"currentOperationId":"op","lastOperationId":null,"inbox":[]}`)
	_, err = m.StepDone(true)
	must(t, err)

	_, err = m.Step(false)
	must(t, err)
	must(t, m.Intent("op", "r1", "g1", 1))
	pinValue(t, "intent", stateValue(t, m, nsOpState, "op"), scope+`"at":"assistant.effect_pending",`+gen+
		`,"attempt":1,"responseEntryId":"r1","usageId":"g1","intendedOutputLimit":4096,"contextWindow":200000}`)

	must(t, m.Admit())
	final := partial("")
	final.StopReason, final.ErrorMessage = pi.StopError, pi.Str("overloaded_error")
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventError, Reason: pi.StopError, Message: final}))
	must(t, m.AfterResponse())
	must(t, m.Settle())
	scopeAfter := `{"control":{"status":"running"},"settings":{"steeringMode":"all"},"latestAssistantEntryId":"r1",`
	pinValue(t, "retry wait", stateValue(t, m, nsOpState, "op"), scopeAfter+`"at":"assistant.retry_wait",`+gen+
		`,"nextAttempt":2,"notBefore":1010,"errorMessage":"overloaded_error"}`)
	_, err = m.StepDone(true)
	must(t, err)

	_, err = m.Step(false)
	must(t, err)
	_, err = m.StepDone(true)
	must(t, err)
	// generation.ts runRetryWait builds the ready state from
	// operationScopeOf: no checkpoint pair
	pinValue(t, "ready again", stateValue(t, m, nsOpState, "op"), scopeAfter+`"at":"assistant.ready",`+gen+`,"nextAttempt":2}`)

	m.Cancel()
	cancelled := `{"control":{"status":"cancel_requested","requestedAt":1000},"settings":{"steeringMode":"all"},"latestAssistantEntryId":"r1",`
	ws, _ = m.TakeTX()
	pinValue(t, "cancel op state", ws[0].Value, cancelled+`"at":"assistant.ready",`+gen+`,"nextAttempt":2}`)
	pinValue(t, "cancel lane state", ws[1].Value, `{"currentOperationId":"op","lastOperationId":null,"inbox":[]}`)

	_, err = m.Step(false)
	must(t, err)
	_, err = m.StepDone(true)
	must(t, err)
	ws, _ = m.TakeTX()
	n := len(ws)
	pinValue(t, "finish result", ws[n-2].Value, // terminal.ts operationResultRecord
		`{"operationId":"op","kind":"run","status":"aborted","fromTipId":null,"tipId":"r1","startedAt":1000,"endedAt":1000}`)
	pinValue(t, "finish lane state", ws[n-1].Value, `{"currentOperationId":null,"lastOperationId":"op","inbox":[]}`)
}

// response.ts publishResponse: a settled response with no tool calls moves
// to checkpoint{may_finish}, triggered by that response; a deferred one to
// deferred.suspended under the generation's step, then deferred.ts
// publishPollIntent's effect_pending, ids before the configuration.
func TestCheckpointAndDeferredValues(t *testing.T) {
	m := started(t, 1)
	m.TakeTX()
	done := partial("ok")
	done.StopReason = pi.StopStop
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventDone, Reason: pi.StopStop, Message: done}))
	must(t, m.AfterResponse())
	must(t, m.Settle())
	pinValue(t, "checkpoint", stateValue(t, m, nsOpState, "op"),
		`{"control":{"status":"running"},"settings":{},"latestAssistantEntryId":"r1","at":"checkpoint","continuation":{"kind":"may_finish","includeFinalAssistant":true},"triggerEntryId":"r1"}`)

	d := startedWith(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1, ThinkingLevel: "off", StepID: "s1"})
	handle := partial("")
	handle.API, handle.StopReason = "a", pi.StopDeferred
	handle.Deferred = &pi.DeferredHandle{ID: "h", Provider: "openai", ModelID: "gpt", API: "a"}
	must(t, d.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, d.ProviderEvent(&pi.Event{Type: pi.EventDone, Reason: pi.StopDeferred, Message: handle}))
	must(t, d.AfterResponse())
	must(t, d.Settle())
	cfg := `"configuration":{"model":{"provider":"openai","modelId":"gpt"},"thinkingLevel":"off","activeToolNames":[]},"streamOptions":{}`
	pinValue(t, "suspended", stateValue(t, d, nsOpState, "op"),
		`{"control":{"status":"running"},"settings":{},"latestAssistantEntryId":"r1","at":"deferred.suspended","stepId":"s1","sourceEntryId":"r1","poll":0,`+cfg+`}`)
	_, err := d.StepDone(true)
	must(t, err)
	_, err = d.Step(true)
	must(t, err)
	must(t, d.Intent("op", "r2", "g2", 0))
	pinValue(t, "poll intent", stateValue(t, d, nsOpState, "op"),
		`{"control":{"status":"running"},"settings":{},"latestAssistantEntryId":"r1","at":"deferred.effect_pending","stepId":"s1","sourceEntryId":"r1","poll":1,"responseEntryId":"r2","usageId":"g2",`+cfg+`}`)
}

// response.ts publishResponse: tool-call blocks plan one call each, under
// the result ids the lane minted, in the generation step's turn; a result
// id already used is refused.
func TestToolsValue(t *testing.T) {
	m := startedWith(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1, ThinkingLevel: "off", StepID: "s1"})
	final := partial("reading")
	final.Content = append(final.Content, pi.ToolCall{ID: "call_a", Name: "read", Arguments: pi.EmptyObject()})
	final.StopReason = pi.StopToolUse
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventDone, Reason: pi.StopToolUse, Message: final}))
	must(t, m.AfterResponse())
	if err := m.PlanToolResults([]string{"u1"}); err == nil {
		t.Fatal("a result id equal to the user entry's was accepted")
	}
	must(t, m.PlanToolResults([]string{"t1"}))
	must(t, m.Settle())
	pinValue(t, "tools", stateValue(t, m, nsOpState, "op"),
		`{"control":{"status":"running"},"settings":{},"latestAssistantEntryId":"r1","at":"tools","batch":{"assistantEntryId":"r1","configuration":{"model":{"provider":"openai","modelId":"gpt"},"thinkingLevel":"off","activeToolNames":[]},"turnId":"s1","calls":[{"status":"planned","sourceIndex":1,"resultEntryId":"t1"}]}}`)
}
