package lanesim

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/linz"
	"github.com/frameproof/frameproof/sim/trace"
	"github.com/frameproof/frameproof/sim/world"
)

const laneName = "main"

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
	p           profile
	toolOverlap toolOverlap // rowToolOverlap's open calls (tools.go)
	reach       reachState  // the reach registry's bookkeeping (reach.go)
	memo        decodeMemo  // what the checks decode from committed bytes (memo.go)
	msgBuf      []byte      // msgJSON's scratch
	opts        Options
	w           *world.World
	rec         *linz.Recorder
	laneBugs    []string // bug names (splitBugs)
	storeBugs   []string
	forkBugs    []string
	be          backend

	gen     int // process generation (incarnation)
	proc    *world.Process
	ln      *lane.Lane
	st      *simStore
	closing bool // a close or restart is in progress: clients stand off
	closed  bool

	// ref holds exactly the acknowledged commits: the oracle for what any
	// backend must show after recovery.
	ref *specStore // the store oracle: model/store (specstore.go)
	// foreignNS are the value namespaces of the rows the store started
	// with (storeinputs.go), compared like the lane's
	foreignNS []string
	// stuck is the operation whose deferred source handle faulted a step
	// (badHandle): no step of it can succeed, the driver finalizes it.
	stuck string
	// faultPending: a storage fault was injected and has not yet faulted.
	faultPending bool
	// injected: a storage fault was injected in this run, or a step
	// faulted as the model predicted (a lost operation): a harness fault
	// other actors may meet
	injected bool

	streams map[string]*simStream // by response id
	cur     *simStream            // latest stream of the current process
	tracks  map[string][]*frameTrack

	plans     int            // provider responses drawn (nextPlan)
	toolTurns map[string]int // responses with tool calls, by operation

	doneFut  env.Completer
	finished bool

	failed     bool
	kind       campaign.FailureKind
	msg        string
	raceOrders map[string][]string
	faults     []string
	checks     int
	linz       *linzState
	ls         *lockstep

	// the checkers other code calls directly, and the registry
	// (checkers.go) of every checker by the events it subscribes to
	seqs      *seqChecker
	inv       *invariantChecker
	intent    *intentChecker
	client    *clientFoldChecker
	telemetry *telemetryChecker // the lanes' Config.Telemetry
	capture   *captureChecker   // noted at every acknowledged commit
	prefix    *prefixChecker    // the reductions of committed frame lists
	reference *referenceChecker // the reference's list index
	races     *raceNotes        // the commits' race bookkeeping
	hooks     registry

	// the actors that own state (actor_<name>.go)
	listener   *listenerActor
	poller     *pollerActor
	finalizer  *finalizerActor
	structural *structuralActor
	// cancelAim aims the canceller at a boundary's threshold read (threshold.go)
	cancelAim cancelAim
}

// actorWorkers are the actor goroutines every run shares (runs in parallel
// cells too): a run of a few hundred steps would otherwise start and grow
// the stacks of a few dozen goroutines. 64 wait between runs at most.
var actorWorkers = world.NewWorkers(64)

func run(p profile, src choice.Source, opts Options) Outcome {
	bs, err := splitBugs(opts.Bugs)
	if err != nil {
		return Outcome{Failed: true, Kind: campaign.KindSetup, Message: err.Error()}
	}
	tr := trace.NewHashOnly()
	if opts.KeepTrace {
		tr = trace.New()
	}
	max := opts.MaxSteps
	if max <= 0 {
		max = StepBudget(src)
	}
	// a commit runs the store and every check under the line's actor:
	// actors go deep (world.Options.DeepActors), and their goroutines serve
	// the next runs (actorWorkers)
	w := world.New(src, world.Options{Trace: tr, MaxSteps: int64(max), DeepActors: true, Workers: actorWorkers})
	r := newRunner(p, opts, w)
	r.laneBugs, r.storeBugs, r.forkBugs = bs.lane, bs.store, bs.fork
	be, err := newBackend(r)
	if err != nil {
		return Outcome{Failed: true, Kind: campaign.KindSetup, Message: err.Error()}
	}
	r.be = be
	defer be.close()
	r.worldEnded(w.Run(r.main))
	if !r.failed {
		r.linz.check()
	}
	return r.outcome(tr)
}

// newRunner builds a run's runner with its checkers and its actors' state.
func newRunner(p profile, opts Options, w *world.World) *runner {
	r := &runner{p: p, opts: opts, w: w,
		streams: map[string]*simStream{}, tracks: map[string][]*frameTrack{},
		raceOrders: map[string][]string{}, toolTurns: map[string]int{}}
	r.rec = linz.NewRecorder(w.Step)
	r.linz = newLinzState(r)
	r.ls = newLockstep(r)
	r.seqs, r.inv = newSeqChecker(r), newInvariantChecker(r)
	// the checks' readers decode op states through the run's memo
	r.inv.views.Decode, r.ls.reader.Decode = r.memo.decodeState, r.memo.decodeState
	r.inv.views.Parse, r.ls.reader.Parse = r.memo.parseJSON, r.memo.parseJSON
	r.inv.views.Frame = func(seq int64, value []byte) (*pi.Frame, error) { return r.memo.frameAt(seq, string(value)) }
	r.ls.reader.VerifyViews, r.inv.views.VerifyParts, r.inv.scan.VerifyFull = verifyViews, verifyViews, verifyViews
	r.intent = &intentChecker{r: r, lastResp: map[string]string{}, reserved: map[string]bool{}}
	r.client = &clientFoldChecker{r: r}
	r.telemetry = &telemetryChecker{r: r}
	r.capture = &captureChecker{r: r}
	r.prefix = &prefixChecker{r: r}
	r.reference = &referenceChecker{r: r}
	r.races = &raceNotes{r: r}
	r.hooks = newRegistry(newCheckers(r))
	r.listener = &listenerActor{r: r, delivered: map[string]map[int]bool{}}
	r.poller = &pollerActor{r: r}
	r.finalizer = &finalizerActor{r: r, finalized: map[string]bool{}}
	r.structural = &structuralActor{r: r, keys: map[string]bool{}, streams: map[string]*structStream{}}
	return r
}

// worldEnded turns the world's error into the run's failure, unless a
// check failed first: a used-up step budget or a deadlock is a liveness
// failure, anything else the world's.
func (r *runner) worldEnded(werr error) {
	var pe *world.PanicError
	if errors.As(werr, &pe) && fmt.Sprintf("%T", pe.Value) == "rapid.invalidData" {
		// rapid ran out of recorded data while replaying a candidate: hand
		// its marker back to rapid (on the test goroutine) so it discards
		// the candidate instead of calling it a failure
		panic(pe.Value)
	}
	if werr == nil || r.failed {
		return
	}
	var be *world.BudgetError
	var de *world.DeadlockError
	switch {
	case errors.As(werr, &be):
		r.failed, r.kind, r.msg = true, campaign.KindLiveness, werr.Error()
	case errors.As(werr, &de):
		r.failed, r.kind, r.msg = true, campaign.KindLiveness, werr.Error()
	default:
		r.failed, r.kind, r.msg = true, campaign.KindWorld, werr.Error()
	}
}

// outcome is the run's verdict with what it covered.
func (r *runner) outcome(tr *trace.Trace) Outcome {
	out := Outcome{Failed: r.failed, Kind: r.kind, Message: r.msg, Steps: int(r.w.Step()), TraceHash: tr.Hash(),
		Races: map[string]string{}, RaceOrders: r.raceOrders, Linz: r.rec, Faults: r.faults, Checks: r.checks, TXCompared: r.ls.txCompared,
		Structural: r.structural.done}
	if d, ok := r.be.(diskImages); ok {
		out.CrashImages = d.images()
	}
	if r.opts.KeepTrace {
		out.Trace = tr
	}
	for row, orders := range r.raceOrders {
		out.Races[row] = orders[0]
	}
	return out
}

// fail records the first failure and stops the world.
func (r *runner) fail(kind campaign.FailureKind, format string, args ...any) {
	if r.failed {
		return
	}
	r.failed, r.kind, r.msg = true, kind, fmt.Sprintf(format, args...)
	r.w.Note("failure", trace.F("kind", string(kind)), trace.F("message", r.msg))
	r.w.Stop()
}

func (r *runner) check(ok bool, kind campaign.FailureKind, format string, args ...any) bool {
	r.checks++
	if !ok {
		r.fail(kind, format, args...)
	}
	return ok
}

// pass counts a check that held. A check that runs at every commit, step
// or event tests its condition first and calls check only when it failed:
// check's arguments are boxed at every call, passing or not.
func (r *runner) pass() bool {
	r.checks++
	return true
}

// fault records an injected fault (trace, porcupine annotation, outcome).
func (r *runner) fault(what string) {
	r.faults = append(r.faults, what)
	r.rec.Fault(what, "")
	r.w.Note("fault", trace.S("what", what))
}

// nextPlan draws the next provider response; the first response of a
// deferred profile is a deferred handle, and with badHandle a poll may
// answer deferred again with a handle pi refuses when it next reads it.
func (r *runner) nextPlan(req lane.Request) respPlan {
	g := r.p.gen
	r.plans++
	g.callPrefix = "call_" + strconv.Itoa(r.plans) + "_"
	g.noTools = r.toolTurns[req.OperationID] >= maxToolTurns
	g.deferred = r.p.deferred && req.Deferred == nil && req.Attempt == 1
	if r.p.badHandle && req.Deferred != nil && choice.Chance(r.w, "poll-bad-handle", 1, 2) {
		g.deferred, g.badHandle = true, true
	}
	p := genPlan(r.w, g)
	if p.tools > 0 {
		r.toolTurns[req.OperationID]++
	}
	return p
}

// maxToolTurns bounds the responses with tool calls per operation: each
// batch costs the run another generation, and the campaign's time stays
// where it was without tools.
const maxToolTurns = 1

// main is the root actor: it sets the world up, starts the daemons, waits
// for the driver to finish every operation and runs the end-of-run checks.
func (r *runner) main() {
	r.ref = newSpecStore(r.w)
	r.doneFut = r.w.NewFuture("done")
	if !r.startProcess() {
		return
	}
	r.startActors(r.w.Root(), false)
	_ = r.doneFut.Wait()
	r.finished = true
	r.poller.release()
	r.finalizer.release()
	r.cancelAim.release()
	r.finalChecks()
}

// startProcess opens storage and the lane in a fresh process and starts its
// driver. The first time it creates the storage.
func (r *runner) startProcess() bool {
	r.gen++
	r.ls.replayClears = 0 // a lost process's clears emit nothing more
	r.ls.undelivered = 0  // a lost process delivers nothing more
	r.client.restart()
	r.proc = r.w.NewProcess("lane")
	raw, err := r.be.open(r.proc)
	if err != nil {
		r.fail(campaign.KindRecovery, "open storage (process %d): %v", r.gen, err)
		return false
	}
	r.st = &simStore{Storage: raw, r: r, gen: r.gen}
	if r.gen == 1 && r.p.forkMigrate && !r.seedAppValues(raw) {
		return false
	}
	if !r.reconcileStore() {
		return false
	}
	cfg, err := withLaneBugs(lane.Config{Name: laneName, Storage: r.st, Clock: r.w, IDs: r.w, Exec: &lockExec{Executor: r.proc, ls: r.ls, gen: r.gen},
		Provider: simProviderImpl{r}, Listener: r.listenerOf(r.gen), AfterResponse: r.afterResponse,
		OnFrame: r.onFrame, Telemetry: r.telemetry.record,
		// the finalizer races drive steps (frameproof's external
		// finalization); pi's fault when a swarm draw asks for it
		SkipStaleSettlement: !r.p.lostFaults, Generation: r.generation(), Tools: r.laneTools(),
		ToolExecution: r.toolExecution(), Models: r.models()}, r.laneBugs)
	var ln *lane.Lane
	if err == nil {
		cfg.FrameBudget = r.p.frameBudget // a swarm draw (0, pi's, elsewhere)
		cfg.FramePageSize = r.p.reach.framePage
		ln, err = lane.Open(cfg)
	}
	if err != nil {
		r.fail(campaign.KindRecovery, "lane open (process %d): %v", r.gen, err)
		return false
	}
	r.ln, r.cur, r.closing, r.closed = ln, nil, false, false
	r.poller.restart()
	mine := r.proc
	if snap, err := ln.Snapshot(); err != nil {
		// it may wait for a commit in flight, and the process die meanwhile
		if !r.captureRefused(ln, err) {
			r.fail(campaign.KindRecovery, "snapshot of the reopened lane (process %d): %v", r.gen, err)
		}
		return false
	} else if !r.emitReopened(ln, snap) {
		return false
	}
	r.checkRestored() // may wait (reconnect cancel): another restart may happen meanwhile
	if r.proc != mine || !mine.Alive() {
		return false
	}
	r.startActors(r.proc, true)
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

// pause waits a drawn while before an actor's next move: a few yields or a
// virtual sleep of up to maxMs.
func (r *runner) pause(label string, maxMs int) {
	if choice.Bool(r.w, label+"-yield") {
		for n := choice.Range(r.w, label+"-yields", 0, 6); n > 0; n-- {
			r.w.Yield()
		}
		return
	}
	r.w.Sleep(time.Duration(choice.Range(r.w, label+"-ms", 0, maxMs)) * time.Millisecond)
}

// pauseSpread is pause, after — half the time — waiting (a bounded number
// of yields) for the current run to leave its start steps (starting, the
// initial checkpoint): an actor that races a stream reaches past them as
// often as it lands on them.
func (r *runner) pauseSpread(label string, maxMs int) {
	if choice.Bool(r.w, label+"-after-start") {
		for i := 0; i < 200 && r.inStartSteps(); i++ {
			r.w.Yield()
		}
	}
	r.pause(label, maxMs)
}

// rowStartLeaves records a process restored, or a cancel committed, while
// the run was in a start step (a coverage row outside the race table:
// Outcome.RaceOrders reports it): orders "restored-at-starting",
// "restored-at-checkpoint", "cancelled-at-starting",
// "cancelled-at-checkpoint".
const rowStartLeaves = "start-leaves"

// noteStartLeaf records st in rowStartLeaves when it is a start leaf.
func (r *runner) noteStartLeaf(st *lane.OpState, prefix string) {
	if st != nil && isStartLeaf(st) {
		r.race(rowStartLeaves, prefix+string(st.At))
	}
}

func isStartLeaf(st *lane.OpState) bool {
	return st.At == lane.LeafStarting || (st.At == lane.LeafCheckpoint && st.Continuation.Kind == lane.ContinueNeedAssistant)
}

// inStartSteps reports whether the reference's current operation is at
// `starting` or at its initial (need_assistant) checkpoint, or no run has
// started yet.
func (r *runner) inStartSteps() bool {
	if r.finished || r.failed || r.closing {
		return false
	}
	op, st := r.refOp()
	if op == "" || st == nil {
		return r.resultsCount() == 0
	}
	return isStartLeaf(st)
}

// refOp returns the current operation and its state in the reference
// (specStore.currentOp, decoded through the run's memo).
func (r *runner) refOp() (string, *lane.OpState) {
	return r.ref.currentOp(r.memo.decodeState)
}

func boolChoice(r *runner, label string) bool {
	return r.w.Intn(label, 2) == 1
}

func choiceBool(w interface{ Intn(string, int) int }, label string) bool {
	return w.Intn(label, 2) == 1
}

// toolExecution is lane.Config.ToolExecution for the profile.
func (r *runner) toolExecution() string {
	if r.p.sequentialTools {
		return lane.ToolsSequential
	}
	return ""
}
