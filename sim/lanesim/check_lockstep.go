package lanesim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	modelframes "github.com/frameproof/frameproof/model/frames"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/lanecmp"
)

// The lockstep model: model/lane runs beside the lane process and is fed
// the decisions the simulator observes, at the moment they take effect on
// the FIFO line (a commit's acknowledgement, a line item's resolution), not
// when a caller gets control back: cancel and finalize actors commit in
// between. The comparisons are sim/lanecmp's (committed state, events,
// snapshots, step results); a disagreement fails the run as
// "model-mismatch".

// stepCommands are the first commands of drive steps: at their turn the
// model re-checks what the step was dispatched on (model StepTurn). A
// deferred step's source read is its first; a poll's intent re-checks.
var stepCommands = map[lane.Command]bool{lane.CmdIntent: true, lane.CmdPollIntent: true, lane.CmdRetryReady: true, lane.CmdRecoveryRead: true,
	lane.CmdFinish: true, lane.CmdAbortedTerminal: true, lane.CmdStartRead: true, lane.CmdCheckpoint: true, lane.CmdDeferredSource: true,
	lane.CmdThresholdRead: true, lane.CmdConfigurationFailure: true}

// laterCommands are a step's commands after its first: at their turn
// without a commit the model checks that the operation is still there
// (model CommandTurn).
var laterCommands = map[lane.Command]bool{lane.CmdStart: true, lane.CmdOverflowPreparation: true, lane.CmdSettle: true,
	lane.CmdToolIntent: true, lane.CmdToolOutcome: true, lane.CmdToolPlace: true, lane.CmdToolReplayClear: true}

// Coverage rows outside the race table (Outcome.RaceOrders reports them):
// which drive command met pi's lost-operation fault, and whether a run
// start created the lane's configuration or changed it (setConfiguration).
const (
	rowLostOperation      = "lost-operation-fault"
	rowLaneConfig         = "lane-configuration"
	orderLaneCreated      = "created"
	orderLaneReconfigured = "reconfigured"
)

// lostFault says whether err is the harness fault of a command that found
// no current operation (pi's null state.operation read).
func lostFault(err error) bool {
	var hf *lane.HarnessFault
	return errors.As(err, &hf) && hf.Cause.Error() == ml.LostOperationFault
}

// readCommands are step commands that commit nothing even when the
// operation is still what the step was dispatched on.
var readCommands = map[lane.Command]bool{lane.CmdRecoveryRead: true, lane.CmdStartRead: true, lane.CmdDeferredSource: true, lane.CmdThresholdRead: true}

// singleTX are step commands whose commit is the whole step (the model
// applies them in StepDone).
var singleTX = map[lane.Command]bool{lane.CmdRetryReady: true, lane.CmdFinish: true, lane.CmdAbortedTerminal: true, lane.CmdStart: true,
	lane.CmdConfigurationFailure: true}

type finalizeReq struct{ status, code, msg string }

// lineItem is one admitted line item of the current process.
type lineItem struct {
	name      lane.Command
	committed bool
	resolved  bool
	// queuedAt is when the lane queued the item: a tool outcome's message
	// reads the clock right before (tools.ts createToolResultMessage and
	// syntheticMessage: Date.now() before publishToolOutcome's command)
	queuedAt float64
}

// lockstep is the model side of one run.
type lockstep struct {
	r *runner
	m *ml.Model
	// commitTS is the timestamp of the acknowledged commit whose input is
	// being applied (nil outside afterAck)
	commitTS *float64
	// reader remembers what it derived from stored bytes across the run's
	// comparisons (one per commit), so each compare parses only new records.
	reader lanecmp.Reader
	// txCompared counts the transactions whose write lists were compared
	// with the model's (check_tx.go)
	txCompared int

	// event streams since the last restart (a crash may cut the
	// implementation's events anywhere; the model states what was due)
	impl                []string
	implBase, modelBase int
	// frameKeys are the frame lists of the responses the lane enqueued a
	// frame for, sorted, without repeats
	frameKeys []string
	// undelivered counts the current process's event batches handed over
	// and not yet delivered: a step that committed no batch of its own
	// returns without awaiting another caller's (pi's command awaits only
	// its own delivery), so its events are compared exactly only when none
	// is in flight
	undelivered int

	// process-local
	items     []*lineItem
	finalizes []finalizeReq
	// unqueues are the queuer's CancelQueued calls admitted to the line and
	// not yet at their turn, oldest first
	unqueues  []*unqueueReq
	stepping  bool
	early     *ml.Outcome  // a single-TX step's outcome, applied at its commit
	inflight  func() error // the model input of a commit in flight (not acked)
	inflightW []store.Write
	frameTurn bool // the commit in flight is a frame append
	// frameTX holds acknowledged frame appends' writes until the lane
	// reports them committed (the line is FIFO: in the same order)
	frameTX [][]store.Write
	// pin, when set, is the model's clock (the instant the lane read its
	// clock for the input being fed)
	pin *float64
	// startedAt is when StartRun read its clock: when it called StartRun,
	// or, once the lane's acquisition returned, when it queued the run's
	// acceptance (starting: a StartRun call is under way)
	startedAt float64
	starting  bool
	// commitAt is when the commit in flight was planned (the lane reads its
	// clock in the planner; commit latency may pass before it lands)
	commitAt float64
	// recoverTurn: the step's recovery read found its effect current
	recoverTurn bool
	// replayClears counts this process's tool-replay-clear commits whose
	// recovery tool_start has not been seen yet (the coverage row's
	// "replayed": each such commit emits exactly one, right after it)
	replayClears int
	// captures collect, for each compared capture waiting on the line, the
	// model's capture at every cut meanwhile (capturecut.go)
	captures []*modelCuts
}

// modelMutant selects a deliberately broken model/lane variant (tests only:
// the lockstep comparison must reject it).
var modelMutant string

// now is the model's lane clock: the pinned instant of the input being
// applied, else the world's.
func (ls *lockstep) now() float64 {
	if ls.pin != nil {
		return *ls.pin
	}
	return float64(ls.r.w.Now().UnixMilli())
}

func newLockstep(r *runner) *lockstep {
	ls := &lockstep{r: r}
	ls.m = ml.New(ml.Config{
		Lane:                laneName,
		Now:                 ls.now,
		NewObserver:         func() ml.Observer { return modelframes.NewObserver() },
		FrameBudget:         r.p.frameBudget,
		SkipStaleSettlement: !r.p.lostFaults,
		Tools:               modelTools(),
		Mutant:              modelMutant,
		// the lane's ToolExecution option (pi's default off: the run's
		// settings decide, runParallel unless "sequential")
		SequentialTools: r.p.sequentialTools,
		ContextWindows:  r.p.contextWindows(),
		// the queuer and canceller commit beside a recovery's frame read
		SyntheticAtRead: true,
		// the acknowledged commit's timestamp; else (an input recovery
		// found committed) the lane clock at the commit
		CommitTime: func() float64 {
			if ls.commitTS != nil {
				return *ls.commitTS
			}
			return ls.now()
		},
	})
	return ls
}

// mismatch fails the run with the (trimmed) disagreement.
func (ls *lockstep) mismatch(where string, err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	if len(msg) > 4000 {
		msg = msg[:4000] + "\n…(trimmed)"
	}
	ls.r.fail(campaign.KindModelMismatch, "%s: %s", where, msg)
	return true
}

// ---- line tracking (executor wrapper) ----

// lockExec wraps the lane process's executor: it tracks the line items of
// the process so that a commit knows which command it belongs to, and feeds
// the model when an item resolves without committing.
type lockExec struct {
	env.Executor
	ls  *lockstep
	gen int
}

func (e *lockExec) NewFuture(name string) env.Completer {
	f := e.Executor.NewFuture(name)
	if name == "lane:events" && e.gen == e.ls.r.gen {
		e.ls.undelivered++
		return &batchFuture{Completer: f, e: e}
	}
	cmd, ok := lane.LineCommand(name)
	if !ok || e.gen != e.ls.r.gen {
		// a line of a lost process (a capture queued on it after the
		// restart) is not the current line: its items never run
		return f
	}
	// the item lives in its future: one allocation for both
	lf := &lockFuture{Completer: f, e: e, item: lineItem{name: cmd, queuedAt: float64(e.ls.r.w.Now().UnixMilli())}}
	it := &lf.item
	lf.it = it
	e.ls.items = append(e.ls.items, it)
	if cmd == lane.CmdThresholdRead {
		e.ls.r.cancelAim.readAdmitted(e.ls.r.ln)
	}
	if cmd == lane.CmdStartRun && e.ls.starting {
		// StartRun reads its clock right before it queues the run's
		// acceptance, after its acquisition's transactions and their
		// lane_created/config_update deliveries (admission is synchronous)
		e.ls.startedAt = it.queuedAt
	}
	return lf
}

type lockFuture struct {
	env.Completer
	e    *lockExec
	it   *lineItem // &item
	item lineItem
}

// Wait: a recovery step reads its clock as soon as its frame read returns.
func (f *lockFuture) Wait() error {
	err := f.Completer.Wait()
	ls := f.e.ls
	if f.it.name == lane.CmdRecoveryRead && err == nil && ls.live(f.e.gen) && ls.stepping && ls.recoverTurn {
		ls.recoverTurn = false
		ls.mismatch("synthetic read", ls.m.SyntheticRead(float64(ls.r.w.Now().UnixMilli())))
		ls.r.prefix.noteBudgetedRecovery()
	}
	return err
}

func (f *lockFuture) Resolve(err error) {
	if !f.it.resolved {
		f.it.resolved = true
		f.e.ls.resolved(f.e.gen, f.it, err)
	}
	f.Completer.Resolve(err)
}

// batchFuture is an event batch's delivery (impl/lane eventq.go).
type batchFuture struct {
	env.Completer
	e    *lockExec
	done bool
}

func (f *batchFuture) Resolve(err error) {
	if !f.done && f.e.gen == f.e.ls.r.gen {
		f.e.ls.undelivered--
	}
	f.done = true
	f.Completer.Resolve(err)
}

// resolvedPrefix is how many items in front are resolved.
func resolvedPrefix(items []*lineItem) int {
	n := 0
	for n < len(items) && items[n].resolved {
		n++
	}
	return n
}

// head is the running line item: the oldest unresolved one.
func (ls *lockstep) head() *lineItem {
	// drop the resolved items in front, keeping the slice's start so that
	// appends reuse its array
	if n := resolvedPrefix(ls.items); n > 0 {
		k := copy(ls.items, ls.items[n:])
		clear(ls.items[k:])
		ls.items = ls.items[:k]
	}
	for _, it := range ls.items {
		if !it.resolved {
			return it
		}
	}
	return nil
}

func (ls *lockstep) live(gen int) bool {
	r := ls.r
	return gen == r.gen && r.alive() && !r.failed
}

// ---- feeding ----

// beforeCommit runs at a commit's turn, before it reaches storage: it
// prepares the model input the commit stands for. The input is applied when
// the commit is acknowledged (afterAck) or, if the commit fails or the
// process dies mid-commit, when recovery finds that it survived.
func (ls *lockstep) beforeCommit(ws []store.Write) {
	r := ls.r
	it := ls.head()
	if it == nil {
		r.fail(campaign.KindModelMismatch, "a commit outside the mutation line: %s", describeWrites(ws))
		return
	}
	it.committed = true
	if it.name == lane.CmdToolReplayClear {
		ls.replayClears++
	}
	if stepCommands[it.name] && ls.stepping {
		skipped, err := ls.m.StepTurn()
		if err != nil && ls.mismatch("step turn ("+string(it.name)+")", err) {
			return
		}
		if skipped {
			r.fail(campaign.KindModelMismatch, "%s committed although the operation moved on since the step was dispatched (the model skips it): %s", it.name, describeWrites(ws))
			return
		}
	}
	feed := ls.inputFor(it.name, ws)
	at := ls.commitAt
	switch it.name {
	case lane.CmdStartRun:
		at = ls.startedAt
	case lane.CmdToolOutcome:
		at = it.queuedAt
	}
	ls.inflightW = ws
	ls.inflight = func() error {
		ls.pin = &at
		defer func() { ls.pin = nil }()
		return feed()
	}
	ls.frameTurn = it.name == lane.CmdFrame
}

// commitPlanned: a commit arrived at storage (before its latency).
func (ls *lockstep) commitPlanned() { ls.commitAt = float64(ls.r.w.Now().UnixMilli()) }

// afterAck applies the acknowledged commit's model input and compares the
// transaction's writes and the committed state.
func (ls *lockstep) afterAck(ws []store.Write, res store.CommitResult) {
	ts := float64(res.Timestamp)
	ls.commitTS = &ts
	defer func() { ls.commitTS = nil }()
	feed := ls.inflight
	ls.inflight, ls.inflightW = nil, nil
	if feed == nil || ls.r.failed {
		return
	}
	if ls.frameTurn {
		// an acknowledged frame is fed by onFrame, with its index
		ls.frameTX = append(ls.frameTX, ws)
		return
	}
	ls.m.TakeTX() // forget an earlier input's list nobody compared
	if ls.mismatch("model input", feed()) || !ls.compareTX("transaction", ws) {
		return
	}
	ls.compareState("after commit")
}

// inputFor maps a command's writes to the model input it stands for.
func (ls *lockstep) inputFor(name lane.Command, ws []store.Write) func() error {
	m := ls.m
	switch name {
	case lane.CmdStartRun:
		var op, user string
		for _, w := range ws {
			if w.Kind == store.WriteEntry && w.Entry != nil {
				user = w.Entry.ID
			}
			if w.Kind == store.WriteValue && w.Namespace == lane.NSOpMeta {
				op = w.Key
			}
		}
		run := modelRun(ls.r.runOptions())
		run.Compaction = &simCompaction
		return func() error { return m.StartRun(op, user, run) }
	case lane.CmdLaneConfig:
		return ls.laneConfigInput(ws)
	case lane.CmdIntent, lane.CmdPollIntent:
		for _, w := range ws {
			if w.Kind == store.WriteValue && w.Namespace == lane.NSOpState && w.Op == store.OpSet {
				st, err := ls.r.memo.decodeState(w.Value)
				if err != nil {
					return func() error { return fmt.Errorf("intent state: %w", err) }
				}
				op := w.Key
				return func() error { return m.Intent(op, st.ResponseEntryID, st.UsageID, st.Attempt) }
			}
		}
		return func() error { return fmt.Errorf("%s commit without an operation state: %s", name, describeWrites(ws)) }
	case lane.CmdSettle:
		ids := plannedToolResults(ws, ls.r.memo.decodeState)
		return func() error {
			if err := m.PlanToolResults(ids); err != nil {
				return err
			}
			return m.Settle()
		}
	case lane.CmdCancel:
		return func() error { m.Cancel(); return nil }
	case lane.CmdEnqueue:
		return enqueueInput(ls, ws)
	case lane.CmdCancelQueued:
		return ls.unqueueInput(ws)
	case lane.CmdFinalize:
		req, ok := ls.popFinalize()
		return func() error {
			if !ok {
				return fmt.Errorf("a finalization committed that nobody issued")
			}
			committed, err := m.Finalize(req.status, req.code, req.msg)
			if !committed {
				return fmt.Errorf("finalize %s committed; the model has no current operation or refuses it (%v)", req.status, err)
			}
			return nil
		}
	case lane.CmdCheckpoint:
		step, task := mintedStepID(ws, ls.r.memo.decodeState), ls.thresholdTask(name, ws)
		return func() error {
			m.BoundaryTask(task)
			if err := m.Checkpoint(step); err != nil {
				return err
			}
			out, err := m.StepDone(true)
			ls.early = &out
			return err
		}
	case lane.CmdFinish:
		// a may_finish boundary that placed queued input minted a step
		step, task := mintedStepID(ws, ls.r.memo.decodeState), ls.thresholdTask(name, ws)
		return func() error {
			m.BoundaryStep(step)
			m.BoundaryTask(task)
			out, err := m.StepDone(true)
			ls.early = &out
			return err
		}
	case lane.CmdToolIntent, lane.CmdToolOutcome, lane.CmdToolReplayClear, lane.CmdToolPlace:
		return ls.toolInputFor(name, ws)
	case lane.CmdFrame:
		// acknowledged frames are fed by onFrame (it carries the event
		// index); a frame in flight is the oldest queued one
		resp, idx := ls.oldestQueued(ws)
		return func() error { return m.FrameCommitted(resp, idx) }
	}
	if name == lane.CmdConfigurationFailure {
		ls.r.race(rowUnavailable, unavailableCode(ws))
	}
	if singleTX[name] {
		return func() error {
			out, err := m.StepDone(true)
			ls.early = &out
			return err
		}
	}
	return func() error { return fmt.Errorf("unmodelled command %q committed: %s", name, describeWrites(ws)) }
}

// laneConfigInput is the lane acquisition a run start commits first: pi's
// Harness.lane creation, or setConfiguration when the run brings another
// configuration (counted in the lane-configuration coverage row).
func (ls *lockstep) laneConfigInput(ws []store.Write) func() error {
	m, run := ls.m, modelRun(ls.r.runOptions())
	return func() error {
		if m.CommittedShared().Config == "" {
			ls.r.race(rowLaneConfig, orderLaneCreated)
		} else {
			ls.r.race(rowLaneConfig, orderLaneReconfigured)
		}
		if !m.Acquire(ml.LaneConfig{Model: run.Model, ThinkingLevel: run.ThinkingLevel, ActiveToolNames: run.ActiveToolNames}) {
			return fmt.Errorf("pi.lane.config committed although the lane has the run's configuration: %s", describeWrites(ws))
		}
		return nil
	}
}

// toolInputFor maps a tool batch's transaction to the model's tool input;
// the call each names comes from the transaction's own writes.
func (ls *lockstep) toolInputFor(name lane.Command, ws []store.Write) func() error {
	m := ls.m
	switch name {
	case lane.CmdToolIntent:
		id, err := toolIntentResult(ws, ls.r.memo.decodeState)
		return func() error {
			if err != nil {
				return err
			}
			return m.ToolIntent(id)
		}
	case lane.CmdToolOutcome:
		id := toolOutcomeResult(ws)
		return func() error { return m.ToolOutcome(id) }
	case lane.CmdToolReplayClear:
		id := toolReplayResult(ws)
		return func() error { return m.ToolReplayClear(id) }
	}
	return m.PlaceTools
}

// oldestQueued is the frame an in-flight append commits: the oldest
// enqueued, unsettled frame of its response in this process.
func (ls *lockstep) oldestQueued(ws []store.Write) (string, int) {
	for _, w := range ws {
		if w.Kind != store.WriteList || w.Namespace != lane.NSAssistantFrame {
			continue
		}
		_, resp, _ := strings.Cut(w.Key, ":")
		for _, t := range ls.r.tracks[resp] {
			if t.gen == ls.r.gen && t.outcome == lane.FrameEnqueued {
				return resp, t.rec.EventIndex
			}
		}
		return resp, -1
	}
	return "", -1
}

// resolved: a line item of process gen resolved. Items that committed were
// fed at their acknowledgement; here the ones that did not.
func (ls *lockstep) resolved(gen int, it *lineItem, err error) {
	defer ls.noteCapture()
	if !ls.live(gen) || it.committed {
		return
	}
	if ls.stepping && err != nil && lostFault(err) {
		ls.r.race(rowLostOperation, string(it.name))
	}
	switch {
	case it.name == lane.CmdFinalize:
		req, ok := ls.popFinalize()
		if !ok {
			ls.r.fail(campaign.KindModelMismatch, "a finalization resolved that nobody issued")
			return
		}
		if !errors.Is(err, lane.ErrNoOperation) && !errors.Is(err, lane.ErrResultError) {
			return
		}
		committed, refusal := ls.m.Finalize(req.status, req.code, req.msg)
		switch {
		case committed:
			ls.r.fail(campaign.KindModelMismatch, "finalize %s: impl %v; the model had an operation and terminated it", req.status, err)
		case (refusal != nil) != errors.Is(err, lane.ErrResultError):
			ls.r.fail(campaign.KindModelMismatch, "finalize %s: impl %v, model refusal %v", req.status, err, refusal)
		}
	case it.name == lane.CmdCancelQueued:
		ls.unqueueDeclined(err)
	case it.name == lane.CmdToolPlacementRead && ls.stepping && err == nil:
		// materializeReady emits the results' message events before the
		// placement commits
		ls.mismatch("tool placement read", ls.m.ToolPlacementRead())
	case laterCommands[it.name] && ls.stepping && (err == nil || lostFault(err) || strings.Contains(err.Error(), "no longer current")):
		if err := ls.m.CommandTurn(); err != nil {
			ls.mismatch("command turn ("+string(it.name)+")", err)
		}
	case stepCommands[it.name] && ls.stepping && (err == nil || lostFault(err) || strings.Contains(err.Error(), "no longer current")):
		skipped, serr := ls.m.StepTurn()
		if serr != nil && ls.mismatch("step turn ("+string(it.name)+")", serr) {
			return
		}
		ls.recoverTurn = !skipped && it.name == lane.CmdRecoveryRead
		if skipped && it.name == lane.CmdThresholdRead {
			ls.r.race(rowThreshold, ls.r.thresholdDeclined())
		}
		if skipped && ls.r.p.thresholdOver > 0 && (it.name == lane.CmdFinish || it.name == lane.CmdCheckpoint) && ls.r.thresholdDeclined() == orderThresholdCancelled {
			ls.r.race(rowThreshold, orderBoundaryCancelled+":"+string(it.name))
		}
		if !skipped && !readCommands[it.name] {
			ls.r.fail(campaign.KindModelMismatch, "%s committed nothing although the operation is still what the step was dispatched on", it.name)
		}
	}
}

func (ls *lockstep) popFinalize() (finalizeReq, bool) {
	if len(ls.finalizes) == 0 {
		return finalizeReq{}, false
	}
	f := ls.finalizes[0]
	ls.finalizes = ls.finalizes[1:]
	return f, true
}

// issueFinalize records a finalization about to be admitted to the line
// (call right before Finalize/FinalizeAsync: admission is synchronous).
func (ls *lockstep) issueFinalize(status string, e *lane.OpError) {
	req := finalizeReq{status: status}
	if e != nil {
		req.code, req.msg = e.Code, e.Message
	}
	ls.finalizes = append(ls.finalizes, req)
}

// onFrame feeds the frame pipeline.
func (ls *lockstep) onFrame(fr lane.FrameRecord) {
	defer ls.noteCapture()
	var err error
	switch fr.Outcome {
	case lane.FrameEnqueued:
		ls.noteFrameKey(ml.FramesKey(fr.OperationID, fr.ResponseEntryID))
		err = ls.m.FrameEnqueued(fr.ResponseEntryID, fr.EventIndex, fr.EventType, fr.Frame)
	case lane.FrameCommitted:
		ls.m.TakeTX()
		if err = ls.m.FrameCommitted(fr.ResponseEntryID, fr.EventIndex); err == nil {
			if len(ls.frameTX) == 0 {
				ls.mismatch("frame append", fmt.Errorf("the lane reports frame %s:%d committed, but no acknowledged append is waiting to be compared", fr.ResponseEntryID, fr.EventIndex))
				return
			}
			ws := ls.frameTX[0]
			ls.frameTX = ls.frameTX[1:]
			if !ls.compareTXAt(func() string { return fmt.Sprintf("frame append %s:%d", fr.ResponseEntryID, fr.EventIndex) }, ws) {
				return
			}
		}
	case lane.FrameDeclined:
		err = ls.m.FrameDeclined(fr.ResponseEntryID, fr.EventIndex)
	}
	// where is formatted only for a mismatch
	if err != nil {
		ls.mismatch(fmt.Sprintf("frame %s %s:%d", fr.Outcome, fr.ResponseEntryID, fr.EventIndex), err)
	} else if fr.Outcome == lane.FrameCommitted {
		ls.compareState("after frame commit")
	}
}

// providerEvent feeds one consumed provider event; a transport failure is
// the error event pi-ai's providers turn it into (stopReason "error", the
// failure's message, the latest partial).
func (ls *lockstep) providerEvent(ev *pi.Event) {
	// the where is built only for a mismatch: this runs at every event
	if err := ls.m.ProviderEvent(ev); err != nil {
		ls.mismatch("provider event "+string(ev.Type), err)
	}
}

func (ls *lockstep) transportFailure(last *pi.AssistantMessage, err error) {
	var m *pi.AssistantMessage
	if last != nil {
		m = last.Clone()
	} else {
		m = &pi.AssistantMessage{Content: []pi.Content{}, API: "unknown", Provider: simProvider, Model: simModel, Timestamp: float64(ls.r.w.Now().UnixMilli())}
	}
	m.StopReason, m.ErrorMessage = pi.StopError, pi.Str(err.Error())
	ls.providerEvent(&pi.Event{Type: pi.EventError, Reason: pi.StopError, Message: m})
}

// beginAbort: a cancel request is about to be made (pi's
// requestOperationAbort begins the drive's abort before its command).
func (ls *lockstep) beginAbort() { ls.m.BeginAbort() }

// admit: the lane made a provider request (or poll) for its intent.
func (ls *lockstep) admit() { ls.mismatch("effect admission", ls.m.Admit()) }

// toolAdmitted: the lane's effect gate admitted a tool run (the simulated
// tool started).
func (ls *lockstep) toolAdmitted() { ls.mismatch("tool admission", ls.m.ToolAdmitted()) }

func (ls *lockstep) afterResponse() {
	ls.mismatch("after_response", ls.m.AfterResponse())
}

// laneEvent, frame and reopened subscribe the lockstep model to the
// runner's events (checkers.go).
func (ls *lockstep) laneEvent(ev lane.Event) { ls.onEvent(ev) }

func (ls *lockstep) frame(fr lane.FrameRecord) { ls.onFrame(fr) }

func (ls *lockstep) reopened(_ *lane.Lane, snap *lane.Snapshot) bool {
	return ls.compareSnapshot("snapshot of the reopened lane", snap)
}

// lockstepCapture compares the capture of a reopened lane with the model's.
// A capture waits on the line, so it subscribes after the checks of the
// reopened lane's snapshot (checkers.go).
type lockstepCapture struct{ ls *lockstep }

func (c lockstepCapture) reopened(ln *lane.Lane, _ *lane.Snapshot) bool {
	return c.ls.compareCapture("capture of the reopened lane", ln)
}

// onEvent records an implementation event and checks it against the
// events the model says are due.
func (ls *lockstep) onEvent(ev lane.Event) {
	s := lanecmp.EventString(ev)
	ls.impl = append(ls.impl, s)
	if ls.compareEventsAt(func() string { return "event " + s }, false) {
		ls.r.seqs.checkEventSeq(ev)
	}
}

func (ls *lockstep) compareEvents(where string, exact bool) bool {
	return ls.compareEventsAt(func() string { return where }, exact)
}

// compareEventsAt is compareEvents naming where only for a mismatch (an
// event's comparison names the event, formatted only then).
func (ls *lockstep) compareEventsAt(where func() string, exact bool) bool {
	ls.r.checks++
	impl := ls.impl[ls.implBase:]
	model := ls.m.EventsShared()[ls.modelBase:] // read here only
	exact = exact && ls.undelivered == 0
	if len(impl) > len(model) || (exact && len(impl) != len(model)) || !equalPrefix(impl, model) {
		return !ls.mismatch(where(), lanecmp.CompareEvents(impl, model, exact))
	}
	return true
}

func equalPrefix(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compareState compares the acknowledged committed state (the reference
// store holds exactly the acknowledged commits) with the model's.
func (ls *lockstep) compareState(where string) bool {
	return ls.compareStorage(where, ls.r.ref)
}

// verifyViews makes every lockstep comparison of the reference store check
// its incremental view against a full read (lanecmp.Reader.VerifyViews),
// and every invariants check its incremental log scan against a full scan
// (invariants.LogScan.VerifyFull): set by the tests that prove the two
// agree, never by a campaign.
var verifyViews bool

// viewAgrees checks, once a run ends, that the comparison's incremental
// view of the reference store (lanecmp.Changes) still reads what a full
// read of it does; it counts no check of its own, as it checks the
// checker: a difference is a bug of the view, reported as a mismatch.
func (ls *lockstep) viewAgrees() bool {
	keys := append(ls.m.ListKeys(), ls.keys()...)
	return !ls.mismatch("end of run", ls.reader.VerifyView(ls.r.ref, ls.m.Lane(), ls.m.OpIDs(), keys))
}

func (ls *lockstep) compareStorage(where string, st store.Storage) bool {
	ls.r.checks++
	return !ls.mismatch(where, ls.reader.Compare(st, ls.m, ls.keys()...))
}

// keys are the frame lists the lane enqueued frames for, sorted: the
// comparison reads them in this order, so the first read error it reports
// is the same on every run of a seed. The slice is ls's own, kept sorted
// as keys arrive (noteFrameKey), not sorted again at every comparison: a
// caller only reads it, and its capacity ends at its length, so an append
// copies instead of writing into ls's array (as listIndex.sortedKeys).
func (ls *lockstep) keys() []string { return ls.frameKeys[:len(ls.frameKeys):len(ls.frameKeys)] }

// noteFrameKey adds k to the sorted frameKeys unless it is there.
func (ls *lockstep) noteFrameKey(k string) {
	ls.frameKeys = insertSorted(ls.frameKeys, k)
}

func (ls *lockstep) compareSnapshot(where string, snap *lane.Snapshot) bool {
	ls.r.checks++
	got, err := ls.reader.SnapshotForm(snap)
	if err != nil {
		return !ls.mismatch(where, fmt.Errorf("lanecmp: snapshot: %w", err))
	}
	return !ls.mismatch(where, lanecmp.CompareForms(got, ls.m.Snapshot(), "snapshot"))
}

// compareCapture checks ln's capture (pi's captureLaneSnapshot) against the
// model's.
func (ls *lockstep) compareCapture(where string, ln *lane.Lane) bool {
	ls.r.checks++
	cuts := ls.watchCaptures()
	c, err := ln.Capture()
	ls.unwatchCaptures(cuts)
	if err != nil {
		ls.r.captureFailed(ln, where, err)
		return false
	}
	return !ls.mismatch(where, cuts.match(&ls.reader, c))
}

// startRun wraps StartRun: the model's clock reads the time the lane read.
func (ls *lockstep) startRun(do func() (string, error)) (string, error) {
	ls.startedAt, ls.starting = float64(ls.r.w.Now().UnixMilli()), true
	defer func() { ls.starting = false }()
	return do()
}

// ---- steps ----

// step wraps one drive step: the model says what it must do, the lane does
// it, the outcomes and everything observable are compared.
func (ls *lockstep) step(permit bool, do func() (lane.StepResult, error)) (lane.StepResult, error, bool) {
	r := ls.r
	gen := r.gen
	exp, err := ls.m.Step(permit)
	if ls.mismatch("step", err) {
		return lane.StepResult{}, nil, false
	}
	ls.stepping, ls.early = true, nil
	res, serr := do()
	if !ls.live(gen) || r.closing {
		return res, serr, true // the process died or closes: restart resyncs
	}
	ls.stepping = false
	var want ml.Outcome
	done := false // want holds the model's StepDone
	if exp.Kind == "fault" {
		// a deferred step's source read decides at its turn: the refusal,
		// pi's lost-operation fault, or a continue after a cancel
		if want, err = ls.m.StepDone(true); ls.mismatch("step done (fault)", err) {
			return res, nil, false
		}
		if want.Kind == "fault" {
			ferr := ls.stepFaulted(exp.Kind, want.Reason, res, serr)
			return res, ferr, ferr != nil
		}
		done = true
	}
	if lostFault(serr) && !r.faultPending && !done {
		// a command found its operation finalized (pi's fault): the model
		// says so at the step's end
		want, err := ls.m.StepDone(true)
		if err != nil && ls.mismatch("step done ("+exp.Kind+")", err) {
			return res, nil, false
		}
		if want.Kind != "fault" {
			r.fail(campaign.KindModelMismatch, "step (%s): impl faulted (%v), model expects %+v", exp.Kind, serr, want)
			return res, nil, false
		}
		ferr := ls.stepFaulted(exp.Kind, want.Reason, res, serr)
		return res, ferr, ferr != nil
	}
	if serr != nil {
		return res, serr, true
	}
	if ls.early != nil {
		want = *ls.early // StepDone ran at the step's commit
	} else if !done {
		if want, err = ls.m.StepDone(true); err != nil && ls.mismatch("step done ("+exp.Kind+")", err) {
			return res, nil, false
		}
	}
	got := ml.Outcome{Kind: res.Kind.String(), Reason: res.Reason, Status: res.Status}
	if got != want {
		r.fail(campaign.KindModelMismatch, "step (%s): impl returned %+v, model expects %+v", exp.Kind, got, want)
		return res, nil, false
	}
	what := "step " + exp.Kind // the checks' where, made once
	if !ls.compareState(what) {
		return res, nil, false
	}
	if !ls.compareEvents(what, true) {
		return res, nil, false
	}
	snap, err := r.ln.Snapshot()
	if err != nil {
		r.captureFailed(r.ln, "snapshot after step", err)
		return res, nil, false
	}
	// the capture waits on the line: the snapshot checks come first
	if !ls.compareSnapshot("snapshot after "+what, snap) ||
		!r.client.check(what) || !r.inv.check(what, snap, nil) {
		return res, nil, false
	}
	r.finalizer.beforeCapture(r.ln)
	r.cancelAim.beforeCapture(r.ln)
	return res, nil, ls.compareCapture("capture after "+what, r.ln)
}

// stepFaulted checks a step the model says faults: the lane reports a
// harness fault with exactly pi's message, having written and emitted
// nothing. The operation it faulted on stays current (every later step of
// it faults the same way): the driver finalizes it in the next process.
// It returns the fault for the driver, or nil after a failure.
func (ls *lockstep) stepFaulted(kind, reason string, res lane.StepResult, serr error) error {
	r := ls.r
	var hf *lane.HarnessFault
	if errors.As(serr, &hf) && r.faultPending {
		return serr // an injected storage fault came first: the driver restarts
	}
	if !errors.As(serr, &hf) || hf.Cause.Error() != reason {
		r.fail(campaign.KindModelMismatch, "step: impl returned %+v, error %v; model expects the harness fault %q", res, serr, reason)
		return nil
	}
	if !ls.compareState("step fault") || !ls.compareEvents("step fault", true) {
		return nil
	}
	if cur := r.ln.Current(); cur != nil {
		r.stuck = cur.ID
		r.fault(fmt.Sprintf("step of %s at %s (cancelled %t) faulted: %s", cur.ID, cur.State.At, cur.State.Control.CancelRequested, reason))
	} else {
		// the finalizer removed the operation: the next process starts the
		// next run, and other actors may meet the fault meanwhile
		r.injected = true
		r.fault(fmt.Sprintf("%s step faulted on a finalized operation: %s", kind, reason))
	}
	return serr
}

// ---- process loss ----

// restart: the process died or closed; storage reopened. A commit that was
// in flight at the loss and survived is the model input it stood for; then
// the model loses its process-local state, the events the dead process got
// to emit must be a prefix of what was due, and the reopened backend must
// equal the model.
func (ls *lockstep) restart(survived bool) bool {
	feed, ws := ls.inflight, ls.inflightW
	ls.inflight, ls.inflightW, ls.frameTX = nil, nil, nil
	if survived && feed != nil {
		ls.m.TakeTX()
		if ls.mismatch("surviving in-flight commit", feed()) || !ls.compareTX("surviving in-flight commit", ws) {
			return false
		}
	}
	if !ls.compareEvents("events before the process loss", false) {
		return false
	}
	ls.m.Crash()
	ls.items, ls.finalizes, ls.unqueues, ls.stepping, ls.early = nil, nil, nil, false, nil
	ls.implBase, ls.modelBase = len(ls.impl), len(ls.m.EventsShared())
	return ls.compareStorage("reopened storage", ls.r.st.Storage)
}

func describeWrites(ws []store.Write) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s %s/%s", w.Kind, w.Op, w.Namespace, w.Key)
	}
	return b.String()
}
