package lane

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// testTools: "read" answers with the path it was given; "stop" answers
// and asks to terminate; "again" may be replayed after a restart.
func testTools() []ToolSpec {
	read := func(args pi.JSONValue) ToolRun {
		return ToolRun{Content: []pi.Content{pi.TextContent{Text: "read " + args.Prop("path").Str()}}, Details: pi.EmptyObject()}
	}
	return []ToolSpec{
		{Name: "read", Run: read},
		{Name: "stop", Run: func(pi.JSONValue) ToolRun {
			return ToolRun{Content: []pi.Content{pi.TextContent{Text: "bye"}}, Terminate: true}
		}},
		{Name: "again", Replay: "safe", Run: read},
	}
}

func call(id, name, path string) pi.ToolCall {
	args := pi.NewObject()
	args.Set("path", pi.StringValue(path))
	return pi.ToolCall{ID: id, Name: name, Arguments: pi.ObjectValue(args)}
}

// toolsModel is a model whose run "op" settled response r1 with calls (in
// step s1, result ids t1, t2, …) and whose generation step returned: the
// operation is at tools. mutant selects a model variant.
func toolsModel(t *testing.T, mutant, execution string, stop pi.StopReason, calls ...pi.ToolCall) *Model {
	t.Helper()
	m := New(Config{Lane: "main", Now: func() float64 { return 1000 }, Tools: testTools(), Mutant: mutant,
		NewObserver: func() Observer { return &partialObserver{} }})
	obj := pi.NewObject()
	if execution != "" {
		obj.Set("toolExecution", pi.StringValue(execution))
	}
	settings := pi.ObjectValue(obj)
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1, ThinkingLevel: "off",
		ActiveToolNames: []string{"read", "stop", "again"}, Settings: settings}))
	toReady(t, m, "s1")
	expectStep(t, m, "generate")
	must(t, m.Intent("op", "r1", "g1", 1))
	must(t, m.Admit())
	final := partial("reading")
	ids := make([]string, len(calls))
	for i, c := range calls {
		final.Content = append(final.Content, c)
		ids[i] = "t" + string(rune('1'+i))
	}
	final.StopReason = stop
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventDone, Reason: stop, Message: final}))
	must(t, m.AfterResponse())
	must(t, m.PlanToolResults(ids))
	must(t, m.Settle())
	_, err := m.StepDone(true)
	must(t, err)
	m.TakeTX()
	return m
}

func expectStep(t *testing.T, m *Model, kind string) {
	t.Helper()
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != kind {
		t.Fatalf("step: %+v, want %s", e, kind)
	}
}

// pinTX checks the write list of the last input against want, one write a
// line as TXWrite.String prints it.
func pinTX(t *testing.T, what string, m *Model, want ...string) {
	t.Helper()
	if err := txIs(m, want...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func txIs(m *Model, want ...string) error {
	ws, _ := m.TakeTX()
	got := make([]string, len(ws))
	for i, w := range ws {
		got[i] = w.String()
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		return &txDiff{got: got, want: want}
	}
	return nil
}

type txDiff struct{ got, want []string }

func (d *txDiff) Error() string {
	return "writes\n got " + strings.Join(d.got, "\n     ") + "\nwant " + strings.Join(d.want, "\n     ")
}

func pinEvents(t *testing.T, m *Model, from int, want ...string) {
	t.Helper()
	got := m.Events()[from:]
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
}

const (
	opScope    = `{"control":{"status":"running"},"settings":{"toolExecution":"sequential"},"latestAssistantEntryId":"r1","at":"tools","batch":{"assistantEntryId":"r1","configuration":{"model":{"provider":"openai","modelId":"gpt"},"thinkingLevel":"off","activeToolNames":["read","stop","again"]},"turnId":"s1","calls":[`
	readResult = `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"read a.go"}],"details":{},"isError":false,"timestamp":1000}`
)

// runtime/drive/tools.ts runSequential, publishToolIntent, publishToolOutcome
// and tool-placement.ts commitPlacement: per call intent, outcome,
// placement; each transaction's writes and op state in pi's order and key
// order; the complete batch deletes its arguments and checkpoints on the
// last result, which the next generation answers.
func TestToolBatchSequential(t *testing.T) {
	m := toolsModel(t, "", "sequential", pi.StopToolUse, call("c1", "read", "a.go"), call("c2", "read", "b.go"))
	from := len(m.Events())
	expectStep(t, m, "tools")

	must(t, m.ToolIntent("t1"))
	pinTX(t, "intent", m, `value set pi.op.tool_args/op:s1:1 = {"path":"a.go"}`,
		`value set pi.op.state/op = `+opScope+`{"status":"effect_pending","sourceIndex":1,"resultEntryId":"t1","replay":"never"},{"status":"planned","sourceIndex":2,"resultEntryId":"t2"}]}}`)
	must(t, m.ToolAdmitted())
	must(t, m.ToolOutcome("t1"))
	pinTX(t, "outcome", m, `value set pi.pending.entry/t1 = {"type":"message","payload":`+readResult+`}`,
		`value delete pi.pending.tool_output/op:t1`,
		`value set pi.op.state/op = `+opScope+`{"status":"outcome_ready","sourceIndex":1,"resultEntryId":"t1","terminate":false},{"status":"planned","sourceIndex":2,"resultEntryId":"t2"}]}}`)
	if p := m.Committed().Pending; len(p) != 1 || p[0] != "t1" {
		t.Fatalf("pending after the outcome: %v", p)
	}
	if err := m.ToolIntent("t2"); err == nil {
		t.Fatal("a sequential batch started its second call before placing the first")
	}
	settings := m.ops["op"].run.Settings
	m.cfg.SequentialTools, m.ops["op"].run.Settings = true, pi.EmptyObject() // pi's parallel default, overridden
	if err := m.ToolIntent("t2"); err == nil {
		t.Fatal("SequentialTools let the second call start before the first was placed")
	}
	m.cfg.SequentialTools, m.ops["op"].run.Settings = false, settings
	must(t, m.PlaceTools())
	pinTX(t, "placement", m, `entry t1 parent="r1"`, `value delete pi.pending.entry/t1`, `value set pi.branch.tip/main = "t1"`,
		`value set pi.op.state/op = `+opScope+`{"status":"completed","sourceIndex":1,"resultEntryId":"t1","terminate":false},{"status":"planned","sourceIndex":2,"resultEntryId":"t2"}]}}`)

	must(t, m.ToolIntent("t2"))
	must(t, m.ToolAdmitted())
	m.TakeTX()
	must(t, m.ToolOutcome("t2"))
	m.TakeTX()
	must(t, m.PlaceTools())
	pinTX(t, "last placement", m, `entry t2 parent="t1"`, `value delete pi.pending.entry/t2`, `value set pi.branch.tip/main = "t2"`,
		`value delete pi.op.tool_args/op:s1:1`, `value delete pi.op.tool_args/op:s1:2`,
		`value set pi.op.state/op = {"control":{"status":"running"},"settings":{"toolExecution":"sequential"},"latestAssistantEntryId":"r1","at":"checkpoint","continuation":{"kind":"need_assistant","overflowRecoveryUsed":false},"triggerEntryId":"t2"}`)
	out, err := m.StepDone(true)
	must(t, err)
	if out != (Outcome{Kind: "progress"}) {
		t.Fatalf("tools step outcome %+v", out)
	}
	pinEvents(t, m, from, "tool_start", "tool_end", "message_start", "message_end", "entry_added",
		"tool_start", "tool_end", "message_start", "message_end", "entry_added", "turn_end")
	if st := m.Committed(); len(st.Pending) != 0 || st.Entries[2].Message != readResult {
		t.Fatalf("after the batch: pending %v, entry %s", st.Pending, st.Entries[2].Message)
	}
	if got := strings.Join(m.Transcript(), " "); got != "u1 r1 t1 t2" {
		t.Fatalf("transcript %s", got)
	}

	expectStep(t, m, "checkpoint")
	must(t, m.Checkpoint("s2"))
	if v := stateValue(t, m, nsOpState, "op"); !strings.Contains(v, `"stepId":"s2","triggerEntryId":"t2"`) {
		t.Fatalf("the next generation does not answer the last result: %s", v)
	}
}

// tool-placement.ts commitPlacement: a batch whose every call terminates
// checkpoints at may_finish without the final assistant; the run then
// completes.
func TestToolBatchTerminates(t *testing.T) {
	m := toolsModel(t, "", "", pi.StopToolUse, call("c1", "stop", "x"))
	expectStep(t, m, "tools")
	must(t, m.ToolIntent("t1"))
	must(t, m.ToolAdmitted())
	must(t, m.ToolOutcome("t1"))
	if v := stateValue(t, m, nsOpState, "op"); !strings.Contains(v, `"terminate":true`) {
		t.Fatalf("outcome state: %s", v)
	}
	must(t, m.PlaceTools())
	if v := stateValue(t, m, nsOpState, "op"); !strings.HasSuffix(v, `"continuation":{"kind":"may_finish","includeFinalAssistant":false},"triggerEntryId":"t1"}`) {
		t.Fatalf("checkpoint: %s", v)
	}
	_, err := m.StepDone(true)
	must(t, err)
	e, err := m.Step(false)
	must(t, err)
	if e != (Expect{Kind: "terminate", Status: "completed"}) {
		t.Fatalf("after a terminating batch: %+v", e)
	}
}

// runtime/drive/tools.ts truncatedOutcome, execution/tools.ts
// prepareToolCall and tools.ts abortedOutcome: outcomes without execution,
// each an error result with pi's exact text; none takes an intent.
func TestToolSyntheticOutcomes(t *testing.T) {
	text := func(m *Model) string {
		return m.Committed().Entries[len(m.Committed().Entries)-1].Message
	}
	result := func(id, name, s string) string {
		return `{"role":"toolResult","toolCallId":"` + id + `","toolName":"` + name + `","content":[{"type":"text","text":"` + s + `"}],"isError":true,"timestamp":1000}`
	}

	m := toolsModel(t, "", "", pi.StopLength, call("c1", "read", "a"))
	expectStep(t, m, "tools")
	if err := m.ToolIntent("t1"); err == nil {
		t.Fatal("a truncated response's call took an intent")
	}
	must(t, m.ToolOutcome("t1"))
	must(t, m.PlaceTools())
	pinValue(t, "truncated", text(m), result("c1", "read", `Tool call \"read\" was not executed because the assistant response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.`))

	m = toolsModel(t, "", "", pi.StopToolUse, call("c1", "grep", "a"))
	expectStep(t, m, "tools")
	if err := m.ToolIntent("t1"); err == nil {
		t.Fatal("a call of an unknown tool took an intent")
	}
	must(t, m.ToolOutcome("t1"))
	must(t, m.PlaceTools())
	pinValue(t, "unavailable", text(m), result("c1", "grep", `Tool \"grep\" is unavailable`))

	m = toolsModel(t, "", "", pi.StopToolUse, call("c1", "read", "a"), call("c2", "stop", "b"))
	m.Cancel()
	from := len(m.Events())
	expectStep(t, m, "tools")
	if err := m.ToolIntent("t1"); err == nil {
		t.Fatal("a cancelled batch published an intent")
	}
	for _, id := range []string{"t1", "t2"} {
		must(t, m.ToolOutcome(id))
		must(t, m.PlaceTools())
	}
	pinValue(t, "aborted", text(m), result("c2", "stop", ToolAbortedText))
	pinEvents(t, m, from, "tool_start", "tool_end", "message_start", "message_end", "entry_added",
		"tool_start", "tool_end", "message_start", "message_end", "entry_added", "turn_end")
	_, err := m.StepDone(true)
	must(t, err)
	if _, o, _ := m.current(); o.Continuation != NeedAssistant || !o.CancelRequested {
		t.Fatalf("cancelled batch checkpoint: %+v", o) // a cancelled "stop" does not terminate
	}
	e, err := m.Step(false)
	must(t, err)
	if e != (Expect{Kind: "terminate", Status: "aborted"}) {
		t.Fatalf("after a cancelled batch: %+v", e)
	}
}

// runtime/drive/tools.ts runTools and recoverToolInvocation: a restart
// finds an effect_pending call; the step opens with turn_start(recovery); a
// "never" call gets the interrupted outcome, a "safe" one clears its
// checkpoint (tool_start(recovery)) and runs again.
func TestToolRecovery(t *testing.T) {
	m := toolsModel(t, "", "", pi.StopToolUse, call("c1", "read", "a"), call("c2", "again", "b"))
	expectStep(t, m, "tools")
	must(t, m.ToolIntent("t1"))
	must(t, m.ToolIntent("t2")) // parallel: every intent before any outcome
	m.Crash()
	from := len(m.Events())
	expectStep(t, m, "tools")
	if err := m.ToolReplayClear("t1"); err == nil {
		t.Fatal("a \"never\" call was replayed")
	}
	must(t, m.ToolOutcome("t1"))
	must(t, m.PlaceTools())
	if err := m.ToolOutcome("t2"); err == nil {
		t.Fatal("a replayable call was interrupted without its replay")
	}
	must(t, m.ToolReplayClear("t2"))
	must(t, m.ToolAdmitted())
	pinTX(t, "replay clear", m, `value delete pi.pending.tool_output/op:t2`)
	must(t, m.ToolOutcome("t2"))
	must(t, m.PlaceTools())
	pinEvents(t, m, from, "turn_start(recovery)", "tool_end(recovery)", "message_start(recovery)", "message_end(recovery)", "entry_added",
		"tool_start(recovery)", "tool_end(recovery)", "message_start(recovery)", "message_end(recovery)", "entry_added", "turn_end(recovery)")
	st := m.Committed()
	pinValue(t, "interrupted", st.Entries[2].Message,
		`{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"`+ToolInterruptedText+`"}],"isError":true,"timestamp":1000}`)
	if !strings.Contains(st.Entries[3].Message, `"text":"read b"`) {
		t.Fatalf("replayed result: %s", st.Entries[3].Message)
	}
}

// runtime/drive/terminal.ts operationCleanupWrites: finalizing an operation
// at tools deletes its stored arguments and the pending entries of its
// staged results.
func TestToolBatchFinalized(t *testing.T) {
	m := toolsModel(t, "", "", pi.StopToolUse, call("c1", "read", "a"), call("c2", "read", "b"))
	expectStep(t, m, "tools")
	must(t, m.ToolIntent("t1"))
	must(t, m.ToolIntent("t2"))
	must(t, m.ToolOutcome("t1"))
	m.TakeTX()
	ok, err := m.Finalize("aborted", "", "")
	must(t, err)
	if !ok {
		t.Fatal("finalize did not commit")
	}
	pinTX(t, "finalize", m, `value delete pi.op.meta/op`, `value delete pi.op.state/op`,
		`value delete pi.op.tool_args/op:s1:1`, `value delete pi.op.tool_args/op:s1:2`, `value delete pi.pending.entry/t1`,
		`value set pi.result/op = {"operationId":"op","kind":"run","status":"aborted","fromTipId":null,"tipId":"r1","startedAt":1000,"endedAt":1000}`,
		`value set pi.lane.state/main = {"currentOperationId":null,"lastOperationId":"op","inbox":[]}`)
	if p := m.Committed().Pending; len(p) != 0 {
		t.Fatalf("pending after finalize: %v", p)
	}
	// the step's next transaction found no operation: a stale progress
	out, err := m.StepDone(true)
	must(t, err)
	if out != (Outcome{Kind: "progress", Reason: "stale"}) {
		t.Fatalf("step after the finalization: %+v", out)
	}
}

// runtime/drive/tools.ts runTools runs a batch whatever tools are
// configured (prepareToolCall answers calls of unconfigured tools
// "unavailable"); only the HoldToolBatches option keeps a tools leaf
// waiting.
func TestToolsUnconfiguredRunOrWaitWhenHeld(t *testing.T) {
	for _, hold := range []bool{false, true} {
		m := startedWith(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1, StepID: "s1"})
		m.cfg.HoldToolBatches = hold
		final := partial("x")
		final.Content = append(final.Content, call("c1", "read", "a"))
		final.StopReason = pi.StopToolUse
		must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
		must(t, m.ProviderEvent(&pi.Event{Type: pi.EventDone, Reason: pi.StopToolUse, Message: final}))
		must(t, m.AfterResponse())
		must(t, m.PlanToolResults([]string{"t1"}))
		must(t, m.Settle())
		_, err := m.StepDone(true)
		must(t, err)
		e, err := m.Step(false)
		must(t, err)
		want := Expect{Kind: "tools"}
		if hold {
			want = Expect{Kind: "wait", Reason: "tools"}
		}
		if e != want {
			t.Fatalf("hold %v: step: %+v, want %+v", hold, e, want)
		}
	}
}

// tool-placement.ts commitPlacement deletes each placed result's pending
// entry: the placement-keeps-pending variant states another write list and
// leaves the staged entry pending, and this check rejects it.
func TestToolPlacementMutantRejected(t *testing.T) {
	placement := func(mutant string) (*Model, []string) {
		m := toolsModel(t, mutant, "", pi.StopToolUse, call("c1", "read", "a"))
		expectStep(t, m, "tools")
		must(t, m.ToolIntent("t1"))
		must(t, m.ToolAdmitted())
		must(t, m.ToolOutcome("t1"))
		must(t, m.PlaceTools())
		ws, _ := m.TakeTX()
		addrs := make([]string, len(ws))
		for i, w := range ws {
			w.Value = ""
			addrs[i] = w.String()
		}
		return m, addrs
	}
	pis := strings.Join([]string{`entry t1 parent="r1"`, `value delete pi.pending.entry/t1`, `value set pi.branch.tip/main`,
		`value delete pi.op.tool_args/op:s1:1`, `value set pi.op.state/op`}, ", ")
	check := func(m *Model, addrs []string) bool {
		return strings.Join(addrs, ", ") == pis && len(m.Committed().Pending) == 0
	}
	if m, addrs := placement(""); !check(m, addrs) {
		t.Fatalf("pi's placement rejected: %v, pending %v", addrs, m.Committed().Pending)
	}
	if m, addrs := placement(MutantPlacementKeepsPending); check(m, addrs) {
		t.Fatalf("the mutant's placement passed: %v, pending %v", addrs, m.Committed().Pending)
	}
}

// runtime/drive/tools.ts performToolInvocation and publishToolOutcome: a
// call whose intent committed after its operation's abort began is refused
// by the effect gate (the aborted outcome); one admitted before keeps its
// result, but a cancelled batch never terminates durably.
func TestToolGateAndCancel(t *testing.T) {
	m := toolsModel(t, "", "", pi.StopToolUse, call("c1", "stop", "a"))
	expectStep(t, m, "tools")
	m.BeginAbort()
	must(t, m.ToolIntent("t1"))
	if err := m.ToolAdmitted(); err == nil {
		t.Fatal("a tool run was admitted after the abort began")
	}
	must(t, m.ToolOutcome("t1"))
	must(t, m.PlaceTools())
	if e := m.Committed().Entries[2].Message; !strings.Contains(e, ToolAbortedText) {
		t.Fatalf("refused call: %s", e)
	}

	m = toolsModel(t, "", "", pi.StopToolUse, call("c1", "stop", "a"))
	expectStep(t, m, "tools")
	must(t, m.ToolIntent("t1"))
	must(t, m.ToolAdmitted())
	m.BeginAbort()
	m.Cancel()
	m.TakeTX()
	must(t, m.ToolOutcome("t1"))
	if v := stateValue(t, m, nsOpState, "op"); !strings.Contains(v, `"resultEntryId":"t1","terminate":false}`) {
		t.Fatalf("a cancelled batch's call terminates: %s", v)
	}
	must(t, m.PlaceTools())
	if e := m.Committed().Entries[2].Message; !strings.Contains(e, `"text":"bye"`) {
		t.Fatalf("admitted call: %s", e)
	}
	if _, o, _ := m.current(); o.Continuation != NeedAssistant {
		t.Fatalf("checkpoint %+v", o)
	}
}

// runtime/drive/tool-placement.ts materializeReady: the results' message
// events follow the placement read and precede the commit, which adds
// entry_added (and turn_end for a complete batch); a read that finds
// nothing to place emits nothing.
func TestToolPlacementReadEvents(t *testing.T) {
	m := toolsModel(t, "", "", pi.StopToolUse, call("c1", "read", "a"))
	expectStep(t, m, "tools")
	from := len(m.Events())
	must(t, m.ToolPlacementRead())
	must(t, m.ToolIntent("t1"))
	must(t, m.ToolAdmitted())
	must(t, m.ToolOutcome("t1"))
	must(t, m.ToolPlacementRead())
	pinEvents(t, m, from, "tool_start", "tool_end", "message_start", "message_end")
	must(t, m.PlaceTools())
	pinEvents(t, m, from, "tool_start", "tool_end", "message_start", "message_end", "entry_added", "turn_end")
}

// runtime/drive/tools.ts runTools and tool-placement.ts materializeReady:
// a result staged before a restart is placed first, as a recovery; a
// replayed call the gate refuses is interrupted (performToolInvocation in
// recovery), not aborted.
func TestToolRestoredOutcomePlaced(t *testing.T) {
	m := toolsModel(t, "", "sequential", pi.StopToolUse, call("c1", "read", "a"), call("c2", "again", "b"))
	expectStep(t, m, "tools")
	must(t, m.ToolIntent("t1"))
	must(t, m.ToolAdmitted())
	must(t, m.ToolOutcome("t1"))
	m.Crash()
	from := len(m.Events())
	expectStep(t, m, "tools")
	must(t, m.ToolPlacementRead())
	must(t, m.PlaceTools())
	must(t, m.ToolIntent("t2"))
	m.Crash()
	expectStep(t, m, "tools")
	must(t, m.ToolReplayClear("t2"))
	m.BeginAbort()
	if err := m.ToolAdmitted(); err == nil {
		t.Fatal("a replay was admitted after the abort began")
	}
	must(t, m.ToolOutcome("t2"))
	must(t, m.PlaceTools())
	pinEvents(t, m, from, "turn_start(recovery)", "message_start(recovery)", "message_end(recovery)", "entry_added",
		"tool_start(recovery)", "turn_start(recovery)", "tool_start(recovery)", "tool_end(recovery)",
		"message_start(recovery)", "message_end(recovery)", "entry_added", "turn_end(recovery)")
	if e := m.Committed().Entries[3].Message; !strings.Contains(e, ToolInterruptedText) {
		t.Fatalf("refused replay: %s", e)
	}
}

// execution/tools.ts prepareToolCall finds the first configured tool of a
// name; runtime/drive/tools.ts recoverToolInvocation reads toolsByName, a
// Map in which a later duplicate wins.
func TestDuplicateToolNamesFirstPreparedLastRecovered(t *testing.T) {
	m := New(Config{Lane: "main", Tools: []ToolSpec{{Name: "x", Replay: "never"}, {Name: "x", Replay: "safe"}}})
	info := &opInfo{run: Run{ActiveToolNames: []string{"x"}}}
	if tool, ok := m.activeTool(info, "x", false); !ok || tool.Replay != "never" {
		t.Fatalf("planned call: %+v %v, want the first tool", tool, ok)
	}
	if tool, ok := m.activeTool(info, "x", true); !ok || tool.Replay != "safe" {
		t.Fatalf("restored call: %+v %v, want the last tool", tool, ok)
	}
}

// runtime/drive/tools.ts runParallel (pi's default toolExecution): the
// second call's intent commits while the first runs, outcomes commit in
// completion order, a placement places what its read found (the first
// call's result that committed after the read waits for the next one),
// and a cancel that came after the batch started leaves an unavailable
// call unavailable (its outcome was prepared without looking at control)
// while a later available call's intent finds the cancel: aborted.
func TestToolBatchParallel(t *testing.T) {
	m := toolsModel(t, "", "", pi.StopToolUse, call("c1", "read", "a"), call("c2", "read", "b"),
		call("c3", "grep", "c"), call("c4", "read", "d"))
	expectStep(t, m, "tools")
	must(t, m.ToolPlacementRead())
	must(t, m.ToolIntent("t1"))
	must(t, m.ToolAdmitted())
	must(t, m.ToolIntent("t2"))
	must(t, m.ToolAdmitted())
	must(t, m.ToolOutcome("t2"))
	must(t, m.ToolPlacementRead()) // t1 not ready: nothing to place
	m.Cancel()
	must(t, m.ToolOutcome("t3"))
	if err := m.ToolIntent("t4"); err == nil {
		t.Fatal("an intent committed after the cancel")
	}
	must(t, m.ToolOutcome("t4"))
	must(t, m.ToolPlacementRead()) // still nothing: t1 runs
	must(t, m.ToolOutcome("t1"))
	must(t, m.ToolPlacementRead()) // t1..t4 are ready
	must(t, m.PlaceTools())
	entries := m.Committed().Entries
	last := entries[len(entries)-4:]
	for i, want := range []string{`"text":"read a"`, `"text":"read b"`, `Tool \"grep\" is unavailable`, ToolAbortedText} {
		if !strings.Contains(last[i].Message, want) {
			t.Fatalf("result %d: %s, want %s", i+1, last[i].Message, want)
		}
	}
	_, err := m.StepDone(true)
	must(t, err)

	// a read that saw t1 ready places t1 only, though t2 committed after it
	m = toolsModel(t, "", "", pi.StopToolUse, call("c1", "read", "a"), call("c2", "read", "b"))
	expectStep(t, m, "tools")
	must(t, m.ToolPlacementRead())
	must(t, m.ToolIntent("t1"))
	must(t, m.ToolAdmitted())
	must(t, m.ToolIntent("t2"))
	must(t, m.ToolAdmitted())
	must(t, m.ToolOutcome("t1"))
	must(t, m.ToolPlacementRead())
	must(t, m.ToolOutcome("t2"))
	must(t, m.PlaceTools())
	if n := len(m.Committed().Pending); n != 1 {
		t.Fatalf("pending after the first placement: %v, want t2's", m.Committed().Pending)
	}

	// settings.toolExecution "sequential": the second intent waits
	m = toolsModel(t, "", "sequential", pi.StopToolUse, call("c1", "read", "a"), call("c2", "read", "b"))
	expectStep(t, m, "tools")
	must(t, m.ToolIntent("t1"))
	must(t, m.ToolAdmitted())
	if err := m.ToolIntent("t2"); err == nil {
		t.Fatal("a sequential batch started its second call before placing the first")
	}
}
