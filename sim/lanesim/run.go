package lanesim

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/invariants"
	"github.com/frameproof/frameproof/sim/linz"
	"github.com/frameproof/frameproof/sim/trace"
	"github.com/frameproof/frameproof/sim/world"
)

const laneName = "main"

// finalizerMessage marks the external finalizer's terminal records.
const finalizerMessage = "finalized by the simulator"

// frameTrack follows one enqueued frame through the line.
type frameTrack struct {
	rec     lane.FrameRecord
	outcome lane.FrameOutcome
	gen     int
	seq     int64
}

// runner is one run: the world, the current lane process and everything the
// checks need to remember across crashes.
type runner struct {
	p profile
	// fold is a watching client's view: a capture folded with every event
	// since (pi's reduceLaneSnapshot).
	fold *lane.ClientFold
	// openMessages counts this process's streams that delivered a pending
	// message_start and no message_end yet.
	openMessages int
	// foldCaptured: the fold still shows the reduction its capture read (an
	// orphaned response no stream has replaced yet).
	foldCaptured bool
	// views remembers decoded committed entries across invariant checks.
	views     invariants.ViewReader
	opts      Options
	w         *world.World
	rec       *linz.Recorder
	laneBugs  lane.Bugs
	storeBugs jsonl.Bugs
	be        backend

	gen     int // process generation (incarnation)
	proc    *world.Process
	ln      *lane.Lane
	st      *simStore
	closing bool // a close or restart is in progress: clients stand off
	closed  bool

	// ref holds exactly the acknowledged commits: the oracle for what any
	// backend must show after recovery.
	ref      *specStore // the store oracle: model/store (specstore.go)
	listKeys map[string]store.Address
	// rowSeq is the seq each acknowledged entry ("entry:id") and usage row
	// ("usage:id") got (txcheck.go)
	rowSeq   map[string]int64
	inflight []store.Write // a commit submitted but not acknowledged
	// faultPending: a storage fault was injected and has not yet faulted.
	faultPending bool
	injected     bool // a storage fault was injected in this run

	streams   map[string]*simStream // by response id
	cur       *simStream            // latest stream of the current process
	tracks    map[string][]*frameTrack
	delivered map[string]map[int]bool
	finalized map[string]bool
	lastResp  map[string]string
	intents   map[string]bool // response ids reserved by an acknowledged intent

	pendingActivation string // effect_pending response restored by the last restart
	pendingPoll       string // deferred effect_pending restored by the last restart
	permits           int
	pollCrashes       int // crashes aimed at deferred polls so far (≤ maxPollCrashes)
	permitWake        env.Completer
	plans             int

	doneFut  env.Completer
	finished bool

	failed     bool
	kind, msg  string
	raceOrders map[string][]string
	faults     []string
	checks     int
	// txCompared counts the transactions whose write lists were compared
	// with the model's; lastSeq is the last acknowledged seq (txcheck.go)
	txCompared int
	lastSeq    int64
	linz       *linzState
	ls         *lockstep
	invLog     []invariants.LogItem
	opIDs      map[string]bool

	// telemetrySeq is the seq of the last telemetry record checked
	// (check_telemetry.go)
	telemetrySeq int64

	// structural generation (structural.go)
	structural    [][2]string // (op, resp) pairs used, for invariant 11
	structKeys    map[string]bool
	structStreams map[string]*structStream
	structStarted int
	structDone    int
	structCrashes int
}

func run(p profile, src choice.Source, opts Options) Outcome {
	lb, sb, err := splitBugs(opts.Bugs)
	if err != nil {
		return Outcome{Failed: true, Kind: "setup", Message: err.Error()}
	}
	tr := trace.NewHashOnly()
	if opts.KeepTrace {
		tr = trace.New()
	}
	max := opts.MaxSteps
	if max <= 0 {
		max = StepBudget(src)
	}
	w := world.New(src, world.Options{Trace: tr, MaxSteps: int64(max)})
	r := &runner{p: p, opts: opts, w: w, laneBugs: lb, storeBugs: sb,
		listKeys: map[string]store.Address{}, rowSeq: map[string]int64{}, streams: map[string]*simStream{}, tracks: map[string][]*frameTrack{},
		delivered: map[string]map[int]bool{}, finalized: map[string]bool{}, lastResp: map[string]string{}, intents: map[string]bool{}, raceOrders: map[string][]string{}}
	r.rec = linz.NewRecorder(w.Step)
	r.linz = newLinzState(r)
	r.ls = newLockstep(r)
	r.opIDs = map[string]bool{}
	r.structKeys, r.structStreams = map[string]bool{}, map[string]*structStream{}
	be, err := newBackend(r)
	if err != nil {
		return Outcome{Failed: true, Kind: "setup", Message: err.Error()}
	}
	r.be = be
	defer be.close()
	werr := w.Run(r.main)
	var pe *world.PanicError
	if errors.As(werr, &pe) && fmt.Sprintf("%T", pe.Value) == "rapid.invalidData" {
		// rapid ran out of recorded data while replaying a candidate: hand
		// its marker back to rapid (on the test goroutine) so it discards
		// the candidate instead of calling it a failure
		panic(pe.Value)
	}
	if werr != nil && !r.failed {
		var be *world.BudgetError
		var de *world.DeadlockError
		switch {
		case errors.As(werr, &be):
			r.failed, r.kind, r.msg = true, "liveness", werr.Error()
		case errors.As(werr, &de):
			r.failed, r.kind, r.msg = true, "liveness", werr.Error()
		default:
			r.failed, r.kind, r.msg = true, "world", werr.Error()
		}
	}
	if !r.failed {
		r.linz.check()
	}
	out := Outcome{Failed: r.failed, Kind: r.kind, Message: r.msg, Steps: int(w.Step()), TraceHash: tr.Hash(),
		Races: map[string]string{}, RaceOrders: r.raceOrders, Linz: r.rec, Faults: r.faults, Checks: r.checks, TXCompared: r.txCompared,
		Structural: r.structDone}
	if d, ok := be.(diskImages); ok {
		out.CrashImages = d.images()
	}
	if opts.KeepTrace {
		out.Trace = tr
	}
	for row, orders := range r.raceOrders {
		out.Races[row] = orders[0]
	}
	return out
}

// fail records the first failure and stops the world.
func (r *runner) fail(kind, format string, args ...any) {
	if r.failed {
		return
	}
	r.failed, r.kind, r.msg = true, kind, fmt.Sprintf(format, args...)
	r.w.Note("failure", trace.F("kind", kind), trace.F("message", r.msg))
	r.w.Stop()
}

func (r *runner) check(ok bool, kind, format string, args ...any) bool {
	r.checks++
	if !ok {
		r.fail(kind, format, args...)
	}
	return ok
}

// race records that row took order in this run.
func (r *runner) race(row, order string) {
	for _, o := range r.raceOrders[row] {
		if o == order {
			return
		}
	}
	r.raceOrders[row] = append(r.raceOrders[row], order)
	r.w.Note("race", trace.F("row", row), trace.F("order", order))
}

// fault records an injected fault (trace, porcupine annotation, outcome).
func (r *runner) fault(what string) {
	r.faults = append(r.faults, what)
	r.rec.Fault(what, "")
	r.w.Note("fault", trace.F("what", what))
}

// simRetryCapMs caps retry delays below the second backoff (100 ms), so the
// campaign runs pi-ai's Math.min cap and the persisted maxAgentDelayMs.
const simRetryCapMs = 75.0

func (r *runner) runOptions() lane.RunOptions {
	limit := simRetryCapMs
	return lane.RunOptions{UserText: "question", Configuration: lane.Configuration{
		Model: lane.ModelRef{Provider: simProvider, ModelID: simModel}, ThinkingLevel: "off"},
		RetryPolicy: lane.RetryPolicy{MaxAttempts: r.p.maxAttempts, BaseDelayMs: 50, MaxAgentDelayMs: &limit}}
}

// nextPlan draws the next provider response; the first response of a
// deferred profile is a deferred handle.
func (r *runner) nextPlan(req lane.Request) respPlan {
	g := r.p.gen
	g.deferred = r.p.deferred && req.Deferred == nil && req.Attempt == 1
	r.plans++
	return genPlan(r.w, g)
}

// main is the root actor: it sets the world up, starts the daemons, waits
// for the driver to finish every operation and runs the end-of-run checks.
func (r *runner) main() {
	r.ref = newSpecStore(r.w)
	r.doneFut = r.w.NewFuture("done")
	if !r.startProcess() {
		return
	}
	root := r.w.Root()
	if r.p.crashes > 0 {
		root.Go("crasher", r.crasher)
	}
	if r.p.finalizer {
		root.Go("finalizer", r.finalizer)
	}
	if r.p.canceller {
		root.Go("canceller", r.canceller)
		root.Go("queuer", r.queuer)
	}
	if r.p.snapshots > 0 {
		root.Go("reader", r.reader)
	}
	if r.p.closer {
		root.Go("closer", r.closer)
	}
	if r.p.deferred {
		root.Go("poller", r.poller)
	}
	_ = r.doneFut.Wait()
	r.finished = true
	if r.permitWake != nil {
		r.permitWake.Resolve(nil)
	}
	r.finalChecks()
}

// startProcess opens storage and the lane in a fresh process and starts its
// driver. The first time it creates the storage.
func (r *runner) startProcess() bool {
	r.gen++
	r.fold, r.openMessages = nil, 0
	r.proc = r.w.NewProcess("lane")
	raw, err := r.be.open(r.proc)
	if err != nil {
		r.fail("recovery", "open storage (process %d): %v", r.gen, err)
		return false
	}
	r.st = &simStore{Storage: raw, r: r, gen: r.gen}
	if !r.reconcileStore() {
		return false
	}
	ln, err := lane.Open(lane.Config{Name: laneName, Storage: r.st, Clock: r.w, IDs: r.w, Exec: &lockExec{Executor: r.proc, ls: r.ls, gen: r.gen},
		Provider: simProviderImpl{r}, Listener: r.listener, AfterResponse: r.afterResponse,
		OnFrame: r.onFrame, Telemetry: r.onTelemetry, Bugs: r.laneBugs,
		// the finalizer races drive steps (frameproof's external finalization)
		SkipStaleSettlement: true})
	if err != nil {
		r.fail("recovery", "lane open (process %d): %v", r.gen, err)
		return false
	}
	r.ln, r.cur, r.closing, r.closed = ln, nil, false, false
	// permits are process-local: a restarted poller may or may not hold one
	r.permits = 0
	if r.p.deferred && r.gen > 1 && choice.Bool(r.w, "restart-permit") {
		r.permits = 1
	}
	mine := r.proc
	if snap, err := ln.Snapshot(); err != nil {
		r.fail("recovery", "snapshot of the reopened lane (process %d): %v", r.gen, err)
		return false
	} else if !r.ls.compareSnapshot("snapshot of the reopened lane", snap) ||
		!r.ls.compareCapture("capture of the reopened lane", ln) || !r.startClientFold(ln) ||
		!r.checkInvariants("reopened lane", snap, ln.Current()) {
		return false
	}
	r.checkRestored() // may wait (reconnect cancel): another restart may happen meanwhile
	if r.proc != mine || !mine.Alive() {
		return false
	}
	r.proc.Go("driver", r.driver)
	if r.p.structural > 0 {
		r.proc.Go("structural", r.structuralActor)
	}
	return true
}

// crashAndRestart kills the lane process at the current scheduling point;
// powerLoss lets the backend decide what the disk keeps.
func (r *runner) crashAndRestart(cause string, powerLoss bool) {
	if r.closing || r.failed {
		return
	}
	r.closing = true
	r.fault(cause + " " + r.proc.String())
	r.noteCrashRaces()
	r.linz.crash("crash of " + r.proc.String())
	r.proc.Crash()
	if powerLoss {
		r.fault(r.be.crash())
	}
	r.startProcess()
}

// noteCrashRaces records rows 5 and 6 at a crash.
func (r *runner) noteCrashRaces() {
	s := r.cur
	if s == nil {
		return
	}
	resp := s.req.ResponseEntryID
	queued := false
	for _, t := range r.tracks[resp] {
		if t.gen == r.gen && t.outcome == lane.FrameEnqueued {
			queued = true
		}
	}
	if len(r.tracks[resp]) > 0 {
		if queued {
			r.race(RowQueuedLoss, OrderQueuedLost)
		} else {
			r.race(RowQueuedLoss, OrderQueueEmpty)
		}
	}
	if s.ended && !queued && len(r.tracks[resp]) > 0 {
		if _, st := r.refOp(); st != nil && st.At.IsEffectPending() && st.ResponseEntryID == resp {
			r.race(RowFinalFrame, OrderCrashBetween)
		}
	}
}

// driver drives the lane until every planned operation has settled.
func (r *runner) driver() {
	ln := r.ln
	for iter := 0; ; iter++ {
		if iter > 200 {
			r.fail("liveness", "driver made %d steps without settling", iter)
			return
		}
		cur := ln.Current()
		if cur == nil {
			if r.resultsCount() >= r.p.ops {
				r.doneFut.Resolve(nil)
				return
			}
			if _, err := r.ls.startRun(func() (string, error) { return ln.StartRun(r.runOptions()) }); err != nil {
				r.laneError(err)
				return
			}
			if !r.startClientFold(ln) { // our lane emits no run_start: the client re-captures
				return
			}
			continue
		}
		permit := false
		if cur.State.At == lane.LeafDeferredSuspended || cur.State.At == lane.LeafDeferredEffectPending {
			permit = r.takePermit()
		}
		res, err, ok := r.ls.step(permit, func() (lane.StepResult, error) {
			return ln.Step(lane.StepOptions{DeferredPermit: permit, WaitForRetry: true})
		})
		if !ok || (err == nil && r.closing) {
			return // a close in progress: the model resyncs at restart and a new driver drives on
		}
		if err != nil {
			r.laneError(err)
			return
		}
		if r.p.snapshots > 0 && choice.Chance(r.w, "driver-snapshot", 1, 3) {
			r.snapshotNow("driver")
		}
		if res.Kind == lane.StepWaiting {
			switch res.Reason {
			case "deferred":
				r.waitPermit(cur)
			case "tools":
				// the tool runner is out of scope: it finishes the operation
				r.ls.issueFinalize("completed", nil)
				if err := ln.Finalize("completed", nil); err != nil && !errors.Is(err, lane.ErrNoOperation) {
					r.laneError(err)
					return
				}
			default:
				oe := &lane.OpError{Code: "sim", Message: res.Reason}
				r.ls.issueFinalize("failed", oe)
				if err := ln.Finalize("failed", oe); err != nil && !errors.Is(err, lane.ErrNoOperation) {
					r.laneError(err)
					return
				}
			}
		}
	}
}

// laneError handles a lane call's error in the driver: an injected storage
// fault faults the process, which a supervisor restarts; closing is the
// closer's business; anything else is a failure.
func (r *runner) laneError(err error) {
	var hf *lane.HarnessFault
	switch {
	case errors.Is(err, lane.ErrClosed) && r.closing:
		return
	case errors.As(err, &hf) && r.injected:
		r.faultPending = false
		gen := r.gen
		r.w.Root().Go("supervisor", func() {
			if r.gen == gen { // not restarted meanwhile by someone else
				r.crashAndRestart("restart after storage fault of", r.be.simulatesDisk())
			}
		})
	default:
		r.fail("invariant", "lane error in process %d: %v", r.gen, err)
	}
}

func (r *runner) resultsCount() int {
	vs, err := r.ref.ScanValues(lane.NSResult, "")
	if err != nil {
		return 0
	}
	return len(vs)
}

// ---- permits (deferred polls) ----

func (r *runner) takePermit() bool {
	if r.permits > 0 {
		r.permits--
		return true
	}
	return false
}

func (r *runner) waitPermit(cur *lane.Operation) {
	if r.pendingPoll != "" && cur.State.ResponseEntryID == r.pendingPoll {
		r.race(RowPollReplacement, OrderSuspendedWithoutPermit)
		r.pendingPoll = ""
		r.snapshotNow("reconnect without permit")
	}
	if r.permits > 0 || r.finished {
		return
	}
	r.permitWake = r.w.NewFuture("permit")
	_ = r.permitWake.Wait()
}

// poller hands out deferred-poll permits for as long as the run lasts. It
// must not run out: restarts drop process-local permits, and a poller that
// stopped after a fixed count left a driver waiting forever for a permit
// after enough crashes (a harness deadlock, not a lane bug). If operations
// never settle, the world's step budget reports liveness.
func (r *runner) poller() {
	for !r.finished && !r.failed {
		r.w.Sleep(time.Duration(choice.Range(r.w, "poll-ms", 1, 40)) * time.Millisecond)
		r.permits++
		if r.permitWake != nil {
			r.permitWake.Resolve(nil)
			r.permitWake = nil
		}
	}
}

// ---- daemons ----

func (r *runner) pause(label string, maxMs int) {
	if choice.Bool(r.w, label+"-yield") {
		for n := choice.Range(r.w, label+"-yields", 0, 6); n > 0; n-- {
			r.w.Yield()
		}
		return
	}
	r.w.Sleep(time.Duration(choice.Range(r.w, label+"-ms", 0, maxMs)) * time.Millisecond)
}

func (r *runner) crasher() {
	for k := 0; k < r.p.crashes && !r.finished && !r.failed; {
		r.pause("crash", 120)
		if r.finished || r.failed || r.closing {
			continue
		}
		if choice.Chance(r.w, "crash", 1, 2) {
			k++
			r.crashAndRestart("crash", true)
		}
	}
}

func (r *runner) finalizer() {
	r.pause("finalize", 80)
	if choice.Chance(r.w, "finalize-after-commit", 1, 2) {
		r.awaitCommittedFrame()
	} else if choice.Chance(r.w, "finalize-in-wait", 1, 2) {
		r.awaitWaitingStep()
	}
	ln := r.ln
	if r.finished || r.failed || r.closing || ln.Current() == nil {
		return
	}
	op := ln.Current().ID
	id := r.linz.call("finalizer", linzInput{Kind: "finalize", Op: op})
	oe := &lane.OpError{Code: "external", Message: finalizerMessage}
	r.ls.issueFinalize("aborted", oe)
	fut := ln.FinalizeAsync("aborted", oe)
	err := fut.Wait()
	switch {
	case err == nil:
		r.finalized[op] = true
		for _, t := range r.tracks[r.currentResp(op)] {
			if t.outcome == lane.FrameCommitted {
				r.race(RowAppendFinalize, OrderAppendFirst)
				break
			}
		}
		r.linz.ret(id, linzOutput{Result: "ok"})
	case errors.Is(err, lane.ErrNoOperation):
		r.linz.ret(id, linzOutput{Result: "none"})
	case errors.Is(err, world.ErrCrashed) || errors.Is(err, lane.ErrClosed):
		r.linz.cut(id, err.Error())
	default:
		var hf *lane.HarnessFault
		if errors.As(err, &hf) && r.injected {
			r.linz.cut(id, err.Error())
			return
		}
		r.fail("invariant", "finalize: %v", err)
	}
}

// awaitCommittedFrame pauses, a bounded number of times, until the current
// response has a committed frame: the finalizer then races the appends that
// follow it (the append-first order of RowAppendFinalize), which an
// unconditioned pause reaches only when the stream is slow.
func (r *runner) awaitCommittedFrame() {
	for i := 0; i < 20 && !r.finished && !r.failed; i++ {
		if ln := r.ln; ln != nil && ln.Current() != nil {
			for _, t := range r.tracks[r.currentResp(ln.Current().ID)] {
				if t.outcome == lane.FrameCommitted {
					return
				}
			}
		}
		r.pause("finalize-wait", 5)
	}
}

// currentResp is the response id of op's last effect_pending in this run.
func (r *runner) currentResp(op string) string {
	if r.cur != nil && r.cur.req.OperationID == op {
		return r.cur.req.ResponseEntryID
	}
	return ""
}

func (r *runner) canceller() {
	r.pause("cancel", 100)
	ln := r.ln
	if r.finished || r.failed || r.closing {
		return
	}
	r.ls.beginAbort()
	if err := ln.RequestCancel(); err != nil && !errors.Is(err, world.ErrCrashed) && !errors.Is(err, lane.ErrClosed) {
		var hf *lane.HarnessFault
		if errors.As(err, &hf) {
			return // the driver reports or restarts faults
		}
		r.fail("invariant", "request cancel: %v", err)
		return
	}
	r.checkCancelAbortsStream()
}

// checkCancelAbortsStream: once a cancel request has committed, the live
// provider stream of the cancelled response has its abort signal fired
// (pi's requestOperationAbort aborts the running request), so the provider
// stops instead of streaming the rest of the response.
func (r *runner) checkCancelAbortsStream() {
	s := r.cur
	if s == nil || s.ended || s.gen != r.gen || s.req.Abort == nil || !r.alive() {
		return
	}
	op, st := r.refOp()
	if st == nil || op != s.req.OperationID || !st.Control.CancelRequested || st.ResponseEntryID != s.req.ResponseEntryID {
		return
	}
	r.check(s.req.Abort.Done(), "invariant", "cancel of %s committed while response %s streams, but its abort signal did not fire", op, s.req.ResponseEntryID)
}

func (r *runner) reader() {
	for i := 0; i < r.p.snapshots && !r.finished && !r.failed; i++ {
		r.pause("snapshot", 60)
		if !r.closing && !r.finished {
			r.snapshotNow("reader")
		}
	}
}

func (r *runner) closer() {
	r.pause("close", 120)
	if r.finished || r.failed || r.closing {
		return
	}
	ln := r.ln
	if cur := ln.Current(); cur != nil && cur.State.At.IsEffectPending() {
		r.race(RowCloseSettle, OrderCloseFirst)
	} else {
		r.race(RowCloseSettle, OrderSettleFirst)
	}
	r.closing, r.closed = true, true
	r.fault("close " + r.proc.String())
	before := r.ref.NextSeq()
	if err := ln.Close(); err != nil && !errors.Is(err, lane.ErrClosed) {
		r.fail("invariant", "close: %v", err)
		return
	}
	// Close writes nothing of its own: only admitted work may have drained.
	if _, st := r.refOp(); st != nil && st.At.IsEffectPending() {
		r.check(!r.settledSince(before), "invariant", "close committed a settlement")
	}
	r.linz.crash("close of " + r.proc.String())
	r.proc.Crash()
	r.startProcess()
}

// settledSince reports whether an assistant entry committed at or after seq.
func (r *runner) settledSince(seq int64) bool {
	es, _ := r.ref.Entries()
	for _, e := range es {
		if e.Seq >= seq && isAssistantEntry(e.Entry.Raw) {
			return true
		}
	}
	return false
}

// snapshotNow takes a snapshot of the current lane and checks it.
func (r *runner) snapshotNow(who string) {
	ln := r.ln
	snap, err := ln.Snapshot()
	if err != nil {
		r.fail("invariant", "snapshot (%s): %v", who, err)
		return
	}
	r.checkSnapshot(ln, snap)
	r.linz.snapshot(who, snap)
	r.checkCapture(ln, who)
}

// ---- lane callbacks ----

func (r *runner) listener(ev lane.Event) env.Future {
	if !r.alive() {
		return nil
	}
	r.ls.onEvent(ev)
	r.logEvent(ev)
	if r.fold != nil {
		r.fold.Apply(ev)
	}
	switch {
	case ev.Type == lane.EvMessageStart || ev.Type == lane.EvMessageUpdate || ev.Type == lane.EvMessageEnd:
		r.foldCaptured = false
	}
	switch {
	case ev.Type == lane.EvMessageStart && ev.Message != nil && ev.Message.StopReason == pi.StopPending:
		r.openMessages++
	case ev.Type == lane.EvMessageEnd && !ev.Synthetic:
		r.openMessages--
	}
	idx := -1
	resp := ""
	if s := r.cur; s != nil && (ev.Type == lane.EvMessageStart || ev.Type == lane.EvMessageUpdate) && !ev.Recovery {
		idx, resp = s.consumed-1, s.req.ResponseEntryID
	}
	mark := func() {
		if idx >= 0 {
			if r.delivered[resp] == nil {
				r.delivered[resp] = map[int]bool{}
			}
			r.delivered[resp][idx] = true
		}
	}
	switch choice.Weighted(r.w, "listener", []int{2, 2, 1}) {
	case 0:
		mark()
		return nil
	case 1:
		f := r.w.NewFuture("listener")
		r.w.Go("listener", func() { r.w.Yield(); mark(); f.Resolve(nil) })
		return f
	default:
		f := r.w.NewFuture("listener")
		r.w.Go("listener", func() {
			r.w.Sleep(time.Duration(choice.Range(r.w, "listener-ms", 1, 10)) * time.Millisecond)
			mark()
			f.Resolve(nil)
		})
		return f
	}
}

func (r *runner) onStreamOpen(s *simStream) {
	resp := s.req.ResponseEntryID
	r.streams[resp] = s
	r.cur = s
	r.ls.admit()
	s.gen = r.gen
	if r.pendingPoll != "" && s.req.Deferred != nil {
		r.race(RowPollReplacement, OrderReplacedAtOnce)
		r.pendingPoll = ""
	}
	r.checkStreamOpen(s)
}

func (r *runner) onStreamEnd(s *simStream) {
	resp := s.req.ResponseEntryID
	if len(r.tracks[resp]) == 0 {
		return
	}
	for _, t := range r.tracks[resp] {
		if t.outcome == lane.FrameEnqueued {
			r.race(RowAppendSettle, OrderSettlementAwaitsAppends)
			return
		}
	}
	r.race(RowAppendSettle, OrderAppendsDoneAtEnd)
}

// ---- the storage wrapper ----

var errDeadProcess = errors.New("lanesim: commit from a crashed process")

// alive reports whether the running actor's process is alive (callbacks
// from a dead process's unwinding code are ignored).
func (r *runner) alive() bool {
	_, p := r.w.Current()
	return p == nil || p.Alive()
}

// simStore is the lane's storage: every commit takes a scheduling point
// first (commit latency: a crash may fall before it), may fail with an
// injected storage error, and once acknowledged is applied to the reference
// and checked.
type simStore struct {
	store.Storage
	r   *runner
	gen int
}

func (s *simStore) Commit(ws []store.Write) (store.CommitResult, error) {
	r := s.r
	if !r.alive() {
		// The world unwinds a crashed process's actors, and nothing in impl/
		// recovers panics, so a dead process never gets here; if it did, its
		// commit would land after the crash.
		_, dead := r.w.Current()
		r.fail("world", "commit from crashed process %s: %v", dead, ws)
		return store.CommitResult{}, errDeadProcess
	}
	// a write at a structural address is invariant 11's business (checked
	// at its acknowledgement), not something the lockstep model stands for
	model := !r.structuralWrite(ws)
	if model {
		r.ls.commitPlanned()
	}
	if r.p.commitLatency {
		for n := choice.Weighted(r.w, "commit-latency", []int{3, 2, 1}); n > 0; n-- {
			r.w.Yield()
		}
	}
	if r.p.storageFaults > 0 && !r.faultPending && len(r.faults) < 8 && choice.Chance(r.w, "storage-fault", 1, r.p.storageFaults) {
		r.faultPending, r.injected = true, true
		r.fault("storage commit failure")
		if !r.be.injectFault() {
			return store.CommitResult{}, errors.New("lanesim: injected storage failure: EIO")
		}
	}
	if model {
		r.ls.beforeCommit(ws)
	}
	r.inflight = ws
	res, err := s.Storage.Commit(ws)
	if err != nil {
		// a failed JSONL commit may still reach the disk: stays in flight
		return res, err
	}
	r.inflight = nil
	r.acked(ws, res)
	if model {
		r.ls.afterAck(ws)
	}
	return res, nil
}

// acked applies an acknowledged commit to the reference and checks it.
func (r *runner) acked(ws []store.Write, res store.CommitResult) {
	prevOp, prevState := r.refOp()
	want, err := r.ref.Commit(ws)
	if err != nil {
		r.fail("store", "the reference rejects an acknowledged commit: %v", err)
		return
	}
	if !r.check(fmt.Sprint(want.Seqs) == fmt.Sprint(res.Seqs), "store", "acknowledged seqs %v, reference %v", res.Seqs, want.Seqs) {
		return
	}
	if !r.checkSeqs(ws, res) {
		return
	}
	for _, w := range ws {
		if w.Kind == store.WriteList {
			a := store.Address{Namespace: w.Namespace, Key: w.Key, Kind: store.KindList}
			r.listKeys[store.PhysicalKey(w.Namespace, w.Key)] = a
		}
	}
	r.noteOps(ws)
	r.noteCommit(ws, prevOp, prevState)
	r.linz.commitOps(ws)
	r.checkInvariants("after commit", nil, nil)
}

// refOp returns the current operation and its state in the reference.
func (r *runner) refOp() (string, *lane.OpState) {
	return opOf(r.ref)
}

func opOf(st store.Storage) (string, *lane.OpState) {
	v, err := st.GetValue(lane.LaneStateAddr(laneName))
	if err != nil || v == nil {
		return "", nil
	}
	var ls struct {
		Current *string `json:"currentOperationId"`
	}
	if json.Unmarshal(v.Value, &ls) != nil || ls.Current == nil {
		return "", nil
	}
	sv, err := st.GetValue(lane.OpStateAddr(*ls.Current))
	if err != nil || sv == nil {
		return *ls.Current, nil
	}
	s, err := lane.DecodeState(sv.Value)
	if err != nil {
		return *ls.Current, nil
	}
	return *ls.Current, s
}

func isAssistantEntry(raw json.RawMessage) bool {
	m := entryMessage(raw)
	return m != nil
}

// entryMessage decodes an entry's assistant message (nil for others).
func entryMessage(raw json.RawMessage) *pi.AssistantMessage {
	v, err := pi.ParseJSON(string(raw))
	if err != nil || v.Kind() != pi.Object {
		return nil
	}
	mv, ok := v.ObjectValue().Get("message")
	if !ok || mv.Kind() != pi.Object {
		return nil
	}
	if role, ok := mv.ObjectValue().Get("role"); !ok || role.Kind() != pi.String || role.Str() != "assistant" {
		return nil
	}
	m, err := pi.DecodeAssistantMessage(mv, "message")
	if err != nil {
		return nil
	}
	return m
}
