package lane

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/frameproof/frameproof/impl/pi"
)

// Tool batches (pi's runtime/drive/tools.ts runTools and
// runtime/drive/tool-placement.ts materializeReady). A response that settles
// with tool calls leaves the operation at `tools` with one planned call per
// tool-call block. A tools step then moves each call, one transaction at a
// time, through
//
//	planned → effect_pending (ToolIntent: the arguments are stored)
//	        → outcome_ready (ToolOutcome: the result message is staged as a
//	          pending entry)
//	        → completed     (PlaceTools: the staged results become entries)
//
// A call whose outcome needs no execution (a truncated response, a tool that
// is not available, a cancelled batch) skips effect_pending. When every call
// is placed the operation moves to a checkpoint: need_assistant, so the next
// generation sees the results, or may_finish when every call terminates.
// A restart finds effect_pending calls without their live execution: a tool
// that may be replayed ("safe") clears its stale progress and runs again
// (ToolReplayClear), any other gets the interrupted outcome.

// ToolSpec is one configured tool: its name, its replay mode ("never",
// pi's default when empty, or "safe") and a pure, deterministic execution.
type ToolSpec struct {
	Name, Replay string
	Run          func(args pi.JSONValue) ToolRun
}

// ToolRun is what a tool's execution returns: the result's content blocks
// (text and image), its details (Undefined: none), whether it is an error
// and whether it asks to terminate the run.
type ToolRun struct {
	Content   []pi.Content
	Details   pi.JSONValue
	IsError   bool
	Terminate bool
}

// Tool call statuses (session/types.ts ToolCall).
const (
	callPlanned       = "planned"
	callEffectPending = "effect_pending"
	callOutcomeReady  = "outcome_ready"
	callCompleted     = "completed"
)

// Namespaces of the tool batch's stored values (session/values.ts).
const (
	nsToolArgs   = "pi.op.tool_args"
	nsToolOutput = "pi.pending.tool_output"
)

// The exact texts of pi's synthetic tool outcomes (runtime/drive/tools.ts).
const (
	ToolAbortedText     = "Tool execution was cancelled before completion."
	ToolInterruptedText = "[Tool execution was interrupted. The preceding output is the latest durable progress snapshot; newer live output may be missing, and the external outcome is unknown.]"
)

// toolUnavailableText is prepareToolCall's error (execution/tools.ts).
func toolUnavailableText(name string) string {
	return "Tool " + jsonString(name) + " is unavailable"
}

// toolTruncatedText is truncatedOutcome's text (runtime/drive/tools.ts).
func toolTruncatedText(name string) string {
	return "Tool call " + jsonString(name) + " was not executed because the assistant response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments."
}

// toolBatch is what a tools leaf names beyond the model's Op: the turn its
// calls belong to, the result entry ids the lane minted for them, each
// call's durable status and the settled response the calls come from.
type toolBatch struct {
	turn      string
	ids       []string
	calls     []toolCall
	assistant *pi.AssistantMessage
	// args lists the stored pi.op.tool_args keys of the batch
	args []string
}

// toolCall is one call's durable status and what its status object and
// staged result carry.
type toolCall struct {
	status    string
	replay    string // effect_pending
	terminate bool   // outcome_ready, completed
	message   string // outcome_ready: the staged tool result message
}

// planBatch starts the batch of a response settling into tools: every call
// planned, the response kept as the calls' source.
func (info *opInfo) planBatch(o Op, resp *pi.AssistantMessage) {
	info.tools.calls = make([]toolCall, len(o.ToolCalls))
	for i := range info.tools.calls {
		info.tools.calls[i] = toolCall{status: callPlanned}
	}
	info.tools.assistant = resp.Clone()
	info.tools.args = nil
}

// toolStepRecovery is runTools' recovery flag: some call is already past
// planned and not yet placed.
func (b toolBatch) recovery() bool {
	for _, c := range b.calls {
		if c.status == callEffectPending || c.status == callOutcomeReady {
			return true
		}
	}
	return false
}

// batchCall is the current tools operation's call whose result entry id is
// id, checked against the step in progress.
func (m *Model) batchCall(what, id string) (op string, o Op, info *opInfo, i int, err error) {
	if m.plan == nil || m.plan.Kind != "tools" {
		return "", Op{}, nil, 0, fmt.Errorf("model/lane: %s %s: no tools step is in progress", what, id)
	}
	op, o, ok := m.current()
	if !ok || o.At != AtTools {
		return "", Op{}, nil, 0, fmt.Errorf("model/lane: %s %s: the current operation %q is not at tools", what, id, op)
	}
	info = m.ops[op]
	for i, got := range info.tools.ids {
		if got == id && i < len(info.tools.calls) && i < len(o.ToolCalls) {
			return op, o, info, i, nil
		}
	}
	return "", Op{}, nil, 0, fmt.Errorf("model/lane: %s %s: no call of the batch has that result entry id", what, id)
}

// inTurn checks that call i of a batch may start now: pi starts calls in
// call order (runParallel publishes each intent before preparing the next
// call), and runSequential starts a call only after every earlier one is
// placed.
func (m *Model) inTurn(info *opInfo, i int) error {
	sequential := m.toolPath != "parallel"
	for j, c := range info.tools.calls[:i] {
		if c.status == callPlanned || (sequential && c.status != callCompleted) {
			return fmt.Errorf("model/lane: tool call %s starts before call %s (%s)", info.tools.ids[i], info.tools.ids[j], c.status)
		}
	}
	return nil
}

// decideToolPath fixes, at the step's first call transaction, the order
// runTools chose: runSequential (without execution) when the cancel was
// requested as its read saw it, runSequential for the option or
// settings.toolExecution "sequential", runParallel otherwise (pi's default).
func (m *Model) decideToolPath(info *opInfo) {
	if m.toolPath != "" {
		return
	}
	m.toolPath = "parallel"
	if m.toolCancelSeen || m.cfg.SequentialTools || info.run.Settings.Prop("toolExecution").Str() == "sequential" {
		m.toolPath = "sequential"
	}
}

// seeToolControl notes the cancel request as a placement read or commit
// of the step saw it, until the step's first call transaction.
func (m *Model) seeToolControl(o Op) {
	if m.toolPath == "" {
		m.toolCancelSeen = o.CancelRequested
	}
}

// toolSource is the tool-call block call i names in the settled response.
func (info *opInfo) toolSource(o Op, i int) (pi.ToolCall, error) {
	a := info.tools.assistant
	if a == nil || o.ToolCalls[i] >= len(a.Content) {
		return pi.ToolCall{}, fmt.Errorf("model/lane: tool call source index %d is invalid", o.ToolCalls[i])
	}
	tc, ok := a.Content[o.ToolCalls[i]].(pi.ToolCall)
	if !ok {
		return pi.ToolCall{}, fmt.Errorf("model/lane: tool call source index %d does not name a tool-call block", o.ToolCalls[i])
	}
	return tc, nil
}

// activeTool is the configured tool the batch may run under name, among the
// batch's active tool names (runTools filters config.tools by
// configuration.activeToolNames): for a planned call the first of
// Config.Tools with that name (prepareToolCall's find), for a restored one
// the last (recoverToolInvocation's toolsByName, a Map built in order).
func (m *Model) activeTool(info *opInfo, name string, restored bool) (ToolSpec, bool) {
	active := false
	for _, n := range info.run.ActiveToolNames {
		active = active || n == name
	}
	if !active {
		return ToolSpec{}, false
	}
	var found ToolSpec
	ok := false
	for _, t := range m.cfg.Tools {
		if t.Name == name && !(ok && !restored) {
			found, ok = t, true
		}
	}
	return found, ok
}

func replayOf(t ToolSpec) string {
	if t.Replay == "" {
		return "never"
	}
	return t.Replay
}

func (m *Model) toolArgsKey(op string, info *opInfo, o Op, i int) string {
	return op + ":" + info.tools.turn + ":" + strconv.Itoa(o.ToolCalls[i])
}

// ToolIntent: publishToolIntent's transaction committed for the call whose
// result entry id is id: its arguments stored under
// pi.op.tool_args "<op>:<turn>:<sourceIndex>", then the op state with the
// call effect_pending. Only a planned call of a running batch whose response
// was not truncated and whose tool is available takes an intent; it emits
// tool_start.
func (m *Model) ToolIntent(id string) error {
	defer m.fillStateValues()
	op, o, info, i, err := m.batchCall("tool intent", id)
	if err != nil {
		return err
	}
	m.decideToolPath(info)
	c := info.tools.calls[i]
	if c.status != callPlanned {
		return fmt.Errorf("model/lane: tool intent %s: the call is %s, not planned", id, c.status)
	}
	if err := m.inTurn(info, i); err != nil {
		return err
	}
	tc, err := info.toolSource(o, i)
	if err != nil {
		return err
	}
	tool, ok := m.activeTool(info, tc.Name, false)
	switch {
	case o.CancelRequested:
		return fmt.Errorf("model/lane: tool intent %s after the operation's cancel request (pi publishes the aborted outcome)", id)
	case info.tools.assistant.StopReason == pi.StopLength:
		return fmt.Errorf("model/lane: tool intent %s for a truncated response (pi publishes the truncated outcome)", id)
	case !ok:
		return fmt.Errorf("model/lane: tool intent %s for %q, which is not an active configured tool", id, tc.Name)
	}
	key := m.toolArgsKey(op, info, o, i)
	args := ""
	if !tc.Arguments.IsUndefined() {
		args = string(tc.Arguments.AppendJSON(nil))
	}
	m.expectTX(setValue(nsToolArgs, key, args), setValue(nsOpState, op, ""))
	info.tools.calls[i] = toolCall{status: callEffectPending, replay: replayOf(tool)}
	info.tools.args = append(info.tools.args, key)
	m.toolLive[id], m.toolAwait = true, id
	m.emit("tool_start", m.toolRecovery)
	return nil
}

// ToolAdmitted: the effect gate admitted the run of the tools step's live
// call (its intent or replay committed last): the tool runs. pi's
// executeToolCall admits it through drive.gate.admit after the intent's
// command returned; a call whose outcome comes without an admission was
// refused. Admission after the operation's abort began is an error (the
// gate must refuse it).
func (m *Model) ToolAdmitted() error {
	id := m.toolAwait
	if m.plan == nil || m.plan.Kind != "tools" || id == "" {
		return fmt.Errorf("model/lane: a tool run was admitted without a committed intent or replay in a tools step")
	}
	if op, _, _ := m.current(); m.aborting != "" && m.aborting == op {
		return fmt.Errorf("model/lane: tool run %s admitted after the cancel of %s began (the effect gate must refuse it)", id, op)
	}
	m.toolAdmitted[id], m.toolAwait = true, ""
	return nil
}

// ToolReplayClear: clearReplayCheckpoint's transaction committed for a
// restored effect_pending call that may be replayed (the call and its tool
// are "safe", the batch is not cancelled): the stale progress checkpoint
// deleted, nothing else. It emits tool_start(recovery); the call then runs
// again.
func (m *Model) ToolReplayClear(id string) error {
	defer m.fillStateValues()
	op, o, info, i, err := m.batchCall("tool replay clear", id)
	if err != nil {
		return err
	}
	m.decideToolPath(info)
	c := info.tools.calls[i]
	tc, err := info.toolSource(o, i)
	if err != nil {
		return err
	}
	tool, ok := m.activeTool(info, tc.Name, true)
	switch {
	case c.status != callEffectPending || m.toolLive[id]:
		return fmt.Errorf("model/lane: tool replay clear %s: the call is not a restored effect_pending call", id)
	case o.CancelRequested || c.replay != "safe" || !ok || replayOf(tool) != "safe":
		return fmt.Errorf("model/lane: tool replay clear %s: the call may not be replayed (pi publishes the interrupted outcome)", id)
	}
	m.expectTX(deleteValue(nsToolOutput, op+":"+id))
	m.toolLive[id], m.toolAwait = true, id
	m.emit("tool_start", true)
	return nil
}

// ToolOutcome: publishToolOutcome's transaction committed for the call
// whose result entry id is id: the tool result message staged as the
// pending entry {type:"message", payload}, the call's progress checkpoint
// deleted, then the op state with the call outcome_ready. The model builds
// the message itself (toolOutcome). It emits tool_start when the call was
// still planned, then tool_end.
func (m *Model) ToolOutcome(id string) error {
	defer m.fillStateValues()
	op, o, info, i, err := m.batchCall("tool outcome", id)
	if err != nil {
		return err
	}
	m.decideToolPath(info)
	c := info.tools.calls[i]
	if c.status != callPlanned && c.status != callEffectPending {
		return fmt.Errorf("model/lane: tool outcome %s: the call is %s already", id, c.status)
	}
	if c.status == callPlanned {
		if err := m.inTurn(info, i); err != nil {
			return err
		}
	}
	tc, err := info.toolSource(o, i)
	if err != nil {
		return err
	}
	msg, terminate, err := m.toolOutcome(info, o, i, id, tc)
	if err != nil {
		return err
	}
	// response.ts' durable terminate: only a running batch may terminate
	terminate = terminate && !o.CancelRequested
	staged := messageJSON(msg)
	m.expectTX(setValue(nsPendingEntry, id, string(object("type", pi.StringValue("message"), "payload", mustParse(staged)).AppendJSON(nil))),
		deleteValue(nsToolOutput, op+":"+id), setValue(nsOpState, op, ""))
	info.tools.calls[i] = toolCall{status: callOutcomeReady, terminate: terminate, message: staged}
	m.st.Pending = append(m.st.Pending, id)
	sort.Strings(m.st.Pending)
	m.queued = append(m.queued, id)
	if c.status == callPlanned {
		m.emit("tool_start", m.toolRecovery)
	}
	m.emit("tool_end", m.toolRecovery)
	return nil
}

// toolOutcome is the outcome pi publishes for call i:
//   - planned: aborted when runSequential finds the batch cancelled;
//     truncated when the response stopped at its length; unavailable when
//     the tool is not active and configured (prepareToolCall); aborted when
//     runParallel's intent found cancel_requested; any other planned call
//     must take its intent first;
//   - effect_pending, started in this process: the tool's run when the
//     effect gate admitted it (ToolAdmitted), else aborted (interrupted
//     when the step recovers: performToolInvocation);
//   - effect_pending, restored: interrupted (no progress checkpoint is ever
//     stored: the configured tools report none), unless it may be replayed,
//     which clears its checkpoint first (ToolReplayClear).
func (m *Model) toolOutcome(info *opInfo, o Op, i int, id string, tc pi.ToolCall) (*pi.ToolResultMessage, bool, error) {
	c := info.tools.calls[i]
	tool, available := m.activeTool(info, tc.Name, c.status != callPlanned)
	if c.status == callPlanned {
		switch {
		case o.CancelRequested && m.toolPath == "sequential":
			return m.syntheticToolResult(tc, ToolAbortedText), false, nil
		case info.tools.assistant.StopReason == pi.StopLength:
			return m.syntheticToolResult(tc, toolTruncatedText(tc.Name)), false, nil
		case !available:
			return m.syntheticToolResult(tc, toolUnavailableText(tc.Name)), false, nil
		case o.CancelRequested: // runParallel: the intent found the cancel
			return m.syntheticToolResult(tc, ToolAbortedText), false, nil
		}
		return nil, false, fmt.Errorf("model/lane: tool outcome %s for a planned call of an available tool (its intent comes first)", id)
	}
	if !m.toolLive[id] {
		if !o.CancelRequested && c.replay == "safe" && available && replayOf(tool) == "safe" {
			return nil, false, fmt.Errorf("model/lane: tool outcome %s: a replayable call must clear its checkpoint and run again", id)
		}
		return m.syntheticToolResult(tc, ToolInterruptedText), false, nil
	}
	if !m.toolAdmitted[id] {
		if m.toolRecovery {
			return m.syntheticToolResult(tc, ToolInterruptedText), false, nil
		}
		return m.syntheticToolResult(tc, ToolAbortedText), false, nil
	}
	if !available || tool.Run == nil {
		return nil, false, fmt.Errorf("model/lane: tool outcome %s: tool %q has no execution", id, tc.Name)
	}
	run := tool.Run(tc.Arguments)
	content := run.Content
	if content == nil {
		content = []pi.Content{}
	}
	// execution/tools.ts createToolResultMessage
	return &pi.ToolResultMessage{ToolCallID: tc.ID, ToolName: tc.Name, Content: content, Details: run.Details,
		IsError: run.IsError, Timestamp: m.now()}, run.Terminate, nil
}

// syntheticToolResult is tools.ts syntheticMessage with one text block: an
// error result without details or usage.
func (m *Model) syntheticToolResult(tc pi.ToolCall, text string) *pi.ToolResultMessage {
	return &pi.ToolResultMessage{ToolCallID: tc.ID, ToolName: tc.Name, Content: []pi.Content{pi.TextContent{Text: text}},
		IsError: true, Timestamp: m.now()}
}

func mustParse(s string) pi.JSONValue {
	v, err := pi.ParseJSON(s)
	if err != nil {
		return pi.StringValue("<unparsable: " + err.Error() + ">")
	}
	return v
}

// leadingReady is the range [first, end) of the batch's leading
// outcome_ready calls after its placed ones (readPlacement).
func (b toolBatch) leadingReady() (first, end int) {
	for first < len(b.calls) && b.calls[first].status == callCompleted {
		first++
	}
	end = first
	for end < len(b.calls) && b.calls[end].status == callOutcomeReady {
		end++
	}
	return first, end
}

// ToolPlacementRead: materializeReady's read (readPlacement) returned.
// When it found leading outcome_ready calls, pi emits each one's
// message_start and message_end before committing their placement; a
// driver that sees the read calls this so the events are due before the
// commit (PlaceTools emits them itself when no read announced them).
func (m *Model) ToolPlacementRead() error {
	if m.plan == nil || m.plan.Kind != "tools" {
		return fmt.Errorf("model/lane: tool placement read: no tools step is in progress")
	}
	op, o, ok := m.current()
	if ok && o.At == AtTools {
		m.seeToolControl(o)
	}
	if !ok || o.At != AtTools || m.placementRead > 0 {
		return nil // nothing to place, or announced already
	}
	first, end := m.ops[op].tools.leadingReady()
	for i := first; i < end; i++ {
		m.emit("message_start", m.toolRecovery)
		m.emit("message_end", m.toolRecovery)
	}
	m.placementRead = end - first
	return nil
}

// PlaceTools: commitPlacement's transaction committed: the leading
// outcome_ready calls (after the placed ones), in call order, each as its
// entry (parented on the previous one) and the delete of its pending entry;
// the branch tip; and, when that completes the batch, the deletes of the
// batch's stored arguments, then the op state: the batch with those calls
// completed, or the checkpoint triggered by the last result (need_assistant,
// or may_finish when every call terminates). materializeReady emits each
// result's message_start and message_end first, then the commit's
// entry_added events, and turn_end after a complete batch.
func (m *Model) PlaceTools() error {
	defer m.fillStateValues()
	if m.plan == nil || m.plan.Kind != "tools" {
		return fmt.Errorf("model/lane: tool placement: no tools step is in progress")
	}
	op, o, ok := m.current()
	if !ok || o.At != AtTools {
		return fmt.Errorf("model/lane: tool placement: the current operation %q is not at tools", op)
	}
	m.seeToolControl(o)
	info := m.ops[op]
	calls := info.tools.calls
	first, end := info.tools.leadingReady()
	if end == first {
		return fmt.Errorf("model/lane: tool placement with no leading outcome_ready call")
	}
	if m.placementRead > 0 && first+m.placementRead < end {
		// runParallel: outcomes that committed after the read wait for the
		// next materialization (commitPlacement places what the read found)
		end = first + m.placementRead
	}
	var ws []TXWrite
	parent := m.st.Tip
	for i := first; i < end; i++ {
		id := info.tools.ids[i]
		ws = append(ws, TXWrite{Kind: "entry", Key: id, Parent: parent})
		if m.cfg.Mutant != MutantPlacementKeepsPending {
			ws = append(ws, deleteValue(nsPendingEntry, id))
		}
		if m.placementRead == 0 {
			m.emit("message_start", m.toolRecovery)
			m.emit("message_end", m.toolRecovery)
		}
		e := Entry{ID: id, Parent: parent, Message: calls[i].message}
		if calls[i].terminate {
			e.Terminate = "true" // tool-placement.ts commitPlacement: ...(terminate ? {terminate: true} : {})
		}
		m.st.Entries = append(m.st.Entries, e)
		if m.cfg.Mutant != MutantPlacementKeepsPending {
			m.unpend(id)
		}
		calls[i] = toolCall{status: callCompleted, terminate: calls[i].terminate}
		parent = id
	}
	ws = append(ws, setValue(nsBranchTip, m.cfg.Lane, jsonString(parent)))
	m.st.Tip = parent
	complete := end == len(calls)
	if complete {
		ws = append(ws, info.toolArgDeletes()...)
		info.tools.args = nil
	}
	m.expectTX(append(ws, setValue(nsOpState, op, ""))...)
	m.placementRead = 0
	for i := first; i < end; i++ {
		m.emit("entry_added", false)
	}
	if !complete {
		return nil
	}
	allTerminate := true
	for _, c := range calls {
		allTerminate = allTerminate && c.terminate
	}
	next := Op{At: AtCheckpoint, Continuation: NeedAssistant, CancelRequested: o.CancelRequested, RequestedAt: o.RequestedAt,
		LatestAssistantEntryID: o.LatestAssistantEntryID}
	if allTerminate {
		next.Continuation = MayFinish
	}
	m.st.Ops[op] = next
	info.genTrigger, info.afterTools = parent, true
	m.toolsPlaced = true
	m.emit("turn_end", m.toolRecovery)
	return nil
}

// unpend drops id from the stored pending entries.
func (m *Model) unpend(id string) {
	var kept []string
	for _, p := range m.st.Pending {
		if p != id {
			kept = append(kept, p)
		}
	}
	m.st.Pending = kept
}

// toolsDone is a tools step's outcome: pi's runTools returns "continue"
// once the batch reached its checkpoint; a batch whose operation an
// external finalization took first reports a stale progress (its next
// transaction found no operation to settle).
func (m *Model) toolsDone(id string, o Op) (Outcome, error) {
	switch {
	case m.toolsPlaced:
		return Outcome{Kind: "progress"}, nil
	case id != m.dispatched.op:
		return Outcome{Kind: "progress", Reason: "stale"}, nil
	}
	return Outcome{}, fmt.Errorf("model/lane: tools step returned with the batch of %s still open (at %s)", id, o.At)
}

// toolArgDeletes are operationCleanupWrites' deletes of the stored
// arguments of an operation ended at tools (runtime/drive/terminal.ts), in
// key order (a prefix scan).
func (info *opInfo) toolArgDeletes() []TXWrite {
	args := append([]string(nil), info.tools.args...)
	sort.Strings(args)
	var ws []TXWrite
	for _, k := range args {
		ws = append(ws, deleteValue(nsToolArgs, k))
	}
	return ws
}

// stagedIDs are the result ids of the batch's outcome_ready calls, in call
// order.
func (info *opInfo) stagedIDs() []string {
	var ids []string
	for i, c := range info.tools.calls {
		if c.status == callOutcomeReady && i < len(info.tools.ids) {
			ids = append(ids, info.tools.ids[i])
		}
	}
	return ids
}
