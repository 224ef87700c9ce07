package lane

import (
	"errors"
	"fmt"
	"slices"

	"github.com/frameproof/frameproof/impl/pi"
)

// ModelRef names the configured model.
type ModelRef struct{ Provider, ModelID string }

// Run is what StartRun commits and what later classification reads.
type Run struct {
	UserText    string
	Model       ModelRef
	MaxAttempts int
	BaseDelayMs float64
	// MaxAgentDelayMs caps each retry delay; nil is pi-ai's 60000.
	MaxAgentDelayMs *float64
	// The rest is the durable context the run's operation states carry
	// (opvalue.go): the captured configuration, the settings and stream
	// options (opaque objects; undefined stores {}), and the step id the
	// lane minted for the run's generation.
	ThinkingLevel           string
	ActiveToolNames         []string
	Settings, StreamOptions pi.JSONValue
	StepID                  string
	// Compaction is the run's settings.compaction (nil: the settings have
	// none, and an overflow's preparation throws).
	Compaction *Compaction
}

// Observer tracks one stream's observed message (model/frames.Observer
// satisfies it): after events e1..ek, Message is what reducing the frames of
// e1..ek must give.
type Observer interface {
	Observe(ev *pi.Event)
	Message() *pi.AssistantMessage
}

// Config configures the model.
type Config struct {
	Lane string
	// Now is the lane clock in ms (timestamps, retry notBefore).
	Now func() float64
	// CommitTime is the timestamp storage gave the transaction the input
	// in progress stands for (pi's commit.timestamp, which
	// compaction_start carries as startedAt); nil: Now.
	CommitTime func() float64
	// NewObserver returns an observed-message tracker for one stream.
	NewObserver func() Observer
	// Limits are the configured model's facts intents record.
	Limits Limits
	// AfterResponse is the pure transform the driver's hook applies (nil:
	// identity).
	AfterResponse func(*pi.AssistantMessage) *pi.AssistantMessage
	// FrameBudget is the implementation's frame budget (budget.go): 0, pi's
	// default, reads every committed frame.
	FrameBudget int
	// SkipStaleSettlement is the implementation's option of that name: a
	// drive step whose operation an external finalization removed before
	// its command's turn declines ("stale" for a settlement or terminal).
	// Off, pi's rule holds: that command faults with LostOperationFault.
	SkipStaleSettlement bool
	// DefaultMaxAgentDelayMs caps the retry delays of a run whose stored
	// retry policy names no maxAgentDelayMs. nil: pi-ai's 60000 ms (its
	// retryDelayMs takes `policy.maxAgentDelayMs ??
	// DEFAULT_MAX_AGENT_RETRY_DELAY_MS`, as pi-agent-core does from 0.87.1).
	// +Inf: pi-agent-core 0.85.1, whose runtime/drive/retry.js retryDelay
	// is baseDelayMs·2^max(0, attempt−1) with only the safe-integer bound.
	// impl/lane's Config option of the same name.
	DefaultMaxAgentDelayMs *float64
	// ErrorPatterns is the pi-ai release whose retry and overflow lists
	// classify a provider error ("": 1.0.3, the tree's). pi-agent-core
	// 0.85.1, 0.87.1 and 0.99.1 run the pi-ai of their version, which
	// lacks some of 1.0.3's rows. impl/lane's Config option of the same
	// name.
	ErrorPatterns pi.AIRelease
	// SyntheticAtRead: the driver reports a recovery's frame read
	// (SyntheticRead), and the recovery's message_start/message_end follow
	// it, as pi's recovery.ts hands them over once continueOperation
	// returned, so a batch another caller committed meanwhile (an
	// enqueue's queue_update) precedes them. Off, for a driver that lets
	// no other command commit between a step's dispatch and its read,
	// Step emits them.
	SyntheticAtRead bool
	// Tools are the lane's configured tools (tools.go); a batch's calls of
	// tools not configured are answered "unavailable", as pi answers them.
	Tools []ToolSpec
	// HoldToolBatches is the implementation's option of that name: a tools
	// leaf waits ("wait", "tools") and a cancel ends it with the aborted
	// terminal, instead of running pi's batch.
	HoldToolBatches bool
	// SequentialTools runs every batch in runSequential's order (pi runs
	// it only for settings.toolExecution "sequential"; the lane's option
	// ToolExecution "sequential" runs it for every setting). false: the
	// settings decide, as in pi.
	SequentialTools bool
	// ContextWindows is the model registry a run boundary asks about the
	// lane's configured model (pi's options.models: each known model's
	// context window). nil knows no model: no boundary compacts
	// (threshold.go).
	ContextWindows map[ModelRef]float64
	// Mutant selects a deliberately wrong variant of the model, so tests can
	// show that the lockstep comparison rejects a broken reference too.
	Mutant string
}

// Deliberately wrong model variants (Config.Mutant).
const (
	MutantKeepFramesOnSettle  = "keep-frames-on-settle"
	MutantNonZeroSynthetic    = "nonzero-synthetic-usage"
	MutantCompleteBeatsCancel = "complete-beats-cancel"
	MutantFenceIgnored        = "fence-ignored"
	// MutantPlacementKeepsPending places tool results without deleting
	// their staged pending entries.
	MutantPlacementKeepsPending = "placement-keeps-pending"
)

// Expect is what the next drive step must do.
type Expect struct {
	// Kind: "idle" | "generate" | "poll" | "recover" | "terminate" |
	// "retry" | "wait" | "tools" (run the tool batch: tools.go) | "fault"
	// (the lane faults: no write, no event).
	Kind   string
	Reason string // wait: "deferred" | "tools"; fault: pi's message
	Status string // terminate: "completed" | "aborted"
}

// Outcome is the step result the implementation must report (StepDone).
type Outcome struct {
	Kind   string // "idle" | "progress" | "waiting" | "settled" | "fault" (the lane faults)
	Reason string // waiting reason, "stale" for a settlement that lost its op, or the fault's message
	Status string // settled status
}

type opInfo struct {
	run     Run
	fromTip string
	trigger string  // the run's user entry, its generation's trigger
	started float64 // the meta's startedAt
	tools   toolBatch
	// genTrigger is the trigger of the operation's next generation when it
	// is not the prompt entry: the last result a tool batch placed.
	genTrigger string
	// afterTools: the operation's checkpoint was reached by placing a tool
	// batch (its may_finish excludes the final assistant).
	afterTools bool
	// task is a threshold compaction's summary task (threshold.go)
	task *summaryTask
	// readyFrom is the checkpoint pair the operation's assistant.ready
	// state carries while its Op.Continuation names one (readyAtBoundary)
	readyFrom checkpointPair
}

// checkpointPair is a checkpoint's continuation and triggerEntryId, as an
// assistant.ready state made from the checkpoint keeps them.
type checkpointPair struct {
	continuation pi.JSONValue
	trigger      string
}

// generationTrigger is the entry the operation's next generation answers.
func (info *opInfo) generationTrigger() string {
	if info.genTrigger != "" {
		return info.genTrigger
	}
	return info.trigger
}

// stream is one provider response as the model saw it.
type stream struct {
	op, resp         string
	recovery         bool
	obs              Observer
	observed         []*pi.AssistantMessage // observed message after event i
	types            []pi.EventType
	framed           map[int]bool
	admitted         bool // the provider request (or poll) was made
	started, ended   bool
	final, response  *pi.AssistantMessage
	hooked           bool
	partial          *pi.AssistantMessage // live partial (process-local)
	committedThrough int                  // event of the last committed frame, -1 none
	// committed lists the event of each committed frame, in list order
	// (the frame budget reduces a prefix of them: budget.go)
	committed []int
}

type queued struct {
	op, resp string
	event    int
	frame    string
}

// Model is the reference lane.
type Model struct {
	cfg     Config
	st      State
	ops     map[string]*opInfo
	streams map[string]*stream
	// opIDs and listKeys are OpIDs and ListKeys as last listed (nil: to
	// list again); an operation or stream added clears them
	opIDs, listKeys []string
	events          []string
	used            map[string]bool
	queued          []string // every entry id ever queued (QueuedIDs)
	// queuedMsg is each queued item's message (canonical JSON), which a
	// placement commits as its entry's message (inbox.go)
	queuedMsg map[string]string
	// config is pi.lane.config (nil: the lane was never acquired) and
	// tipStored says whether a pi.branch.tip value was ever stored
	// (laneconfig.go)
	config    *LaneConfig
	tipStored bool
	// jsonBuf is fillStateValues' buffer, kept from one value to the next
	jsonBuf []byte

	// process-local
	live       *stream
	queue      []queued
	plan       *Expect
	dispatched dispatch // what the step in progress read (StepTurn)
	turn       *bool    // StepTurn's verdict for the step in progress
	turns      int      // StepTurn calls for the step in progress
	intentSeen bool
	// lost: a command of the step in progress reached its turn with no
	// current operation and faulted (StepTurn, CommandTurn)
	lost      bool
	boundary  bool // the checkpoint step committed (Checkpoint)
	synthetic *pi.AssistantMessage
	// syntheticDue: the recovery's message_start/message_end are still to
	// be emitted (Config.SyntheticAtRead, emitSynthetic).
	syntheticDue bool
	settled      *Outcome
	// tx is the write list of the transaction the last input stands for
	// (TakeTX); txKnown says whether the model states one for it.
	tx      []TXWrite
	txKnown bool
	txFresh bool // tx was stated by the input in progress (fillStateValues)
	txLog   [][]TXWrite
	// aborting is the operation whose drive's abort began (a cancel
	// request, before its commit): no later effect of it is admitted.
	aborting string
	// observers counts calls observing the step in progress (claim.go);
	// observed holds the outcomes due to calls whose step finished.
	observers int
	observed  []observedStep
	// toolLive lists the batch calls this process started (an intent or a
	// replay), toolAdmitted those whose run the effect gate admitted;
	// toolAwait is the started call awaiting admission; toolRecovery is
	// the tools step's recovery flag (tools.go).
	toolLive, toolAdmitted map[string]bool
	toolAwait              string
	toolRecovery           bool
	toolsPlaced            bool // the tools step placed its batch's last call
	placementRead          int  // results whose message events a placement read emitted
	// toolPath is the order the tools step runs its calls in, decided at
	// its first call transaction ("": not yet; "sequential", "parallel");
	// toolCancelSeen is the cancel request as the step's last placement
	// read or commit before that saw it (runTools reads control there).
	toolPath       string
	toolCancelSeen bool

	// boundaryStep is the step id a may_finish boundary minted
	// (BoundaryStep; process-local)
	boundaryStep string
	// boundaryTask is the summary task id a boundary minted (BoundaryTask);
	// th is the step's threshold answer, asked says the checkpoint step
	// reads the branch first (a second turn) and gone that the step's last
	// turn found its operation moved on, not merely cancelled (threshold.go)
	boundaryTask string
	th           *thresholdAnswer
	asked, gone  bool
	// unavail is the configuration failure the generate or poll step in
	// progress commits instead of its intent (availability.go)
	unavail *unavailability
}

// New returns a model of an empty lane.
func New(cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = func() float64 { return 0 }
	}
	return &Model{cfg: cfg, st: State{Ops: map[string]Op{}, Results: map[string]Result{}, Lists: map[string][]string{}},
		ops: map[string]*opInfo{}, streams: map[string]*stream{}, used: map[string]bool{},
		toolLive: map[string]bool{}, toolAdmitted: map[string]bool{}}
}

func (m *Model) now() float64 { return m.cfg.Now() }

func (m *Model) emit(name string, recovery bool) {
	if recovery {
		name += "(recovery)"
	}
	m.events = append(m.events, name)
}

func (m *Model) current() (string, Op, bool) {
	id := m.st.Lane.Current
	if id == "" {
		return "", Op{}, false
	}
	o, ok := m.st.Ops[id]
	return id, o, ok
}

func (m *Model) fresh(ids ...string) error {
	for _, id := range ids {
		if id == "" || m.used[id] {
			return fmt.Errorf("model/lane: id %q is empty or already used", id)
		}
	}
	for _, id := range ids {
		m.used[id] = true
	}
	return nil
}

// StartRun: the user entry, branch tip, op meta/state at `starting` and
// lane state commit in one TX (runtime/lane.ts acceptRun); run_start and
// the prompt entry's lifecycle events are emitted. No step id exists yet:
// the run's checkpoint mints it (Checkpoint).
func (m *Model) StartRun(op, userEntry string, run Run) error {
	defer m.fillStateValues()
	if m.st.Lane.Current != "" {
		return fmt.Errorf("model/lane: start run %s: operation %s is still current", op, m.st.Lane.Current)
	}
	if err := m.acquired(run); err != nil {
		return fmt.Errorf("model/lane: start run %s: %w", op, err)
	}
	if err := m.fresh(op, userEntry); err != nil {
		return err
	}
	run.StepID = ""
	m.ops[op] = &opInfo{run: run, fromTip: m.st.Tip, trigger: userEntry, started: m.now()}
	m.opIDs = nil
	// acceptRun captures queued input before the prompt (inbox.go)
	captured := m.acceptedItems(run)
	m.expectTX(m.acceptWrites(op, userEntry, captured)...)
	m.st.Entries = append(m.st.Entries, Entry{ID: userEntry, Parent: m.st.Tip,
		Message: messageJSON(&pi.UserMessage{Text: run.UserText, Timestamp: m.now()})})
	m.st.Tip, m.tipStored = userEntry, true
	m.st.Ops[op] = Op{At: AtStarting}
	m.st.Lane.Current = op
	// runtime/lane.ts acceptRun: run_start heads the acceptance's events,
	// then each entry's message_start, message_end and entry_added (the
	// captured input's, the prompt's), then queue_update
	m.emit("run_start", false)
	for range captured {
		m.emit("message_start", false)
		m.emit("message_end", false)
		m.emit("entry_added", false)
	}
	for _, ev := range []string{"message_start", "message_end", "entry_added"} {
		m.emit(ev, false)
	}
	if len(captured) > 0 {
		m.emit("queue_update", false)
	}
	return nil
}

// Step says what the next drive step must do and, for a recovery, builds
// the synthetic response and emits its recovery-tagged
// message_start/message_end (with Config.SyntheticAtRead, they follow its
// frame read: SyntheticRead, or the settlement at the latest).
func (m *Model) Step(permit bool) (Expect, error) {
	if m.plan != nil {
		return Expect{}, fmt.Errorf("model/lane: step: previous step not done")
	}
	m.intentSeen, m.settled, m.synthetic, m.turn, m.boundary, m.lost = false, nil, nil, nil, false, false
	m.turns, m.th, m.asked, m.gone, m.syntheticDue, m.unavail = 0, nil, false, false, false, nil
	id, o, ok := m.current()
	m.dispatched = dispatch{op: id, at: o.At, resp: o.ResponseEntryID, cancel: o.CancelRequested, events: len(m.events)}
	var e Expect
	// a checkpoint step asks the threshold question (or faults for want
	// of settings to ask with): asked once, for the switch and m.asked
	asks, thresholdFault := false, ""
	if ok && o.At == AtCheckpoint {
		asks, thresholdFault = m.thresholdAsks(id)
	}
	switch {
	case !ok:
		e = Expect{Kind: "idle"}
	case o.At == AtTools && !m.cfg.HoldToolBatches:
		// runtime/drive/tools.ts runTools (reconcile.ts runs it for a
		// cancelled batch too)
		e = Expect{Kind: "tools"}
	case m.sourceFault(id, o) != "":
		e = Expect{Kind: "fault", Reason: m.sourceFault(id, o)}
	case o.CancelRequested && o.effectPending():
		e = Expect{Kind: "recover"}
	case o.CancelRequested:
		e = Expect{Kind: "terminate", Status: "aborted"}
	case o.At == AtStarting:
		e = Expect{Kind: "start"}
	case o.At == AtCheckpoint && thresholdFault != "":
		e = Expect{Kind: "fault", Reason: thresholdFault}
	case o.At == AtCheckpoint && o.Continuation == NeedAssistant:
		e = Expect{Kind: "checkpoint"}
	case o.At == AtReady:
		e = Expect{Kind: "generate"}
		m.unavail = m.generationUnavailable(id)
	case o.At == AtRetryWait:
		e = Expect{Kind: "retry"}
	case o.At == AtEffectPending:
		e = Expect{Kind: "recover"} // an orphan: no stream survives a process
	case o.At == AtDeferredSuspend || o.At == AtDeferredEffect:
		e = Expect{Kind: "wait", Reason: "deferred"}
		if permit {
			e = Expect{Kind: "poll"}
			m.unavail = m.modelUnavailable(m.ops[id].run.Model)
		}
	case o.At == AtCheckpoint:
		e = Expect{Kind: "terminate", Status: "completed"}
	case o.At == AtTools:
		e = Expect{Kind: "wait", Reason: "tools"}
	case o.At == AtSummaryDeciding:
		e = Expect{Kind: "wait", Reason: "summary"} // the structural decision is out of scope
	default:
		return Expect{}, fmt.Errorf("model/lane: step: leaf %q is not modelled", o.At)
	}
	if e.Kind == "tools" {
		// a read whose placement never committed (its operation was
		// finalized) announces nothing to this step
		m.toolsPlaced, m.placementRead, m.toolAwait = false, 0, ""
		m.toolPath, m.toolCancelSeen = "", o.CancelRequested
		m.toolRecovery = m.ops[id].tools.recovery()
		if m.toolRecovery {
			m.emit("turn_start", true)
		}
	}
	if e.Kind == "recover" {
		m.synthetic, m.syntheticDue = m.syntheticFor(id, o), true
		if !m.cfg.SyntheticAtRead {
			m.emitSynthetic()
		}
	}
	if e.Kind == "checkpoint" || e.Kind == "terminate" && e.Status == "completed" {
		m.asked = asks // both kinds are steps of a checkpoint leaf
	}
	m.plan = &e
	return e, nil
}

// emitSynthetic emits the recovery's synthetic message_start/message_end
// once.
func (m *Model) emitSynthetic() {
	if m.syntheticDue {
		m.syntheticDue = false
		m.emit("message_start", true)
		m.emit("message_end", true)
	}
}

// syntheticFor is the harness-owned response for a restored effect_pending:
// the reduced committed partial (or the empty api:"unknown" message) with
// zero usage, stopReason "error" and the exact warning.
func (m *Model) syntheticFor(op string, o Op) *pi.AssistantMessage {
	var msg *pi.AssistantMessage
	if p := m.durable(o.ResponseEntryID); p != nil {
		msg = p.Clone()
	} else {
		mdl := m.ops[op].run.Model
		msg = &pi.AssistantMessage{Content: []pi.Content{}, API: "unknown", Provider: mdl.Provider, Model: mdl.ModelID, Timestamp: m.now()}
	}
	msg.Usage, msg.StopReason, msg.ErrorMessage = pi.Usage{}, pi.StopError, pi.Str(InterruptedWarning)
	if m.truncated(o.ResponseEntryID) {
		addBudgetDiagnostic(msg, m.cfg.FrameBudget, m.now())
	}
	if m.cfg.Mutant == MutantNonZeroSynthetic {
		msg.Usage.Output, msg.Usage.TotalTokens = 1, 1
	}
	return msg
}

// durable is what the committed frames of resp reduce to: the observed
// message after the event of the last committed frame, or, past a frame
// budget, after the event of the budget's last frame (budget.go).
func (m *Model) durable(resp string) *pi.AssistantMessage {
	s := m.streams[resp]
	if s == nil || s.committedThrough < 0 {
		return nil
	}
	if m.truncated(resp) {
		return s.observed[s.committed[m.cfg.FrameBudget-1]]
	}
	return s.observed[s.committedThrough]
}

// Intent: the intent TX reserved resp and usage. Assistant: ready →
// effect_pending(attempt). Deferred: suspended → effect_pending(poll+1), or
// an orphaned poll replaced under the same poll number, deleting the
// abandoned frame list in the same TX.
func (m *Model) Intent(op, resp, usage string, attempt int) error {
	defer m.fillStateValues()
	if m.plan == nil || (m.plan.Kind != "generate" && m.plan.Kind != "poll") || m.intentSeen {
		return fmt.Errorf("model/lane: intent %s: no generate/poll step expects an intent", resp)
	}
	id, o, ok := m.current()
	if !ok || id != op {
		return fmt.Errorf("model/lane: intent: operation %s is not current", op)
	}
	if m.unavail != nil {
		return fmt.Errorf("model/lane: intent %s: the step must fail the run with %s (prepareGeneration)", resp, m.unavail.code)
	}
	if err := m.fresh(resp, usage); err != nil {
		return fmt.Errorf("model/lane: intent: %w", err)
	}
	n := Op{CancelRequested: o.CancelRequested, RequestedAt: o.RequestedAt, LatestAssistantEntryID: o.LatestAssistantEntryID,
		ResponseEntryID: resp, UsageID: usage}
	recovery := false
	// generation.ts publishGenerationIntent (and a deferred poll's intent):
	// continueOperation's op state; a replaced orphaned poll deletes its
	// abandoned frame list first
	tx := []TXWrite{setValue(nsOpState, op, "")}
	switch o.At {
	case AtReady:
		if attempt != o.NextAttempt {
			return fmt.Errorf("model/lane: intent: attempt %d, want %d", attempt, o.NextAttempt)
		}
		n.At, n.Attempt = AtEffectPending, attempt
	case AtDeferredSuspend:
		n.At, n.Poll, n.SourceEntryID = AtDeferredEffect, o.Poll+1, o.SourceEntryID
	case AtDeferredEffect:
		n.At, n.Poll, n.SourceEntryID = AtDeferredEffect, o.Poll, o.SourceEntryID
		delete(m.st.Lists, FramesKey(op, o.ResponseEntryID))
		tx = append([]TXWrite{deleteFrames(op, o.ResponseEntryID)}, tx...)
		recovery = true
	default:
		return fmt.Errorf("model/lane: intent: leaf %s takes no intent", o.At)
	}
	m.st.Ops[op] = n
	m.expectTX(tx...)
	m.intentSeen = true
	if n.At == AtDeferredEffect {
		m.emit("run_resume", recovery) // a poll resumes the suspended run
	}
	if n.At == AtDeferredEffect || attempt == 1 {
		m.emit("turn_start", recovery)
	}
	s := &stream{op: op, resp: resp, recovery: recovery, framed: map[int]bool{}, committedThrough: -1}
	if m.cfg.NewObserver != nil {
		s.obs = m.cfg.NewObserver()
	}
	m.streams[resp] = s
	m.listKeys = nil
	m.live = s
	return nil
}

// ProviderEvent: the provider loop consumed ev (before encoding it).
func (m *Model) ProviderEvent(ev *pi.Event) error {
	s := m.live
	if s == nil {
		return fmt.Errorf("model/lane: provider event %s without an owned stream", ev.Type)
	}
	if !s.admitted {
		return fmt.Errorf("model/lane: provider event %s of %s before its request was admitted", ev.Type, s.resp)
	}
	if s.ended {
		return fmt.Errorf("model/lane: provider event %s after the terminal event", ev.Type)
	}
	switch ev.Type {
	case pi.EventDone, pi.EventError:
		if ev.Message == nil {
			return fmt.Errorf("model/lane: %s event has no message", ev.Type)
		}
		if ev.Type == pi.EventDone && !s.started {
			return fmt.Errorf("model/lane: done before start")
		}
		s.ended, s.final = true, ev.Message.Clone()
	case pi.EventStart:
		if s.started {
			return fmt.Errorf("model/lane: second start event")
		}
		s.started = true
		m.emit("message_start", s.recovery)
	default:
		if !s.started {
			return fmt.Errorf("model/lane: %s before start", ev.Type)
		}
		m.emit("message_update", s.recovery)
	}
	var seen *pi.AssistantMessage
	if n := len(s.observed); n > 0 {
		seen = s.observed[n-1]
	}
	if !s.ended && s.obs != nil {
		s.obs.Observe(ev)
		if msg := s.obs.Message(); msg != nil {
			seen = msg.Clone()
		}
	}
	s.observed = append(s.observed, seen)
	s.types = append(s.types, ev.Type)
	if ev.Partial != nil && !s.ended {
		s.partial = ev.Partial.Clone()
	}
	return nil
}

// FrameEnqueued: the codec produced frame for event i of resp and the loop
// enqueued its fenced append.
func (m *Model) FrameEnqueued(resp string, i int, typ pi.EventType, frame []byte) error {
	s := m.live
	switch {
	case s == nil || s.resp != resp:
		return fmt.Errorf("model/lane: frame for %s event %d without its owned stream", resp, i)
	case typ == pi.EventDone || typ == pi.EventError:
		return fmt.Errorf("model/lane: terminal %s event %d stored as a frame", typ, i)
	case s.hooked:
		return fmt.Errorf("model/lane: frame for event %d after frame admission stopped", i)
	case i != len(s.types)-1 || s.types[i] != typ:
		return fmt.Errorf("model/lane: frame for event %d (%s) enqueued out of step; latest consumed event is %d", i, typ, len(s.types)-1)
	case s.framed[i]:
		return fmt.Errorf("model/lane: second frame for event %d", i)
	case !s.started:
		return fmt.Errorf("model/lane: frame for event %d before start", i)
	}
	s.framed[i] = true
	m.queue = append(m.queue, queued{op: s.op, resp: resp, event: i, frame: Canonical(frame)})
	return nil
}

// fence: an append commits only while the current operation is at
// assistant or deferred effect_pending with the append's responseEntryId
// (pi's runtime/progress.ts openFrameProgress compares no operation id:
// a response id is minted for one operation only).
func (m *Model) fence(q queued) bool {
	if m.cfg.Mutant == MutantFenceIgnored {
		return true
	}
	_, o, ok := m.current()
	return ok && o.effectPending() && o.ResponseEntryID == q.resp
}

// owns: the stream's response is still the current operation's pending one.
func (m *Model) owns(s *stream) bool {
	id, o, ok := m.current()
	return ok && id == s.op && o.effectPending() && o.ResponseEntryID == s.resp
}

func (m *Model) popFrame(resp string, i int, what string) (queued, error) {
	if len(m.queue) == 0 {
		return queued{}, fmt.Errorf("model/lane: frame %s:%d %s but no frame is queued", resp, i, what)
	}
	q := m.queue[0]
	if q.resp != resp || q.event != i {
		return queued{}, fmt.Errorf("model/lane: frame %s:%d %s out of FIFO order; oldest queued is %s:%d", resp, i, what, q.resp, q.event)
	}
	m.queue = m.queue[1:]
	return q, nil
}

// FrameCommitted: the oldest queued append committed.
func (m *Model) FrameCommitted(resp string, i int) error {
	q, err := m.popFrame(resp, i, "committed")
	if err != nil {
		return err
	}
	if !m.fence(q) {
		_, o, _ := m.current()
		return fmt.Errorf("model/lane: frame %s:%d committed although the fence does not hold (current %q at %q resp %q)",
			resp, i, m.st.Lane.Current, o.At, o.ResponseEntryID)
	}
	k := FramesKey(q.op, resp)
	m.st.Lists[k] = append(m.st.Lists[k], q.frame)
	// progress.ts: one append of the frame per transaction
	m.expectTX(TXWrite{Kind: "list", Op: "append", Namespace: FramesNamespace, Key: k, Value: q.frame})
	if s := m.streams[resp]; s != nil {
		s.committedThrough = i
		s.committed = append(s.committed, i)
	}
	return nil
}

// FrameDeclined: the oldest queued append was declined by the fence.
func (m *Model) FrameDeclined(resp string, i int) error {
	q, err := m.popFrame(resp, i, "declined")
	if err != nil {
		return err
	}
	if m.fence(q) {
		return fmt.Errorf("model/lane: frame %s:%d declined although the fence holds", resp, i)
	}
	return nil
}

// AfterResponse: the hook ran. Only a live stream that ended runs it, and
// only after every accepted frame of that stream settled (drain).
// message_end is due next.
func (m *Model) AfterResponse() error {
	s := m.live
	if m.synthetic != nil || s == nil || !s.ended {
		return fmt.Errorf("model/lane: after_response ran without an ended live stream (synthetic responses never run it)")
	}
	if s.hooked {
		return fmt.Errorf("model/lane: after_response ran twice for %s", s.resp)
	}
	for _, q := range m.queue {
		if q.resp == s.resp {
			return fmt.Errorf("model/lane: after_response ran while the frame of event %d of %s was still queued (no drain)", q.event, s.resp)
		}
	}
	s.hooked = true
	s.response = s.final.Clone()
	if m.cfg.AfterResponse != nil {
		s.response = m.cfg.AfterResponse(s.response)
	}
	m.emit("message_end", s.recovery)
	return nil
}

// Settle: the settlement TX of the step's response committed (the
// implementation announces it with entry_added). entry, usage, tip, frame
// list delete and next state — or the terminal suffix — in one TX.
func (m *Model) Settle() error {
	defer m.fillStateValues()
	op, o, ok := m.current()
	var msg *pi.AssistantMessage
	var resp string
	recovery, literal := true, false
	switch {
	case m.synthetic != nil:
		m.emitSynthetic() // a driver that reports no SyntheticRead
		msg, resp = m.synthetic, o.ResponseEntryID
		literal = m.durable(o.ResponseEntryID) == nil
	case m.live != nil && m.live.hooked:
		msg, resp, recovery = m.live.response, m.live.resp, m.live.recovery
	default:
		return fmt.Errorf("model/lane: settlement without a response to settle")
	}
	if !ok || !o.effectPending() || o.ResponseEntryID != resp {
		return fmt.Errorf("model/lane: settlement of %s, which is not the pending response (current %q at %q)", resp, op, o.At)
	}
	d := m.classify(o, m.ops[op], msg, recovery)
	if d.fault != "" {
		return fmt.Errorf("model/lane: settlement of %s must fault: %s", resp, d.fault)
	}
	if d.committed.StopReason == pi.StopPending {
		// session/session.ts: the session mutator refuses the transaction
		return fmt.Errorf("model/lane: settlement of %s must fault: %s", resp, PendingAssistantRefusal)
	}
	entryMsg := messageJSON(d.committed)
	if literal {
		entryMsg = interruptedLiteralJSON(d.committed)
	}
	m.expectTX(m.settlementWrites(op, o, resp, m.st.Tip, d.next)...)
	m.st.Entries = append(m.st.Entries, Entry{ID: resp, Parent: m.st.Tip, Message: entryMsg})
	m.st.Usage = append(m.st.Usage, UsageRow{ID: o.UsageID, EntryID: resp, Usage: usageJSON(d.committed.Usage)})
	m.st.Tip = resp
	m.emit("entry_added", recovery)
	// runtime/drive/response.ts publishResponse: the recovery option goes
	// to entry_added only, never to the usage event.
	m.emit("usage", false)
	m.settlementEvents(op, o, d, recovery)
	out := Outcome{Kind: "progress"}
	if d.next == nil {
		m.terminate(op, "failed", d.failCode, d.failMsg)
		m.emitRunEnd(op)
		out = Outcome{Kind: "settled", Status: "failed"}
	} else {
		if m.cfg.Mutant != MutantKeepFramesOnSettle {
			delete(m.st.Lists, FramesKey(op, resp))
		}
		m.st.Ops[op] = *d.next
		m.ops[op].afterTools = false
		if d.next.At == AtTools {
			m.ops[op].planBatch(*d.next, d.committed)
		}
	}
	m.live, m.synthetic, m.settled = nil, nil, &out
	return nil
}

// terminate is the terminal TX: op state deleted (with its effect_pending
// frame list), pi.result set, lane state cleared.
func (m *Model) terminate(op, status, code, msg string) {
	if o := m.st.Ops[op]; o.effectPending() && m.cfg.Mutant != MutantKeepFramesOnSettle {
		delete(m.st.Lists, FramesKey(op, o.ResponseEntryID))
	}
	if o := m.st.Ops[op]; o.At == AtTools {
		for _, id := range m.ops[op].stagedIDs() {
			m.unpend(id)
		}
		m.ops[op].tools.args = nil
	}
	delete(m.st.Ops, op)
	m.st.Results[op] = Result{Status: status, ErrorCode: code, ErrorMessage: msg, TipID: m.st.Tip, FromTipID: m.ops[op].fromTip}
	m.st.Lane.Current, m.st.Lane.Last = "", op
}

// StepDone: the drive step returned; ok=false means it failed because the
// process crashed (the driver then calls Crash). It applies the single TX of
// retry and terminate steps and returns the result the step must report.
// Calls that observed the step (ObserveDrive) report the same outcome.
func (m *Model) StepDone(ok bool) (Outcome, error) {
	out, err := m.stepDone(ok)
	if err == nil {
		m.releaseObservers(out, ok)
	}
	return out, err
}

func (m *Model) stepDone(ok bool) (Outcome, error) {
	defer m.fillStateValues()
	p := m.plan
	m.plan = nil
	if !ok {
		return Outcome{}, nil // the process died mid-step; Crash resets the rest
	}
	if p == nil {
		return Outcome{}, fmt.Errorf("model/lane: step done without a step")
	}
	if m.turn != nil && *m.turn {
		m.turn = nil
		return m.skippedOutcome(p.Kind), nil
	}
	if m.lost {
		m.lost = false
		return Outcome{Kind: "fault", Reason: LostOperationFault}, nil
	}
	turned := m.turn != nil // the step's command reached its turn
	m.turn = nil
	id, o, _ := m.current()
	switch p.Kind {
	case "idle":
		return Outcome{Kind: "idle"}, nil
	case "fault":
		return Outcome{Kind: "fault", Reason: p.Reason}, nil
	case "wait":
		return Outcome{Kind: "waiting", Reason: p.Reason}, nil
	case "retry":
		if m.aborting == m.dispatched.op && !turned {
			// the wait was not admitted or was interrupted: no TX
			return Outcome{Kind: "progress"}, nil
		}
		// runtime/drive/generation.ts runRetryWait: continueOperation with
		// no writes but the op state
		m.expectTX(setValue(nsOpState, id, ""))
		m.st.Ops[id] = Op{At: AtReady, CancelRequested: o.CancelRequested, RequestedAt: o.RequestedAt,
			LatestAssistantEntryID: o.LatestAssistantEntryID, NextAttempt: o.NextAttempt}
		m.emit(RetryStartEvent(m.ops[id].run.StepID, o.NextAttempt), false)
		return Outcome{Kind: "progress"}, nil
	case "start":
		return m.startDone(id, o), nil
	case "tools":
		return m.toolsDone(id, o)
	case "checkpoint":
		if a := m.threshold(id, o); a.fault != "" {
			return Outcome{Kind: "fault", Reason: a.fault}, nil
		}
		if !m.boundary && id == m.dispatched.op && !o.CancelRequested {
			return Outcome{}, fmt.Errorf("model/lane: checkpoint step returned without minting the assistant step")
		}
		return Outcome{Kind: "progress"}, nil
	case "terminate":
		if p.Status == "completed" {
			if a := m.threshold(id, o); a.fault != "" {
				return Outcome{Kind: "fault", Reason: a.fault}, nil
			}
			return m.finishAtBoundary(id, o)
		}
		m.expectTX(m.terminalWrites(id, o)...)
		m.terminate(id, p.Status, "", "")
		m.emitRunEnd(id)
		return Outcome{Kind: "settled", Status: p.Status}, nil
	}
	if u := m.unavail; u != nil && (p.Kind == "generate" || p.Kind == "poll") {
		m.unavail = nil
		return m.configurationFailure(id, o, u), nil
	}
	// generate, poll, recover: the response settled, or it lost its
	// operation to an external finalization (stale: nothing commits).
	if m.settled != nil {
		return *m.settled, nil
	}
	if p.Kind != "recover" && !m.intentSeen {
		return Outcome{}, fmt.Errorf("model/lane: %s step returned without an intent", p.Kind)
	}
	if p.Kind != "recover" && m.live != nil && !m.live.admitted {
		if m.aborting != m.live.op {
			return Outcome{}, fmt.Errorf("model/lane: %s step returned without making its request, although no cancel began", p.Kind)
		}
		m.live = nil // the step awaited the cancellation; the next reconciles
		return Outcome{Kind: "progress"}, nil
	}
	resp := ""
	if m.live != nil {
		resp = m.live.resp
	}
	if p.Kind == "recover" {
		resp = o.ResponseEntryID
	}
	if cur, co, ok := m.current(); ok && cur == id && co.effectPending() && co.ResponseEntryID == resp {
		return Outcome{}, fmt.Errorf("model/lane: %s step returned without settling %s", p.Kind, resp)
	}
	m.live, m.synthetic = nil, nil
	return Outcome{Kind: "progress", Reason: "stale"}, nil
}

// Cancel: durable cancel_requested on the current operation (no-op when
// idle or already requested: no transaction, no event). The request's
// batch opens with operation_abort, naming the operation and the queued
// steer and followUp messages it removes, in inbox order; queue_update
// follows when it removed any (runtime/lane.ts requestOperationAbort).
func (m *Model) Cancel() {
	defer m.fillStateValues()
	id, o, ok := m.current()
	if !ok || o.CancelRequested {
		m.expectTX() // nothing to request: no transaction
		return
	}
	m.expectTX(m.cancelWrites(id)...)
	o.CancelRequested, o.RequestedAt = true, m.now()
	m.st.Ops[id] = o
	m.emit(m.abortEvent(id), false)
	if m.removeSteering() {
		m.emit("queue_update", false)
	}
}

// Finalize: authorized external finalization at its turn on the line. It
// reports whether it committed (false: no current operation). A result
// whose error does not match its status is refused first, with
// ResultErrorRefusal, and commits nothing: a failed result carries an
// error, no other status does (runtime/drive/terminal.ts
// operationResultRecord).
func (m *Model) Finalize(status, code, message string) (bool, error) {
	defer m.fillStateValues()
	if (status == "failed") != (code != "" || message != "") {
		m.expectTX()
		return false, errors.New(ResultErrorRefusal)
	}
	id, o, ok := m.current()
	if !ok {
		return false, nil
	}
	m.expectTX(m.terminalWrites(id, o)...)
	m.terminate(id, status, code, message)
	return true, nil
}

// Crash: process loss. Committed state is all that survives; queued
// appends, the live stream and the step in progress are gone.
func (m *Model) Crash() {
	m.queue, m.live, m.plan, m.synthetic, m.settled, m.intentSeen, m.turn, m.lost = nil, nil, nil, nil, nil, false, nil, false
	m.syntheticDue = false
	m.turns = 0
	m.aborting = ""
	m.tx, m.txKnown = nil, false
	m.observers, m.observed = 0, nil // observing calls die with the process
	m.toolLive, m.toolAdmitted, m.toolAwait = map[string]bool{}, map[string]bool{}, ""
	m.toolRecovery, m.placementRead = false, 0
	m.boundaryStep = ""
}

// Close is a controlled crash: it writes nothing. The append the line was
// running may finish under the close barrier (reported as FrameCommitted
// before Close); later admitted appends are rejected at their turn. Either
// way only a committed prefix survives, as after a crash.
func (m *Model) Close() { m.Crash() }

// Snapshot is the expected lane snapshot.
type Snapshot struct {
	Transcript []string
	// StreamingMessage is canonical JSON, "" when absent.
	StreamingMessage string
	Live             bool
	// Truncated: the durable reduction stopped at the frame budget.
	Truncated bool
}

// Snapshot: streamingMessage is the live partial while its stream still
// holds the fence (after an external finalization the fenced stream may
// still be consumed, but pi's client fold drops message_update without a
// matching current operation), else the durable reduction for
// assistant/deferred effect_pending, else absent.
func (m *Model) Snapshot() Snapshot {
	s := Snapshot{Transcript: m.Transcript()}
	if m.live != nil && m.live.partial != nil && m.owns(m.live) {
		s.StreamingMessage, s.Live = messageJSON(m.live.partial), true
		return s
	}
	if _, o, ok := m.current(); ok && o.effectPending() {
		if p := m.durable(o.ResponseEntryID); p != nil {
			s.StreamingMessage, s.Truncated = messageJSON(p), m.truncated(o.ResponseEntryID)
		}
	}
	return s
}

// Capture is the expected pi captureLaneSnapshot (runtime/lane.ts): the
// transcript and, for assistant/deferred effect_pending, the reduction of the
// committed frames, whatever the live stream has reached.
func (m *Model) Capture() Snapshot {
	s := Snapshot{Transcript: m.Transcript()}
	if _, o, ok := m.current(); ok && o.effectPending() {
		if p := m.durable(o.ResponseEntryID); p != nil {
			s.StreamingMessage, s.Truncated = messageJSON(p), m.truncated(o.ResponseEntryID)
		}
	}
	return s
}

// Committed returns a copy of the committed state.
func (m *Model) Committed() State { return m.st.clone() }

// CommittedShared returns the committed state itself, not a copy, for a
// caller that only reads it before the model's next step (a comparison):
// its slices and maps are the model's own and must not be changed.
func (m *Model) CommittedShared() State { return m.st }

// Current is the committed current operation ("" when idle) and whether
// its control is cancel_requested (what a client shows as "aborting").
func (m *Model) Current() (op string, cancelRequested bool) {
	id, o, _ := m.current()
	return id, o.CancelRequested
}

// Events returns the emitted events so far.
func (m *Model) Events() []string { return append([]string(nil), m.events...) }

// EventsShared returns the emitted events themselves, not a copy, for a
// caller that only reads them before the model's next step (a comparison):
// the slice is the model's own (a step may truncate and overwrite it) and
// must not be changed or kept.
func (m *Model) EventsShared() []string { return m.events }

// Transcript returns the entry ids along the branch, root first. pi's
// captureLaneSnapshot (runtime/lane.ts) stops at the branch's newest
// compaction entry; the model commits only message entries (Entry has no
// type), so its branch never holds one and the walk reaches the root.
func (m *Model) Transcript() []string {
	parent := map[string]string{}
	for _, e := range m.st.Entries {
		parent[e.ID] = e.Parent
	}
	// walked from the tip into a slice sized for every entry, then turned
	// around in place: one allocation per call (a snapshot at every step)
	out := make([]string, 0, len(m.st.Entries))
	for id := m.st.Tip; id != ""; id = parent[id] {
		out = append(out, id)
		if len(out) > len(m.st.Entries) {
			break
		}
	}
	slices.Reverse(out)
	return out
}

// OpIDs lists every operation the model has seen, sorted. The list is
// the model's own, listed again only after an operation was added: the
// caller must not change it (its capacity is its length, so an append
// copies).
func (m *Model) OpIDs() []string {
	if m.opIDs == nil {
		m.opIDs = sortedKeys(m.ops)
	}
	return m.opIDs[:len(m.opIDs):len(m.opIDs)]
}

// ListKeys lists the frame-list key of every reserved response, sorted:
// the addresses a comparison must read (storage cannot enumerate lists).
// Like OpIDs, the list is the model's own, listed again only after a
// response was reserved.
func (m *Model) ListKeys() []string {
	if m.listKeys == nil {
		set := map[string]bool{}
		for resp, s := range m.streams {
			set[FramesKey(s.op, resp)] = true
		}
		m.listKeys = sortedKeys(set)
	}
	return m.listKeys[:len(m.listKeys):len(m.listKeys)]
}

// Lane is the configured lane name.
func (m *Model) Lane() string { return m.cfg.Lane }

// Pending is the number of queued, unsettled frame appends.
func (m *Model) Pending() int { return len(m.queue) }

// OldestQueuedFrame names the oldest enqueued, unresolved frame append (its
// response and event index): the one a FIFO line resolves next. A driver
// that observes only commits (a subject other than the implementation in
// process) names a committed frame append by it.
func (m *Model) OldestQueuedFrame() (resp string, event int, ok bool) {
	if len(m.queue) == 0 {
		return "", -1, false
	}
	return m.queue[0].resp, m.queue[0].event, true
}
