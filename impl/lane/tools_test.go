package lane

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// echoTool returns "read <args>"; terminate and replay as given.
func echoTool(name, replay string, terminate bool, runs *int) Tool {
	return Tool{Name: name, Replay: replay, Run: func(args pi.JSONValue) ToolOutput {
		if runs != nil {
			*runs++
		}
		return ToolOutput{Content: []pi.Content{pi.TextContent{Text: name + " " + string(args.AppendJSON(nil))}},
			Details: jobj("n", 1), Terminate: terminate}
	}}
}

// toolRun is defaultRun with active tool names.
func toolRun(active ...string) RunOptions {
	o := defaultRun(1)
	o.Configuration.ActiveToolNames = active
	return o
}

// toolScript answers with one tool call per name (ids call_0, call_1, …)
// after a text block, ending with reason.
func toolScript(reason pi.StopReason, names ...string) *script {
	a := newAcc()
	evs := []evFn{a.start(), a.textStart(0), a.textEnd(0, "let me look")}
	for i, n := range names {
		evs = append(evs, a.toolStart(i+1, "call_"+itoa(i), n), a.toolEnd(i+1, `{"path":"f`+itoa(i)+`.txt"}`))
	}
	return seq(append(evs, a.done(reason))...)
}

// toTools runs a harness's run until its response settled at `tools`.
func (h *harness) toTools(opts RunOptions, s *script) (op string, resp string) {
	h.provider.add(s)
	op = h.startRun(opts)
	r, err := h.lane.Step(StepOptions{})
	require.NoError(h.t, err)
	require.Equal(h.t, StepProgress, r.Kind)
	st := h.lane.Current().State
	require.Equal(h.t, LeafTools, st.At)
	return op, st.BatchAssistantEntryID
}

func (h *harness) stepOK() StepResult {
	r, err := h.lane.Step(StepOptions{})
	require.NoError(h.t, err)
	return r
}

// toolResultOf is the placed tool-result message of entry id and the
// entry's terminate flag.
func (h *harness) toolResultOf(id string) (*pi.ToolResultMessage, bool) {
	es, err := h.store.Entries()
	require.NoError(h.t, err)
	for _, e := range es {
		if e.Entry.ID == id {
			v, err := pi.ParseJSON(string(e.Entry.Raw))
			require.NoError(h.t, err)
			m, err := pi.DecodeToolResultMessage(v.Prop("message"), "message")
			require.NoError(h.t, err)
			return m, v.Prop("terminate").Kind() == pi.Bool && v.Prop("terminate").Bool()
		}
	}
	h.t.Fatalf("entry %s not committed", id)
	return nil, false
}

func textsOf(cs []pi.Content) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.(pi.TextContent).Text)
	}
	return strings.Join(out, "|")
}

func (h *harness) laneTip() string {
	v, err := h.store.GetValue(BranchTipAddr("main"))
	require.NoError(h.t, err)
	return string(v.Value)
}

// newToolHarness runs batches in runSequential's order (the option), whose
// transaction order the tests pin; TestToolBatchParallelWriteLists runs
// pi's default.
func newToolHarness(t *testing.T, tools ...Tool) *harness {
	h := newHarness(t, backends[0])
	h.tools = tools
	h.toolExecution = ToolsSequential
	h.open()
	return h
}

// runtime/drive/tools.ts runTools/runSequential + tool-placement.ts
// commitPlacement: one Step runs the batch, places results in call order
// after the response and checkpoints need_assistant on the last one.
func TestToolBatchPlacesResultsAndCheckpoints(t *testing.T) {
	h := newToolHarness(t, echoTool("read", "", false, nil))
	op, resp := h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read", "ghost"))
	calls := h.lane.Current().State.Calls
	h.resetEvents()

	r := h.stepOK()
	require.Equal(t, StepProgress, r.Kind, "the old lane waited here")
	st := h.lane.Current().State
	require.Equal(t, LeafCheckpoint, st.At)
	require.Equal(t, Continuation{Kind: ContinueNeedAssistant}, st.Continuation)
	require.Equal(t, calls[1].ResultEntryID, st.TriggerEntryID)
	require.Equal(t, `"`+calls[1].ResultEntryID+`"`, h.laneTip())

	first, term := h.toolResultOf(calls[0].ResultEntryID)
	require.False(t, term)
	require.Equal(t, `read {"path":"f0.txt"}`, textsOf(first.Content))
	require.False(t, first.IsError)
	require.Equal(t, "call_0", first.ToolCallID)
	second, _ := h.toolResultOf(calls[1].ResultEntryID)
	require.Equal(t, `Tool "ghost" is unavailable`, textsOf(second.Content))
	require.True(t, second.IsError)

	es, err := h.store.Entries()
	require.NoError(t, err)
	n := len(es)
	require.Equal(t, calls[0].ResultEntryID, es[n-2].Entry.ID)
	require.Equal(t, resp, *es[n-2].Entry.ParentID)
	require.Equal(t, calls[0].ResultEntryID, *es[n-1].Entry.ParentID)
	for _, ns := range []string{NSToolArgs, NSPendingEntry, NSPendingOutput} {
		vs, err := h.store.ScanValues(ns, "")
		require.NoError(t, err)
		require.Empty(t, vs, ns)
	}
	require.Equal(t, []string{"tool_start", "tool_end", "message_start", "message_end", "entry_added",
		"tool_start", "tool_end", "message_start", "message_end", "entry_added", "turn_end"}, h.eventTypes())

	h.provider.add(helloScript())
	require.Equal(t, LeafAssistantReady, func() Leaf { h.stepOK(); return h.lane.Current().State.At }())
	require.Equal(t, StepSettled, func() StepKind { h.stepOK(); return h.stepOK().Kind }())
	require.Contains(t, h.resultOf(op), `"status":"completed"`)
}

// tool-placement.ts commitPlacement: a batch whose every call terminates
// checkpoints may_finish (includeFinalAssistant false), and the entries
// carry terminate:true; the next step completes the run.
func TestToolBatchAllTerminateMayFinish(t *testing.T) {
	h := newToolHarness(t, echoTool("done", "", true, nil))
	op, _ := h.toTools(toolRun("done"), toolScript(pi.StopToolUse, "done", "done"))
	calls := h.lane.Current().State.Calls
	h.stepOK()
	st := h.lane.Current().State
	require.Equal(t, Continuation{Kind: ContinueMayFinish}, st.Continuation)
	_, term := h.toolResultOf(calls[0].ResultEntryID)
	require.True(t, term)
	require.Equal(t, StepSettled, h.stepOK().Kind)
	require.Contains(t, h.resultOf(op), `"status":"completed"`)
}

// runtime/drive/tools.ts prepareToolInvocation + truncatedOutcome: a
// response that stopped at the output limit runs none of its calls.
func TestToolBatchLengthStopTruncates(t *testing.T) {
	runs := 0
	h := newToolHarness(t, echoTool("read", "", false, &runs))
	_, _ = h.toTools(toolRun("read"), toolScript(pi.StopLength, "read"))
	calls := h.lane.Current().State.Calls
	h.stepOK()
	m, _ := h.toolResultOf(calls[0].ResultEntryID)
	require.Equal(t, `Tool call "read" was not executed because the assistant response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.`, textsOf(m.Content))
	require.True(t, m.IsError)
	require.Zero(t, runs)
}

// execution/tools.ts prepareToolCall: a configured tool whose name is not
// in the batch's activeToolNames is unavailable, exactly like an unknown one
// (every active name is configured: prepareGeneration fails a run whose
// active tool is not).
func TestToolBatchInactiveToolIsUnavailable(t *testing.T) {
	runs := 0
	h := newToolHarness(t, echoTool("read", "", false, &runs), echoTool("write", "", false, nil))
	_, _ = h.toTools(toolRun("write"), toolScript(pi.StopToolUse, "read"))
	calls := h.lane.Current().State.Calls
	h.stepOK()
	m, _ := h.toolResultOf(calls[0].ResultEntryID)
	require.Equal(t, `Tool "read" is unavailable`, textsOf(m.Content))
	require.Zero(t, runs)
}

// crashTool closes the lane the first time it runs (a crash with the
// call's effect pending), then behaves as echoTool.
func crashTool(h *harness, replay string, runs *int) Tool {
	t := echoTool("read", replay, false, nil)
	run := t.Run
	t.Run = func(args pi.JSONValue) ToolOutput {
		*runs++
		if *runs == 1 {
			require.NoError(h.t, h.lane.Close())
		}
		return run(args)
	}
	return t
}

// runtime/drive/tools.ts recoverToolInvocation + interruptedOutcome: a
// restart finds the call effect_pending with replay "never" and places the
// interruption marker without running the tool again.
func TestToolBatchRestartInterruptsPendingCall(t *testing.T) {
	runs := 0
	h := newToolHarness(t)
	h.tools = []Tool{crashTool(h, "", &runs)}
	h.open()
	op, _ := h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read"))
	_, err := h.lane.Step(StepOptions{})
	require.ErrorIs(t, err, ErrClosed)
	require.Equal(t, CallEffectPending, h.stateOf(op).Calls[0].Status)

	h.open()
	h.resetEvents()
	h.stepOK()
	calls := h.stateOf(op)
	require.Equal(t, LeafCheckpoint, calls.At)
	m, _ := h.toolResultOf(h.lane.Current().State.TriggerEntryID)
	require.Equal(t, InterruptionMarker, textsOf(m.Content))
	require.True(t, m.IsError)
	require.Equal(t, 1, runs)
	require.Equal(t, []string{"turn_start(recovery)", "tool_end(recovery)", "message_start(recovery)",
		"message_end(recovery)", "entry_added", "turn_end(recovery)"}, h.eventTypes())
}

// runtime/drive/tools.ts recoverToolInvocation + clearReplayCheckpoint: a
// "safe" call of a "safe" tool clears its checkpoint and runs again with
// its persisted arguments.
func TestToolBatchRestartReplaysSafeCall(t *testing.T) {
	runs := 0
	h := newToolHarness(t)
	h.tools = []Tool{crashTool(h, "safe", &runs)}
	h.open()
	op, _ := h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read"))
	_, err := h.lane.Step(StepOptions{})
	require.ErrorIs(t, err, ErrClosed)
	// a progress checkpoint pi would have written; the replay clears it
	id := h.stateOf(op).Calls[0].ResultEntryID
	_, err = h.store.Commit([]store.Write{store.SetValueRaw(PendingToolOutputAddr(op, id), []byte(`{"content":[]}`))})
	require.NoError(t, err)

	h.open()
	h.resetEvents()
	h.stepOK()
	m, _ := h.toolResultOf(id)
	require.Equal(t, `read {"path":"f0.txt"}`, textsOf(m.Content))
	require.Equal(t, 2, runs)
	require.Equal(t, []string{"turn_start(recovery)", "tool_start(recovery)", "tool_end(recovery)", "message_start(recovery)",
		"message_end(recovery)", "entry_added", "turn_end(recovery)"}, h.eventTypes())
	v, err := h.store.GetValue(PendingToolOutputAddr(op, id))
	require.NoError(t, err)
	require.Nil(t, v)
}

// runtime/drive/tools.ts runSequential under cancel_requested: a planned
// call gets abortedOutcome, an effect_pending one interruptedOutcome with
// the stored checkpoint's content before the marker.
func TestToolBatchCancelledRestartUsesCheckpoint(t *testing.T) {
	runs := 0
	h := newToolHarness(t)
	h.tools = []Tool{crashTool(h, "", &runs)}
	h.open()
	op, _ := h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read", "read"))
	_, err := h.lane.Step(StepOptions{})
	require.ErrorIs(t, err, ErrClosed)
	id := h.stateOf(op).Calls[0].ResultEntryID
	_, err = h.store.Commit([]store.Write{store.SetValueRaw(PendingToolOutputAddr(op, id),
		[]byte(`{"content":[{"type":"text","text":"half"}],"details":{"p":1}}`))})
	require.NoError(t, err)

	h.open()
	require.NoError(t, h.lane.RequestCancel())
	h.stepOK()
	st := h.lane.Current().State
	require.Equal(t, LeafCheckpoint, st.At)
	m, _ := h.toolResultOf(id)
	require.Equal(t, "half|"+InterruptionMarker, textsOf(m.Content))
	require.Equal(t, `{"p":1}`, string(m.Details.AppendJSON(nil)))
	second, _ := h.toolResultOf(st.TriggerEntryID)
	require.Equal(t, toolCancelledText, textsOf(second.Content))
	require.Equal(t, 1, runs)
	require.Equal(t, StepSettled, h.stepOK().Kind)
	require.Contains(t, h.resultOf(op), `"status":"aborted"`)
}

// runtime/drive/tools.ts runSequential: a cancel requested while the first
// call runs keeps its result (terminate dropped: control is no longer
// running) and aborts the second call before its intent.
func TestToolBatchCancelMidBatch(t *testing.T) {
	runs := 0
	h := newToolHarness(t)
	h.tools = []Tool{{Name: "read", Run: func(args pi.JSONValue) ToolOutput {
		runs++
		require.NoError(t, h.lane.RequestCancel())
		return ToolOutput{Content: []pi.Content{pi.TextContent{Text: "ok"}}, Terminate: true}
	}}}
	h.open()
	op, _ := h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read", "read"))
	calls := h.lane.Current().State.Calls
	h.resetEvents()
	h.stepOK()
	first, term := h.toolResultOf(calls[0].ResultEntryID)
	require.Equal(t, "ok", textsOf(first.Content))
	require.False(t, term)
	second, _ := h.toolResultOf(calls[1].ResultEntryID)
	require.Equal(t, toolCancelledText, textsOf(second.Content))
	require.Equal(t, 1, runs)
	require.Equal(t, Continuation{Kind: ContinueNeedAssistant}, h.lane.Current().State.Continuation)
	require.Equal(t, StepSettled, h.stepOK().Kind)
	require.Contains(t, h.resultOf(op), `"status":"aborted"`)
}

// execution/tools.ts executeToolCall: gate.admit refuses a tool run once
// the cancel began (here right after the intent): no Run, aborted outcome.
func TestToolBatchCancelBeforeAdmission(t *testing.T) {
	runs := 0
	h := newToolHarness(t, echoTool("read", "", false, &runs))
	_, _ = h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read"))
	calls := h.lane.Current().State.Calls
	h.listener = func(ev Event) env.Future {
		if ev.Type == EvToolStart {
			require.NoError(t, h.lane.RequestCancel())
		}
		return nil
	}
	h.stepOK()
	m, _ := h.toolResultOf(calls[0].ResultEntryID)
	require.Equal(t, toolCancelledText, textsOf(m.Content))
	require.Zero(t, runs)
}

// runtime/drive/tools.ts publishToolIntent / publishToolOutcome and
// tool-placement.ts commitPlacement (settleOperation appends the op state):
// the exact write list of each transaction.
func TestToolBatchWriteLists(t *testing.T) {
	h := newToolHarness(t, echoTool("read", "", false, nil))
	op, _ := h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read", "read"))
	st := h.lane.Current().State
	a, b, turn := st.Calls[0].ResultEntryID, st.Calls[1].ResultEntryID, st.BatchTurnID
	h.gated.mu.Lock()
	from := len(h.gated.log)
	h.gated.mu.Unlock()
	h.stepOK()
	var got [][]string
	for _, ws := range h.gated.log[from:] {
		var s []string
		for _, w := range ws {
			s = append(s, w.String())
		}
		got = append(got, s)
	}
	opState := "value:set:pi.op.state/" + op
	intent := func(i int) []string {
		return []string{"value:set:pi.op.tool_args/" + op + ":" + turn + ":" + itoa(i+1), opState}
	}
	outcome := func(id string) []string {
		return []string{"value:set:pi.pending.entry/" + id, "value:delete:pi.pending.tool_output/" + op + ":" + id, opState}
	}
	want := [][]string{
		intent(0), outcome(a),
		{"entry:" + a, "value:delete:pi.pending.entry/" + a, "value:set:pi.branch.tip/main", opState},
		intent(1), outcome(b),
		{"entry:" + b, "value:delete:pi.pending.entry/" + b, "value:set:pi.branch.tip/main",
			"value:delete:pi.op.tool_args/" + op + ":" + turn + ":1", "value:delete:pi.op.tool_args/" + op + ":" + turn + ":2", opState},
	}
	require.Equal(t, want, got)
}

// runtime/drive/tools.ts runParallel (pi's default toolExecution): both
// intents commit before either outcome; the second call ends first, its
// outcome commits and its materialization places nothing (the first call
// is not ready); the first call's outcome then places both in one commit.
func TestToolBatchParallelWriteLists(t *testing.T) {
	second := make(chan struct{})
	h := newHarness(t, backends[0])
	h.tools = []Tool{{Name: "read", Run: func(args pi.JSONValue) ToolOutput {
		if args.Prop("path").Str() == "f0.txt" {
			<-second // the first call ends after the second's outcome
		}
		return ToolOutput{Content: []pi.Content{pi.TextContent{Text: "read"}}}
	}}}
	h.listener = func(ev Event) env.Future {
		if ev.Type == EvToolEnd && ev.ToolCallID == "call_1" {
			close(second)
		}
		return nil
	}
	h.open()
	op, _ := h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read", "read"))
	st := h.lane.Current().State
	a, b, turn := st.Calls[0].ResultEntryID, st.Calls[1].ResultEntryID, st.BatchTurnID
	h.gated.mu.Lock()
	from := len(h.gated.log)
	h.gated.mu.Unlock()
	h.stepOK()
	var got [][]string
	for _, ws := range h.gated.log[from:] {
		var s []string
		for _, w := range ws {
			s = append(s, w.String())
		}
		got = append(got, s)
	}
	opState := "value:set:pi.op.state/" + op
	intent := func(i int) []string {
		return []string{"value:set:pi.op.tool_args/" + op + ":" + turn + ":" + itoa(i+1), opState}
	}
	outcome := func(id string) []string {
		return []string{"value:set:pi.pending.entry/" + id, "value:delete:pi.pending.tool_output/" + op + ":" + id, opState}
	}
	want := [][]string{intent(0), intent(1), outcome(b), outcome(a),
		{"entry:" + a, "value:delete:pi.pending.entry/" + a, "entry:" + b, "value:delete:pi.pending.entry/" + b, "value:set:pi.branch.tip/main",
			"value:delete:pi.op.tool_args/" + op + ":" + turn + ":1", "value:delete:pi.op.tool_args/" + op + ":" + turn + ":2", opState}}
	require.Equal(t, want, got)
	require.Equal(t, LeafCheckpoint, h.lane.Current().State.At)
}

// session/types.ts ToolCall: each status's members in the literal order
// of tools.ts / tool-placement.ts, and back.
func TestToolCallStatusesRoundTrip(t *testing.T) {
	s := &OpState{At: LeafTools, BatchAssistantEntryID: "r", BatchTurnID: "t", Configuration: &Configuration{},
		Calls: []PlannedCall{{Status: CallPlanned, SourceIndex: 1, ResultEntryID: "a"},
			{Status: CallEffectPending, SourceIndex: 2, ResultEntryID: "b", Replay: "safe"},
			{Status: CallOutcomeReady, SourceIndex: 3, ResultEntryID: "c", Terminate: true},
			{Status: CallCompleted, SourceIndex: 4, ResultEntryID: "d"}}}
	raw := string(MarshalState(s))
	require.Contains(t, raw, `"calls":[{"status":"planned","sourceIndex":1,"resultEntryId":"a"},`+
		`{"status":"effect_pending","sourceIndex":2,"resultEntryId":"b","replay":"safe"},`+
		`{"status":"outcome_ready","sourceIndex":3,"resultEntryId":"c","terminate":true},`+
		`{"status":"completed","sourceIndex":4,"resultEntryId":"d","terminate":false}]`)
	back, err := DecodeState([]byte(raw))
	require.NoError(t, err)
	require.Equal(t, s.Calls, back.Calls)
	_, err = DecodeState([]byte(strings.Replace(raw, `"completed"`, `"done"`, 1)))
	require.ErrorContains(t, err, `unsupported tool call status "done"`)
}

// Config.HoldToolBatches keeps the batch waiting (frameproof's option for
// callers that answer tool calls themselves).
func TestHeldToolBatchWaits(t *testing.T) {
	h := newHarness(t, backends[0])
	h.holdTools = true
	h.open()
	_, _ = h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read"))
	r := h.stepOK()
	require.Equal(t, StepResult{Kind: StepWaiting, Reason: "tools"}, r)
}

// runtime/drive/terminal.ts operationCleanupWrites: finalizing an
// operation at `tools` deletes its stored arguments and the staged result
// of every outcome_ready call (after the tool-output deletes).
func TestToolBatchFinalizeCleansStagedResults(t *testing.T) {
	h := newToolHarness(t)
	h.tools = []Tool{{Name: "read", Run: func(pi.JSONValue) ToolOutput {
		return ToolOutput{Content: []pi.Content{pi.TextContent{Text: "ok"}}}
	}}}
	h.open()
	op, _ := h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read", "read"))
	st := h.lane.Current().State
	// the batch as a crash leaves it: call 1 staged, call 2 effect_pending
	st.Calls[0].Status = CallOutcomeReady
	st.Calls[1].Status, st.Calls[1].Replay = CallEffectPending, "never"
	staged := []byte(`{"type":"message","payload":{"role":"toolResult","toolCallId":"call_0","toolName":"read","content":[],"isError":false,"timestamp":1}}`)
	_, err := h.store.Commit([]store.Write{store.SetValueRaw(PendingEntryAddr(st.Calls[0].ResultEntryID), staged),
		store.SetValueRaw(ToolArgsAddr(op, st.BatchTurnID, st.Calls[1].SourceIndex), []byte(`{}`)),
		store.SetValueRaw(OpStateAddr(op), MarshalState(st))})
	require.NoError(t, err)
	h.open()
	h.gated.mu.Lock()
	from := len(h.gated.log)
	h.gated.mu.Unlock()
	require.NoError(t, h.lane.Finalize("aborted", nil))
	var got []string
	for _, w := range h.gated.log[from][:4] {
		got = append(got, w.String())
	}
	require.Equal(t, []string{"value:delete:pi.op.meta/" + op, "value:delete:pi.op.state/" + op,
		"value:delete:pi.op.tool_args/" + op + ":" + st.BatchTurnID + ":2",
		"value:delete:pi.pending.entry/" + st.Calls[0].ResultEntryID}, got)
	v, err := h.store.GetValue(PendingEntryAddr(st.Calls[0].ResultEntryID))
	require.NoError(t, err)
	require.Nil(t, v)
}

// runtime/drive/tools.ts interruptedOutcome keeps the checkpoint's usage,
// and tool-placement.ts commitPlacement inserts a usage row for a result
// with usage right after its entry and pending delete, and emits usage
// after entry_added.
func TestToolBatchInterruptedUsageIsPlaced(t *testing.T) {
	runs := 0
	h := newToolHarness(t)
	h.tools = []Tool{crashTool(h, "", &runs)}
	h.open()
	op, _ := h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read"))
	_, err := h.lane.Step(StepOptions{})
	require.ErrorIs(t, err, ErrClosed)
	id := h.stateOf(op).Calls[0].ResultEntryID
	usage := `{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`
	_, err = h.store.Commit([]store.Write{store.SetValueRaw(PendingToolOutputAddr(op, id),
		[]byte(`{"content":[{"type":"text","text":"half"}],"usage":`+usage+`}`))})
	require.NoError(t, err)

	h.open()
	h.resetEvents()
	h.gated.mu.Lock()
	from := len(h.gated.log)
	h.gated.mu.Unlock()
	h.stepOK()
	m, _ := h.toolResultOf(id)
	require.NotNil(t, m.Usage)
	require.Equal(t, float64(3), m.Usage.TotalTokens)
	var place []string
	for _, ws := range h.gated.log[from:] {
		if ws[0].Kind == store.WriteEntry {
			for _, w := range ws[:3] {
				place = append(place, string(w.Kind))
			}
		}
	}
	require.Equal(t, []string{string(store.WriteEntry), string(store.WriteValue), string(store.WriteUsage)}, place)
	require.Equal(t, []string{"turn_start(recovery)", "tool_end(recovery)", "message_start(recovery)",
		"message_end(recovery)", "entry_added", "usage", "turn_end(recovery)"}, h.eventTypes())
	us, err := h.store.Usage()
	require.NoError(t, err)
	require.Contains(t, string(us[len(us)-1].Row.Raw), `"entryId":"`+id+`"`)
}

// Open refuses a tool list it cannot run, naming the tool.
func TestOpenRefusesBadTools(t *testing.T) {
	h := newHarness(t, backends[0])
	run := func(pi.JSONValue) ToolOutput { return ToolOutput{} }
	for _, c := range []struct {
		tools []Tool
		want  string
	}{
		{[]Tool{{Run: run}}, "tool 0 has no name"},
		{[]Tool{{Name: "read"}}, `tool "read" has no Run`},
		{[]Tool{{Name: "read", Replay: "always", Run: run}}, `tool "read": replay "always" is neither "never" nor "safe"`},
	} {
		cfg := h.config()
		cfg.Tools = c.tools
		_, err := Open(cfg)
		require.ErrorContains(t, err, c.want)
	}
}

// A tool call without arguments (none to store as pi.op.tool_args) faults
// the lane with an error naming it; nothing is written for it.
func TestToolBatchCallWithoutArgumentsFaults(t *testing.T) {
	h := newToolHarness(t, echoTool("read", "", false, nil))
	a := newAcc()
	undefinedArgs := func() pi.Event {
		b := a.m.Content[0].(pi.ToolCall)
		b.Arguments = pi.JSONValue{}
		a.m.Content[0] = b
		return pi.Event{Type: pi.EventToolCallEnd, ContentIndex: pi.Index(0), ToolCall: &b, Partial: a.m}
	}
	op, _ := h.toTools(toolRun("read"), seq(a.start(), a.toolStart(0, "call_0", "read"), undefinedArgs, a.done(pi.StopToolUse)))
	_, err := h.lane.Step(StepOptions{})
	require.ErrorContains(t, err, "tool call call_0 (read) of operation "+op+" has no arguments")
	vs, err := h.store.ScanValues(NSToolArgs, "")
	require.NoError(t, err)
	require.Empty(t, vs)
}

// execution/tools.ts prepareToolCall with runtime/drive/tools.ts runTools:
// a lane with no tools configured (pi's config.tools empty) still runs a
// settled batch and answers every call "unavailable"; only the
// HoldToolBatches option keeps it waiting.
func TestToolBatchWithoutToolsAnswersUnavailable(t *testing.T) {
	h := newHarness(t, backends[0])
	h.open()
	_, _ = h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read"))
	calls := h.lane.Current().State.Calls
	r := h.stepOK()
	require.Equal(t, StepProgress, r.Kind, "the old default waited here")
	m, _ := h.toolResultOf(calls[0].ResultEntryID)
	require.Equal(t, `Tool "read" is unavailable`, textsOf(m.Content))
	require.True(t, m.IsError)
	require.Equal(t, LeafCheckpoint, h.lane.Current().State.At)
}
