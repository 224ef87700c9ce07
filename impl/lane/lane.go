package lane

import (
	"errors"
	"fmt"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// DefaultFrameBudget is pi's: readAssistantFrames (runtime/progress.ts)
// pages through the whole list without a total cap. A positive
// Config.FrameBudget is frameproof's deliberate option (the seed asks for a
// budget): recovery reduces only that prefix and adds a diagnostic.
const DefaultFrameBudget = 0

// FramePageSize is pi's readAssistantFrames page size.
const FramePageSize = 1000

// ErrClosed is returned by every lane call after Close.
var ErrClosed = errors.New("lane: closed")

// HarnessFault is the whole-process fault raised by a failed command or
// frame commit (pi's onFault). Once faulted, the lane's line is sealed and no
// later commit happens in this process; reopen to continue.
type HarnessFault struct{ Cause error }

func (f *HarnessFault) Error() string { return "lane: harness fault: " + f.Cause.Error() }
func (f *HarnessFault) Unwrap() error { return f.Cause }

// Provider opens assistant streams. The simulator implements it; Next may
// block through env futures.
type Provider interface {
	Stream(req Request) Stream
}

// Stream yields pi-ai events in order. After a terminal event (done/error)
// Next is not called again. A Next error is a transport failure that pi-ai
// would have encoded in-stream; the lane turns it into an error response.
type Stream interface {
	Next() (pi.Event, error)
}

// Request describes one provider request.
type Request struct {
	OperationID     string
	ResponseEntryID string
	Model           ModelRef
	Attempt         int                // assistant attempt (1-based); 0 for polls
	Deferred        *pi.DeferredHandle // non-nil for a deferred poll
	Poll            int
	// Abort resolves when cancellation is requested for the operation.
	Abort env.Future
}

// AfterResponse is the after_response hook: it may transform the final
// response before settlement. An error faults the lane.
type AfterResponse func(msg *pi.AssistantMessage) (*pi.AssistantMessage, error)

// ModelLimits are the model facts the intent records.
type ModelLimits struct {
	MaxTokens     float64 // intendedOutputLimit
	ContextWindow float64
}

// Config configures one lane process.
type Config struct {
	Name          string
	Storage       store.Storage
	Clock         env.Clock
	IDs           env.IDs
	Exec          env.Executor
	Provider      Provider
	Listener      Listener      // may be nil
	AfterResponse AfterResponse // may be nil
	Limits        ModelLimits
	// Models is the model registry a run boundary asks about the lane's
	// configured model (pi's options.models): with one, every boundary runs
	// pi's threshold-compaction check (threshold.go), and a boundary whose
	// context is over the model's window less settings.compaction's
	// reserveTokens moves to summary.deciding. A generation (and a
	// deferred poll with a permit) whose model it does not know fails the
	// run before its intent with model_unavailable (availability.go). nil
	// is no registry: every model is the Provider's and no boundary
	// compacts.
	Models Models
	// Tools are the lane's configured tools (pi's config.tools). A settled
	// tool batch runs as pi's runTools does (tools.go, docs/TOOLS.md); a
	// call of a tool not configured or not active is answered
	// "unavailable", as pi answers. A generation whose run names an active
	// tool not among them fails the run with configured_tools_unavailable
	// (availability.go); nil is no tool list, and nothing is checked.
	Tools []Tool
	// HoldToolBatches is frameproof's option for callers that answer tool
	// calls themselves: a settled batch waits (Step returns StepWaiting
	// "tools", a cancel ends it with the aborted terminal) instead of
	// running. Off, the default, is pi's behaviour.
	HoldToolBatches bool
	// ToolExecution picks the order a batch's calls run in. "" (the
	// default) is pi's: runSequential when the run's
	// settings.toolExecution is "sequential", runParallel otherwise.
	// "sequential" is frameproof's option: every batch runs in
	// runSequential's order.
	ToolExecution string
	// FrameBudget bounds frames read by recovery and snapshots (0, the
	// default: no cap, as pi).
	FrameBudget int
	// FramePageSize is the page size recovery and snapshots read frame
	// lists with (0, the default: pi's FramePageSize). Every page is read
	// either way; a small size makes a short list span pages, so the
	// simulator reaches the cursor that follows a page.
	FramePageSize int
	// OnFrame observes the frame pipeline (nil: off).
	OnFrame func(FrameRecord)
	// Telemetry observes every commit's shape without values (nil: off).
	Telemetry func(TelemetryRecord)
	// Generation is what pi's harness options give a process: the stream
	// options and retry policy a run boundary puts into an assistant step
	// (not durable in pi either; StartRun replaces them for its run), and
	// the configuration that seeds pi.lane.config when the lane is
	// acquired without a run configuration (laneconfig.go). The boundary
	// reads the lane's configuration from pi.lane.config. nil: a process
	// reopened on a run at `starting` or `checkpoint` has no stream
	// options or retry policy, and its boundary faults.
	Generation *GenerationConfig
	// SkipStaleSettlement makes a drive step whose operation an external
	// Finalize removed meanwhile harmless: its command (intent, retry-ready,
	// start, checkpoint, deferred source read, poll intent, recovery read,
	// overflow preparation) declines and a settlement or terminal is a
	// "stale" step. pi's continueOperation and settleOperation
	// (runtime/lane.ts) read state.operation!.state, so with no current
	// operation every one of them throws and faults the harness (the
	// default); frameproof's external finalization can race a drive step,
	// so callers that use it set this.
	SkipStaleSettlement bool
	// DefaultMaxAgentDelayMs caps the retry delays of a generation whose
	// stored retry policy names no maxAgentDelayMs. nil: pi-ai's 60000 ms
	// (retryDelayMs' `policy.maxAgentDelayMs ?? DEFAULT_MAX_AGENT_RETRY_DELAY_MS`,
	// which pi-agent-core 0.87.1 and later apply; they also write the cap
	// into every policy, boundary.js normalizedRetryPolicy). +Inf:
	// pi-agent-core 0.85.1, whose runtime/drive/retry.js retryDelay has no
	// cap and whose policies name none. `frameproof pi-recovery-sweep --pi`
	// sets it per release.
	DefaultMaxAgentDelayMs *float64
	// ErrorPatterns is the pi-ai release whose retry and overflow patterns
	// classify a provider error ("": pi.AI103, the tree's). The published
	// pi-agent-core 0.85.1, 0.87.1 and 0.99.1 run the pi-ai of their
	// version, whose lists lack some of 1.0.3's ("520", "model is at
	// capacity", ...); running one of them as a subject, set its release.
	ErrorPatterns pi.AIRelease
	// bugs are the simulator's injected defects: always off unless built
	// with the frameproofbugs tag and set through WithBugs (bugs.go).
	bugs bugs
}

// Operation is the in-process view of the current operation.
type Operation struct {
	ID    string
	Meta  OpMeta
	State *OpState
}

type view struct {
	laneState LaneState
	tip       *string
	tipStored bool           // a pi.branch.tip value exists (null or an id)
	config    *Configuration // pi.lane.config; nil: the lane is not acquired (laneconfig.go)
	op        *Operation
}

// clone copies v and its operation. The operation's state is shared: a
// state in a view is never written after it is made (a planner installs a
// new state, or a Clone it then writes: cancelPlan, withCall), and what
// leaves the lane (Current, Snapshot, Capture) is a Clone.
func (v view) clone() view {
	c := v
	if v.op != nil {
		op := *v.op
		c.op = &op
	}
	return c
}

type liveStream struct {
	op, responseEntryID string
	partial             *pi.AssistantMessage
}

// Lane is one lane process: the authoritative in-process state, the FIFO
// mutation line and the storage it commits to.
type Lane struct {
	cfg  Config
	line *store.Line

	mu     sync.Mutex
	view   view
	live   *liveStream
	fault  *HarnessFault
	closed bool
	gen    *GenerationConfig // what the next run boundary reads (Config.Generation, then StartRun's)
	gate   *driveGate        // the current operation's effect gate
	active *activeDrive      // pi's Lane.activeDrive (claim.go)
	cut    commitMark        // the command commit Snapshot reads beside (cut.go)
	evq    eventQueue        // command events not yet delivered (eventq.go)
}

// Open restores a lane process from storage: lane state, branch tip and the
// current operation. It starts nothing; Step drives (and recovers).
func Open(cfg Config) (*Lane, error) {
	if cfg.Storage == nil || cfg.Clock == nil || cfg.IDs == nil || cfg.Exec == nil {
		return nil, fmt.Errorf("lane: open %q: storage, clock, ids and executor are required", cfg.Name)
	}
	if cfg.FrameBudget < 0 {
		return nil, fmt.Errorf("lane: open %q: frame budget %d is negative", cfg.Name, cfg.FrameBudget)
	}
	if cfg.ErrorPatterns != "" && patternsOf(cfg.ErrorPatterns) == nil {
		return nil, fmt.Errorf("lane: open %q: error patterns of pi-ai %q: no such release (known: %v)",
			cfg.Name, cfg.ErrorPatterns, pi.AIReleases)
	}
	if cfg.ToolExecution != "" && cfg.ToolExecution != ToolsSequential {
		return nil, fmt.Errorf("lane: tool execution %q is neither \"\" (pi's) nor %q", cfg.ToolExecution, ToolsSequential)
	}
	if err := checkTools(cfg.Tools); err != nil {
		return nil, fmt.Errorf("lane: open %q: %w", cfg.Name, err)
	}
	l := &Lane{cfg: cfg, line: store.NewLine(cfg.Exec), gen: cfg.Generation}
	v, err := restore(cfg.Storage, cfg.Name)
	if err != nil {
		return nil, err
	}
	l.view = v
	return l, nil
}

func restore(st store.Storage, name string) (view, error) {
	var v view
	ls, err := st.GetValue(LaneStateAddr(name))
	if err != nil {
		return v, fmt.Errorf("lane: restore %q: read lane state: %w", name, err)
	}
	tip, err := st.GetValue(BranchTipAddr(name))
	if err != nil {
		return v, fmt.Errorf("lane: restore %q: read branch tip: %w", name, err)
	}
	cfg, err := st.GetValue(LaneConfigAddr(name))
	if err != nil {
		return v, fmt.Errorf("lane: restore %q: read lane config: %w", name, err)
	}
	// restore.ts classifies the three values before reading any of them
	acquired, err := classifyLane(name, tip, cfg, ls)
	if err != nil {
		return v, err
	}
	if acquired {
		if v.laneState, err = decodeLaneState(ls.Value); err != nil {
			return v, fmt.Errorf("lane: restore %q: lane state: %w", name, err)
		}
		if v.config, err = decodeLaneConfig(cfg.Value); err != nil {
			return v, fmt.Errorf("lane: restore %q: %s: %w", name, NSLaneConfig, err)
		}
	}
	if tip != nil {
		v.tipStored = true
		pv, err := pi.ParseJSON(string(tip.Value))
		if err != nil {
			return v, fmt.Errorf("lane: restore %q: branch tip: %w", name, err)
		}
		switch pv.Kind() {
		case pi.String:
			v.tip = strp(pv.Str())
		case pi.Null:
		default: // session/values.ts branchTip: string | null
			return v, fmt.Errorf("lane: restore %q: %s is %s, not a string or null", name, NSBranchTip, pv.Kind())
		}
	}
	if v.laneState.CurrentOperationID == nil {
		return v, nil
	}
	opID := *v.laneState.CurrentOperationID
	meta, err := st.GetValue(OpMetaAddr(opID))
	if err != nil {
		return v, fmt.Errorf("lane: restore %q: read op meta %s: %w", name, opID, err)
	}
	state, err := st.GetValue(OpStateAddr(opID))
	if err != nil {
		return v, fmt.Errorf("lane: restore %q: read op state %s: %w", name, opID, err)
	}
	if meta == nil || state == nil {
		return v, fmt.Errorf("lane: restore %q: operation %s has no meta or state", name, opID)
	}
	op := &Operation{ID: opID}
	if op.Meta, err = decodeMeta(meta.Value); err != nil {
		return v, fmt.Errorf("lane: restore %q: op meta %s: %w", name, opID, err)
	}
	if op.State, err = DecodeState(state.Value); err != nil {
		return v, fmt.Errorf("lane: restore %q: op state %s: %w", name, opID, err)
	}
	v.op = op
	return v, nil
}

// Name is the lane name.
func (l *Lane) Name() string { return l.cfg.Name }

// Fault returns the harness fault, or nil.
func (l *Lane) Fault() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fault == nil {
		return nil
	}
	return l.fault
}

// Current returns a copy of the in-process operation (nil when idle).
func (l *Lane) Current() *Operation {
	l.mu.Lock()
	defer l.mu.Unlock()
	op := l.view.clone().op
	if op != nil {
		op.State = op.State.Clone()
	}
	return op
}

func (l *Lane) usable() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fault != nil {
		return l.fault
	}
	if l.closed {
		return ErrClosed
	}
	return nil
}

// faultWith records the first harness fault and seals the line so that no
// later mutation commits in this process.
func (l *Lane) faultWith(err error) *HarnessFault {
	l.mu.Lock()
	if l.fault == nil {
		var hf *HarnessFault
		if !errors.As(err, &hf) {
			hf = &HarnessFault{Cause: err}
		}
		l.fault = hf
		if !l.cfg.bugs.on(bugSnapshotShowsDeadLivePartial) {
			l.live = nil
		}
	}
	f := l.fault
	l.mu.Unlock()
	l.line.Seal(f)
	return f
}

// Close is a controlled crash: it writes nothing, lets admitted line work
// drain and leaves effect_pending as it is. Storage stays open (the caller
// owns it).
func (l *Lane) Close() error {
	l.mu.Lock()
	l.closed = true
	if !l.cfg.bugs.on(bugSnapshotShowsDeadLivePartial) {
		l.live = nil
	}
	l.mu.Unlock()
	return l.line.Seal(ErrClosed).Wait()
}

// plan is a lane command's decision.
type plan struct {
	commit bool
	writes []store.Write
	next   view
	// applied runs under the state lock right after the view update.
	applied func()
	// events are the command's batch, handed over on the line right after
	// the commit (after the planner when nothing commits), as pi's command
	// calls emitBatch inside session.mutate; the caller awaits their
	// delivery once the line moved on (eventq.go).
	events func(store.CommitResult) []Event
}

// thenEmit makes a committing plan of planner hand over events(res) as its
// batch: the events a command's caller emitted once it returned now keep
// the command's place on the line (eventq.go). events may read what the
// planner decided, since it runs after the planner on the line.
func thenEmit(planner func(cur view) (plan, error), events func(store.CommitResult) []Event) func(cur view) (plan, error) {
	return func(cur view) (plan, error) {
		p, err := planner(cur)
		if err == nil && p.commit {
			p.events = events
		}
		return p, err
	}
}

// rejectError is returned by planners for caller errors that do not fault.
type rejectError struct{ err error }

func (e *rejectError) Error() string { return e.err.Error() }
func (e *rejectError) Unwrap() error { return e.err }

// cmdResult is filled by a command's line work before its future resolves.
type cmdResult struct {
	res       store.CommitResult
	committed bool
	delivery  env.Future // the plan's events delivered (nil: none)
}

// handOverPlan queues the plan's events in line order (eventq.go).
func (l *Lane) handOverPlan(out *cmdResult, p plan, res store.CommitResult) {
	if p.events != nil && l.cfg.Listener != nil {
		out.delivery = l.handOver(p.events(res))
	}
}

// command runs planner on the line against the authoritative in-process
// state, commits at most once and then installs the next state (pi's
// Lane.command). Planner and commit errors fault the lane.
func (l *Lane) command(name Command, planner func(cur view) (plan, error)) (store.CommitResult, bool, error) {
	fut, out := l.commandAsync(name, planner)
	if err := fut.Wait(); err != nil {
		return out.res, false, err
	}
	l.awaitDelivery(out.delivery)
	return out.res, out.committed, nil
}

// commandAsync enqueues a command without waiting for it.
func (l *Lane) commandAsync(name Command, planner func(cur view) (plan, error)) (env.Future, *cmdResult) {
	out := &cmdResult{}
	fut := l.line.Run(string(name), func() error {
		l.mu.Lock()
		cur := l.view.clone()
		l.mu.Unlock()
		p, err := planner(cur)
		if err != nil {
			var rej *rejectError
			if errors.As(err, &rej) {
				return rej.err
			}
			return l.faultWith(err)
		}
		if !p.commit {
			l.handOverPlan(out, p, store.CommitResult{})
			return nil
		}
		l.beginCommit()
		r, err := l.commitWrites(p.writes)
		if err != nil {
			l.mu.Lock()
			l.endCommitLocked()
			l.mu.Unlock()
			return l.faultWith(err)
		}
		l.mu.Lock()
		l.view = p.next
		if p.applied != nil {
			p.applied()
		}
		l.endCommitLocked()
		l.mu.Unlock()
		out.res, out.committed = r, true
		l.handOverPlan(out, p, r)
		return nil
	})
	return fut, out
}

// commitWrites commits and reports telemetry. Like pi's session mutator it
// refuses, before storage sees it, a transaction that inserts a pending
// assistant message; the command then faults the lane.
func (l *Lane) commitWrites(writes []store.Write) (store.CommitResult, error) {
	if err := refusePending(writes); err != nil {
		return store.CommitResult{}, err
	}
	res, err := l.cfg.Storage.Commit(writes)
	if l.cfg.Telemetry != nil {
		for i, w := range writes {
			rec := TelemetryRecord{Kind: string(w.Kind), Op: string(w.Op), Namespace: w.Namespace, Key: w.Key, Bytes: len(w.Value), Failed: err != nil}
			if err == nil && i < len(res.Seqs) {
				rec.Seq = res.Seqs[i]
			}
			l.cfg.Telemetry(rec)
		}
	}
	return res, err
}

func (l *Lane) now() float64 { return float64(l.cfg.Clock.Now().UnixMilli()) }

// setLive marks a stream as owned (partial may be nil before start).
func (l *Lane) setLive(op, resp string, partial *pi.AssistantMessage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.fault != nil {
		return
	}
	l.live = &liveStream{op: op, responseEntryID: resp, partial: partial}
}

func (l *Lane) dropLive(resp string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cfg.bugs.on(bugSnapshotShowsDeadLivePartial) {
		return
	}
	if l.live != nil && l.live.responseEntryID == resp {
		l.live = nil
	}
}
