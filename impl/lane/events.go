package lane

import (
	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
)

// EventType names the lane events this package emits.
type EventType string

// Emitted events. The assistant lifecycle order is message_start →
// message_update* → message_end → entry_added → usage (seed §Events).
const (
	// run_start opens a run (runtime/lane.ts acceptRun's event batch); its
	// payload is the run id, startedAt and the lane.
	EvRunStart      EventType = "run_start"
	EvTurnStart     EventType = "turn_start"
	EvMessageStart  EventType = "message_start"
	EvMessageUpdate EventType = "message_update"
	EvMessageEnd    EventType = "message_end"
	EvEntryAdded    EventType = "entry_added"
	EvUsage         EventType = "usage"
	EvRunEnd        EventType = "run_end"
	// pi's retry, turn and suspension events (runtime/drive/response.ts,
	// generation.ts, deferred.ts)
	EvRetryStart      EventType = "retry_start"
	EvRetryScheduled  EventType = "retry_scheduled"
	EvRetryEnd        EventType = "retry_end"
	EvTurnEnd         EventType = "turn_end"
	EvRunSuspend      EventType = "run_suspend"
	EvRunResume       EventType = "run_resume"
	EvCompactionStart EventType = "compaction_start"
	// a tool batch's per-call events (runtime/drive/tools.ts)
	EvToolStart EventType = "tool_start"
	EvToolEnd   EventType = "tool_end"
	// queue_update carries the lane's queued items after an enqueue, a
	// cancel that removed queued steering, or a placement that took items
	// from the inbox (runtime/lane.ts enqueue, boundary.ts
	// boundaryPlacementEvents, acceptRun).
	EvQueueUpdate EventType = "queue_update"
	// operation_abort opens a cancel request's batch (runtime/lane.ts
	// requestOperationAbort): the operation and the queued steer and
	// followUp messages the request removed.
	EvOperationAbort EventType = "operation_abort"
	// lane_created follows the transaction that acquires the lane
	// (runtime/harness.ts Harness.lane); config_update follows each
	// pi.lane.config change (runtime/lane.ts setConfiguration, through the
	// lane's own event batch). Both precede the run_start of the run that
	// brought the configuration: pi commits them before acceptRun.
	EvLaneCreated  EventType = "lane_created"
	EvConfigUpdate EventType = "config_update"
)

// Event is one lane event.
type Event struct {
	Type     EventType
	Lane     string
	RunID    string
	Recovery bool
	// Synthetic marks the lifecycle of a harness-built response (orphan
	// recovery or cancellation reconciliation): message_start, message_end,
	// entry_added and usage of a response no provider stream produced.
	// Recovery alone does not say this: a live poll that replaces an
	// orphaned deferred poll is recovery-tagged but streams for real.
	Synthetic bool
	// Message is the partial (start/update) or final message (end).
	Message *pi.AssistantMessage
	// Raw is the message instead of Message when the typed vocabulary
	// cannot hold the one pi carries: a recovery settling a reduction of
	// stored frames that no typed message holds (a text_end without
	// content, a start partial that is not an object) emits message_start,
	// message_end, entry_added and turn_end with Message nil and Raw the
	// message pi emits and commits (runtime/drive/recovery.ts
	// interruptedAssistantMessage).
	Raw pi.JSONValue
	// Source is the provider event of a message_update; Frame the frame it
	// produced, if any.
	Source *pi.Event
	Frame  *pi.Frame
	// EntryID: message_end, entry_added. Seq: entry_added, usage.
	EntryID string
	Seq     int64
	UsageID string
	Usage   *pi.Usage
	// Status: run_end ("completed" | "failed" | "aborted" | external).
	Status string
	// run_end's other members, its result record's (pi's run_end in
	// runtime/drive/response.ts, boundary.ts, reconcile.ts, terminal.ts):
	// Error (a failed run's; nil otherwise), FromTipID (the operation's
	// sourceTipId), TipID (the branch tip it ended at; nil: null) and
	// EndedAt (ms).
	Error            *OpError
	FromTipID, TipID *string
	EndedAt          float64
	// Reason: compaction_start ("overflow" | "threshold").
	Reason string
	// TurnID: turn_start, turn_end; the step of retry_start,
	// retry_scheduled and retry_end (pi's step).
	TurnID string
	// StartedAt: run_start (the operation's startedAt, ms) and
	// compaction_start (its commit's timestamp, pi's commit.timestamp).
	StartedAt float64
	// Attempt: retry_start (the attempt about to run), retry_scheduled
	// (the next attempt) and retry_end (the attempt that settled).
	// retry_scheduled also carries MaxAttempts, DelayMs (the wait before
	// Attempt, RetryDelay of the settled attempt), NotBefore and
	// ErrorMessage (the retry wait's); retry_end carries Success and, when
	// it failed, FinalError (the message's errorMessage, else "Assistant
	// request ended with <stopReason>") (runtime/drive/response.ts
	// publishResponse, generation.ts runRetryWait).
	Attempt, MaxAttempts int
	DelayMs, NotBefore   float64
	ErrorMessage         string
	Success              bool
	FinalError           *string
	// Prompt is the user message of a run's prompt entry: its message_start,
	// message_end and entry_added follow run_start (acceptRun's batch).
	Prompt *pi.UserMessage

	// ToolCallID and ToolName name the call of tool_start and tool_end.
	ToolCallID, ToolName string
	// Args: tool_start (the call's arguments, or the persisted ones).
	Args pi.JSONValue
	// ToolResult is tool_end's result (toolResultFromMessage); IsError its
	// isError. Terminate: tool_end, and entry_added of a terminating entry.
	ToolResult pi.JSONValue
	IsError    bool
	Terminate  bool
	// ToolMessage is the tool result of message_start, message_end,
	// entry_added and usage when a batch places it (Message is nil then).
	ToolMessage *pi.ToolResultMessage
	// ToolResults: turn_end of a tool batch (Message is its assistant).
	ToolResults []*pi.ToolResultMessage
	// Queues: queue_update's remaining queued items, pi's LaneQueuedItem
	// list ({entryId, kind, type:"message", message}, in inbox order).
	Queues pi.JSONValue
	// OperationID: operation_abort, the operation marked cancel_requested
	// (pi's operationId; the run events carry RunID). Steer and FollowUp:
	// its removed queued messages by kind, in inbox order (pi's
	// AgentMessage arrays, each a pending entry's payload; empty arrays
	// when none was queued).
	OperationID     string
	Steer, FollowUp pi.JSONValue

	// At: lane_created, the branch tip the lane was created at (nil: pi's
	// null, the root).
	At *string
	// Property names what config_update changed: "model", "thinkingLevel"
	// or "activeTools" (pi's setModel, setThinkingLevel, setActiveTools);
	// Previous and Value are that property's values before and after.
	Property        string
	Previous, Value pi.JSONValue
}

// Listener receives every event off the lane's line, in the order the
// events were handed over (eventq.go); the lane awaits the returned future
// (nil means delivered) before the next event, as pi's event bus awaits each
// handler. A listener may call the lane; a lane call made inside the
// listener's call returns without awaiting its own events, which follow
// once the listener returns.
type Listener func(Event) env.Future

// FrameOutcome is what happened to one frame.
type FrameOutcome string

// Frame outcomes recorded in FrameRecord.
const (
	FrameEnqueued  FrameOutcome = "enqueued"
	FrameCommitted FrameOutcome = "committed"
	FrameDeclined  FrameOutcome = "declined"
	FrameFailed    FrameOutcome = "failed"
)

// FrameRecord traces the frame pipeline for invariant checkers: which
// provider event (index within its stream, type) produced which frame and
// what the line did with it.
type FrameRecord struct {
	OperationID     string
	ResponseEntryID string
	EventIndex      int
	EventType       pi.EventType
	Frame           []byte // the frame JSON (nil on commit outcomes)
	Outcome         FrameOutcome
	Seq             int64 // committed seq
}

// TelemetryRecord is one committed write's shape: never the value.
type TelemetryRecord struct {
	Kind, Op, Namespace, Key string
	Bytes                    int
	Seq                      int64
	Failed                   bool
}

func (l *Lane) onFrame(r FrameRecord) {
	if l.cfg.OnFrame != nil {
		l.cfg.OnFrame(r)
	}
}
