package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// Tool is one configured tool (pi's AgentHarnessTool without argument
// schema, hooks, progress or memos). Run must be deterministic: a "safe"
// replay runs it again after a restart.
type Tool struct {
	Name   string
	Replay string // "never" (also ""), or "safe"
	Run    func(args pi.JSONValue) ToolOutput
}

// ToolOutput is one run's finalized output: the result's content, details
// (Undefined: none) and terminate, and the message's isError.
type ToolOutput struct {
	Content   []pi.Content
	Details   pi.JSONValue
	IsError   bool
	Terminate bool
}

// Exact texts of runtime/drive/tools.ts.
const (
	InterruptionMarker = "[Tool execution was interrupted. The preceding output is the latest durable progress snapshot; newer live output may be missing, and the external outcome is unknown.]"
	toolCancelledText  = "Tool execution was cancelled before completion."
)

// checkTools refuses a tool list Open cannot run: a tool without a name
// or Run, or a replay mode pi does not have.
func checkTools(ts []Tool) error {
	for i, t := range ts {
		switch {
		case t.Name == "":
			return fmt.Errorf("tool %d has no name", i)
		case t.Run == nil:
			return fmt.Errorf("tool %q has no Run", t.Name)
		case t.Replay != "" && t.Replay != "never" && t.Replay != "safe":
			return fmt.Errorf("tool %q: replay %q is neither \"never\" nor \"safe\"", t.Name, t.Replay)
		}
	}
	return nil
}

func (t Tool) replay() string {
	if t.Replay == "" {
		return "never"
	}
	return t.Replay
}

// ToolArgsAddr is operationToolArgs(op, turnId, sourceIndex).
func ToolArgsAddr(op, turnID string, sourceIndex int) store.Address {
	return valueAddr(NSToolArgs, op+":"+turnID+":"+itoa(sourceIndex))
}

// PendingToolOutputAddr is pendingToolOutput(op, resultEntryId).
func PendingToolOutputAddr(op, resultEntryID string) store.Address {
	return valueAddr(NSPendingOutput, op+":"+resultEntryID)
}

// PendingEntryAddr is pendingEntry(entryId).
func PendingEntryAddr(id string) store.Address { return valueAddr(NSPendingEntry, id) }

// toolOutcome is tools.ts's ToolOutcome.
type toolOutcome struct {
	call      pi.ToolCall
	message   *pi.ToolResultMessage
	terminate bool
}

// toolSet is runTools' execution context: the configured tools filtered by
// the batch's active names (list for prepareToolCall's find, byName for
// recovery's Map, where a later duplicate wins).
type toolSet struct {
	list   []Tool
	byName map[string]Tool
}

func activeTools(all []Tool, cfg *Configuration) *toolSet {
	active := map[string]bool{}
	if cfg != nil {
		for _, n := range cfg.ActiveToolNames {
			active[n] = true
		}
	}
	ts := &toolSet{byName: map[string]Tool{}}
	for _, t := range all {
		if active[t.Name] {
			ts.list = append(ts.list, t)
			ts.byName[t.Name] = t
		}
	}
	return ts
}

// find is prepareToolCall's tools.find: the first tool with the name.
func (ts *toolSet) find(name string) (Tool, bool) {
	for _, t := range ts.list {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// resultMessage is createToolResultMessage / syntheticMessage: content (never
// null), details and usage when defined, isError, timestamp Date.now().
func (l *Lane) resultMessage(tc pi.ToolCall, content []pi.Content, details pi.JSONValue, usage *pi.Usage, isError bool) *pi.ToolResultMessage {
	if content == nil {
		content = []pi.Content{}
	}
	return &pi.ToolResultMessage{ToolCallID: tc.ID, ToolName: tc.Name, Content: content, Details: details,
		Usage: usage, IsError: isError, Timestamp: l.now()}
}

func (l *Lane) abortedOutcome(tc pi.ToolCall) toolOutcome {
	return toolOutcome{call: tc, message: l.resultMessage(tc, []pi.Content{pi.TextContent{Text: toolCancelledText}}, pi.JSONValue{}, nil, true)}
}

// interruptedOutcome appends the marker to the stored checkpoint's content
// (nil: none) and keeps its details and usage.
func (l *Lane) interruptedOutcome(tc pi.ToolCall, checkpoint *pi.ToolResultMessage) toolOutcome {
	var content []pi.Content
	var details pi.JSONValue
	var usage *pi.Usage
	if checkpoint != nil {
		content, details, usage = append(content, checkpoint.Content...), checkpoint.Details, checkpoint.Usage
	}
	content = append(content, pi.TextContent{Text: InterruptionMarker})
	return toolOutcome{call: tc, message: l.resultMessage(tc, content, details, usage, true)}
}

func (l *Lane) truncatedOutcome(tc pi.ToolCall) toolOutcome {
	text := "Tool call " + jsString(tc.Name) + " was not executed because the assistant response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments."
	return toolOutcome{call: tc, message: l.resultMessage(tc, []pi.Content{pi.TextContent{Text: text}}, pi.JSONValue{}, nil, true)}
}

// unavailableOutcome is prepareToolCall's immediate error for a tool that
// is not configured and active.
func (l *Lane) unavailableOutcome(tc pi.ToolCall) toolOutcome {
	text := "Tool " + jsString(tc.Name) + " is unavailable"
	return toolOutcome{call: tc, message: l.resultMessage(tc, []pi.Content{pi.TextContent{Text: text}}, pi.JSONValue{}, nil, true)}
}

// jsString is JSON.stringify of a string.
func jsString(s string) string { return string(pi.AppendQuote(nil, s)) }

// execute is executeToolCall's body after admission. A tool that fails
// returns IsError with its message as content (pi's execute throws and
// executeToolCall turns that into the same error result); a panic is not
// recovered here: it is the caller's (a simulator unwinds a killed process
// that way).
func (l *Lane) execute(t Tool, tc pi.ToolCall, args pi.JSONValue) toolOutcome {
	o := t.Run(args)
	return toolOutcome{call: tc, message: l.resultMessage(tc, o.Content, o.Details, nil, o.IsError), terminate: o.Terminate}
}

// perform is performToolInvocation: admission through the drive's effect
// gate (a cancel that began first: await it, then aborted, or interrupted
// in recovery), then the run.
func (l *Lane) perform(op string, t Tool, tc pi.ToolCall, args pi.JSONValue, recovery bool) (toolOutcome, error) {
	_, aborting := l.admit(op)
	return l.performAdmitted(aborting, t, tc, args, recovery)
}

// performAdmitted is perform after the gate's answer: aborting (non-nil)
// is the cancellation that refused the run.
func (l *Lane) performAdmitted(aborting env.Future, t Tool, tc pi.ToolCall, args pi.JSONValue, recovery bool) (toolOutcome, error) {
	if aborting != nil {
		if err := aborting.Wait(); err != nil {
			return toolOutcome{}, err
		}
		if recovery {
			return l.interruptedOutcome(tc, nil), nil
		}
		return l.abortedOutcome(tc), nil
	}
	return l.execute(t, tc, args), nil
}

// toolResultValue is toolResultFromMessage: {content, details, usage?,
// terminate?} (details is written even when undefined; JSON drops it).
func toolResultValue(m *pi.ToolResultMessage, terminate bool) (pi.JSONValue, error) {
	content, err := pi.ParseJSON(string(m.AppendJSON(nil)))
	if err != nil {
		return pi.JSONValue{}, fmt.Errorf("lane: tool result of %s: %w", m.ToolCallID, err)
	}
	var term any
	if terminate {
		term = true
	}
	return jobj("content", content.Prop("content"), "details", m.Details, "usage", content.Prop("usage"), "terminate", term), nil
}

// toolInvariant is pi's SessionInvariantError in a tool batch (its exact
// message); it faults the lane.
func toolInvariant(format string, args ...any) error {
	return &invariantError{fmt.Sprintf(format, args...)}
}
