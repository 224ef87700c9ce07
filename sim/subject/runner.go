package subject

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// Scenario is one profile of the subject runner: which actions the choice
// source may draw beside releasing commits and events.
type Scenario struct {
	Name string
	Desc string
	// Rows are the race rows the scenario aims at (lanesim's table).
	Rows []string
	// Runs is how many runs the driver prompts, one after another.
	Runs int
	// Kill: the process may be killed at a drawn moment (durable
	// sessions; a memory session's storage is lost instead: DropParked).
	Kill bool
	// Abort: the running operation may be aborted at a drawn moment.
	Abort bool
	// Queue: steer, followUp and nextRun input may be queued, and a queued
	// item cancelled, at drawn moments (at most Queue items per run).
	Queue int
	// Retry: a response may end in a provider error (retryable or not:
	// ScriptErrors), and the run's retry policy is drawn (maxRetries 0 to
	// 2, baseDelayMs 1000 or 40000), so retries reach the attempt cap and
	// delays pass pi-ai's 60000 ms delay cap. With Kill, every kill aims
	// at an operation at assistant.effect_pending (its recovery settles an
	// unknown generation), up to Kills times.
	Retry bool
	// Kills bounds a run's kills (Kill; 0: 1).
	Kills int
	// Close: the harness may be closed (Harness.close) at a drawn moment
	// of a run, aimed at an operation at effect_pending (close-first) or
	// at a settled one (settle-first); the commits parked when close is
	// issued are released, then the process ends and a new one reopens
	// the session and resumes (a memory session's run ends at the close).
	Close bool
	// Deferred: responses may end deferred (deferred.go); with Kill, every
	// kill aims at a deferred poll's effect_pending, and after the reopen
	// the orphan is driven first without a permit (Lane.drive) or with one
	// (Lane.resume), as drawn.
	Deferred bool
	// Snapshots: pi's snapshot (Lane.watch) may be taken at drawn moments,
	// above all between a reopen that restores an operation at
	// effect_pending and its recovery's first commit; each is compared
	// with model/lane's (close.go checkSnapshot).
	Snapshots bool
}

// Scenarios are the race-table rows pi's public API can express, as
// profiles of the runner.
var Scenarios = []Scenario{
	{Name: "append-race", Desc: "frame appends racing the next provider event and the settlement",
		Rows: []string{lanesim.RowAppendNext, lanesim.RowAppendSettle, lanesim.RowUpdateCommit}, Runs: 2},
	{Name: "process-loss", Desc: "the process killed (JSONL) or its storage lost (memory) at a drawn moment, queued writes lost; reopen and resume",
		Rows: []string{lanesim.RowQueuedLoss, lanesim.RowFinalFrame, lanesim.RowAppendNext}, Runs: 1, Kill: true},
	{Name: "abort", Desc: "an abort at a drawn moment of a streaming run",
		Rows: []string{lanesim.RowAppendNext, lanesim.RowAppendSettle}, Runs: 1, Abort: true},
	{Name: "queue", Desc: "steer, followUp and nextRun input queued (and cancelled) at drawn moments of two runs",
		Rows: []string{lanesim.RowAppendNext}, Runs: 2, Queue: 3},
	{Name: "close-settle", Desc: "Harness.close at a drawn moment (an operation at effect_pending or a settled one); the parked commits land, nothing later is admitted; reopen and resume",
		Rows: []string{lanesim.RowCloseSettle}, Runs: 2, Close: true},
	{Name: "activation-snapshot", Desc: "the process killed while its response streams; after the reopen pi's snapshot (Lane.watch) is taken before and after the recovery's first commit",
		Rows: []string{lanesim.RowActivationSnap}, Runs: 1, Kill: true, Snapshots: true},
	{Name: "retry", Desc: "retryable and fatal provider errors under a drawn retry policy; kills at effect_pending, so recoveries retry or fail at the attempt cap",
		Rows: []string{lanesim.RowUnknownRetry, lanesim.RowQueuedLoss}, Runs: 1, Kill: true, Kills: 3, Retry: true},
	{Name: "deferred-poll", Desc: "responses that end deferred, polled by Lane.resume; the process killed while a poll streams, the orphan then driven without a permit (Lane.drive) or replaced at once (Lane.resume)",
		Rows: []string{lanesim.RowPollReplacement}, Runs: 1, Kill: true, Kills: 2, Deferred: true},
}

// ScenarioByName finds a scenario.
func ScenarioByName(name string) (Scenario, bool) {
	for _, s := range Scenarios {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// NotExpressible lists the race rows pi's public API cannot reach through
// this boundary, and why.
var NotExpressible = []struct{ Row, Why string }{
	{lanesim.RowAppendFinalize, "pi 0.85.1's Lane has no external finalization call (impl/lane's Finalize is frameproof's)"},
}

// Options configure one run.
type Options struct {
	Session Session
	// Dir holds the run's JSONL file.
	Dir string
	// MaxActions bounds the run's actions (0: 400).
	MaxActions int
	// StoredDelayCap is the retry-delay cap the subject writes into every
	// stored retry policy: nil for pi 0.85.1 (it stores none), 60000 from
	// pi 0.87.1 on (runtime/drive/boundary.js normalizedRetryPolicy:
	// pi-ai's DEFAULT_MAX_AGENT_RETRY_DELAY_MS). model/lane's run carries it.
	StoredDelayCap *float64
	// ErrorPatterns is the pi-ai release the subject resolves, whose retry
	// and overflow patterns model/lane classifies with ("": 1.0.3).
	ErrorPatterns pi.AIRelease
}

// Outcome is one run's verdict.
type Outcome struct {
	Scenario string
	Session  Session
	Failed   bool
	Kind     FailureKind
	Message  string
	// Unavailable: the subject could not be started (no driver, no hello,
	// another protocol): the environment failed, not the subject, so the
	// campaign stops with it instead of counting a failure.
	Unavailable *UnavailableError
	TXCompared  int
	// InvariantChecks counts the checks of sim/invariants on the
	// committed state: one per committed transaction, per snapshot, and
	// one at the run's end.
	InvariantChecks int
	Actions         int
	// Divergences counts the decided differences the run met.
	Divergences map[DivergenceID]int
	// Races: row → order → reached.
	Races map[string]map[string]bool
	// Trace is the run's actions and commits, ids and times renamed by
	// first appearance (the same seed gives the same trace when the
	// subject is deterministic).
	Trace []string
}

const (
	laneName  = "main"
	modelID   = "scripted-1"
	startTime = 1_000_000
)

var scriptedModel = Model{ID: modelID, ContextWindow: 128000, MaxTokens: 16384}

// piSettings are the run settings pi's harness captures from its defaults
// (runtime/lane.ts capturedSettings: compaction, steeringMode,
// followUpMode, toolExecution).
const piSettings = `{"compaction":{"enabled":true,"reserveTokens":16384,"keepRecentTokens":20000},"steeringMode":"all","followUpMode":"all","toolExecution":"parallel"}`

// RetryPolicy is pi's retry option (harness/config.ts RetryPolicy),
// AgentHarness.create's `retry`.
type RetryPolicy struct {
	Enabled     bool    `json:"enabled"`
	MaxRetries  int     `json:"maxRetries"`
	BaseDelayMs float64 `json:"baseDelayMs"`
}

// DefaultRetryPolicy is pi's DEFAULT_RETRY_POLICY.
var DefaultRetryPolicy = RetryPolicy{Enabled: true, MaxRetries: 3, BaseDelayMs: 1000}

func (r *runner) runFor(text string) ml.Run {
	run := runFor(text)
	// runtime/drive/boundary.ts normalizedRetryPolicy
	run.MaxAttempts, run.BaseDelayMs = 1, r.policy.BaseDelayMs
	if r.policy.Enabled {
		run.MaxAttempts = r.policy.MaxRetries + 1
	}
	run.MaxAgentDelayMs = r.opts.StoredDelayCap
	return run
}

// defaultDelayCap is model/lane's DefaultMaxAgentDelayMs for the release:
// a release that stores no cap in its policies (StoredDelayCap nil, pi
// 0.85.1) applies none (runtime/drive/retry.js retryDelay: +Inf); one that
// stores pi-ai's cap reads it from the policy (nil: the option unused).
func (r *runner) defaultDelayCap() *float64 {
	if r.opts.StoredDelayCap == nil {
		inf := math.Inf(1)
		return &inf
	}
	return nil
}

func runFor(text string) ml.Run {
	settings, err := pi.ParseJSON(piSettings)
	if err != nil {
		panic(err) // a constant
	}
	streamOptions, _ := pi.ParseJSON(`{}`)
	// pi's DEFAULT_RETRY_POLICY {enabled, maxRetries: 3, baseDelayMs: 1000}
	return ml.Run{UserText: text, Model: ml.ModelRef{Provider: Provider, ModelID: modelID},
		MaxAttempts: 4, BaseDelayMs: 1000, ThinkingLevel: "off", ActiveToolNames: []string{},
		Settings: settings, StreamOptions: streamOptions,
		Compaction: &ml.Compaction{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}}
}

type runner struct {
	sub  Subject
	sc   Scenario
	src  choice.Source
	opts Options
	o    *oracle
	out  *Outcome
	ren  renamer
	obs  Obs
	// process numbers the current process; prompts the runs started
	process, prompts int
	inflight         int // calls issued and not completed
	killed, aborted  bool
	kills            int
	killAim          int
	policy           RetryPolicy
	queued           int  // items queued this run
	unqueued         bool // a cancelQueued was issued
	lane             bool // the lane call returned in this process
	dropped          bool
	events           []string // the subject's events, as model/lane names them
	eventBase        int      // model events before the current process
	implBase         int
	eventsTolerated  int // events of this process already counted against the divergences
	updates, fcommit int // message_update events seen / frame commits, per stream
	settledLive      bool
	// close (close.go): the aim drawn, whether close was issued in this
	// process, the commits parked when it was
	closeAim      int
	closed        bool
	closedOnce    bool // a run closes once
	closeParked   map[int]bool
	closeReturned bool
	// snapshots (close.go): how many were taken; the response an
	// effect_pending operation restored by the last reopen awaits
	snapshots         int
	pendingActivation string
	snapshotSeen      bool
	// inv runs sim/invariants on the committed state (statecheck.go)
	inv *stateCheck
	// deferred (deferred.go): responses scripted to end deferred; the
	// response of the orphaned poll the last reopen restored; a drive
	// without a permit was issued in this process
	deferredEnds int
	orphanPoll   string
	drove        bool
}

// Run drives one run of sc against sub, every decision drawn from src.
func Run(sub Subject, sc Scenario, src choice.Source, opts Options) Outcome {
	if opts.MaxActions == 0 {
		opts.MaxActions = 400
	}
	r := &runner{sub: sub, sc: sc, src: src, opts: opts, policy: DefaultRetryPolicy,
		out: &Outcome{Scenario: sc.Name, Session: opts.Session, Races: map[string]map[string]bool{}}}
	if sc.Retry {
		r.policy.MaxRetries = []int{0, 1, 2}[r.src.Intn("retry max", 3)]
		r.policy.BaseDelayMs = []float64{1000, 40000}[r.src.Intn("retry base delay", 2)]
		r.trace("retry policy maxRetries %d baseDelayMs %v", r.policy.MaxRetries, r.policy.BaseDelayMs)
	}
	r.o = newOracle(scriptedModel, laneName, r.runFor("prompt 1"), r.defaultDelayCap(), opts.ErrorPatterns)
	r.inv = newStateCheck(&r.o.now)
	defer sub.Close()
	err := r.main()
	r.out.TXCompared, r.out.Divergences = r.o.txCompared, r.o.divergences
	r.out.InvariantChecks = r.inv.checks
	if err != nil {
		r.out.Failed = true
		var mm *Mismatch
		var ev *eventsError
		var inv *InvariantError
		var ua *UnavailableError
		switch {
		case errors.As(err, &ua):
			r.out.Kind, r.out.Unavailable = KindUnavailable, ua
		case errors.As(err, &inv):
			r.out.Kind = KindInvariant
		case errors.As(err, &mm):
			r.out.Kind = KindModelMismatch
		case errors.As(err, &ev):
			r.out.Kind = KindEvents
		case errors.Is(err, errLiveness):
			r.out.Kind = KindLiveness
		default:
			r.out.Kind = KindSubject
		}
		r.out.Message = err.Error()
	}
	return *r.out
}

// FailureKind names why a run failed.
type FailureKind string

// The failure kinds.
const (
	KindModelMismatch FailureKind = "model-mismatch" // a transaction or event differs from model/lane's
	KindInvariant     FailureKind = "invariant"      // the committed state breaks a sim/invariants rule
	KindEvents        FailureKind = "events"         // the lane events break their contract
	KindLiveness      FailureKind = "liveness"       // the run did not finish within its budget
	KindSubject       FailureKind = "subject"        // the subject errored or broke the protocol mid-run
	KindUnavailable   FailureKind = "unavailable"    // the subject could not be started (Outcome.Unavailable)
)

// UnavailableError is a subject that could not be started or did not
// speak its protocol from the start: a Subject's Open wraps such a cause
// in it, and the campaign stops with it (exit 4, not a finding).
type UnavailableError struct{ Err error }

func (e *UnavailableError) Error() string { return "subject unavailable: " + e.Err.Error() }
func (e *UnavailableError) Unwrap() error { return e.Err }

var errLiveness = errors.New("subject: the run did not finish within its action budget")

type eventsError struct{ err error }

func (e *eventsError) Error() string { return e.err.Error() }

func (r *runner) trace(format string, args ...any) {
	r.out.Trace = append(r.out.Trace, r.ren.rename(fmt.Sprintf(format, args...)))
}

func (r *runner) race(row, order string) {
	if r.out.Races[row] == nil {
		r.out.Races[row] = map[string]bool{}
	}
	r.out.Races[row][order] = true
}

func (r *runner) path() string { return filepath.Join(r.opts.Dir, "session.jsonl") }

func (r *runner) open(reopen bool) error {
	policy := r.policy
	obs, err := r.sub.Open(OpenOptions{Session: r.opts.Session, Path: r.path(), Reopen: reopen,
		Now: startTime, Process: r.process, Lane: laneName, Model: scriptedModel, Retry: &policy})
	if err != nil {
		return err
	}
	r.inflight++ // the lane call
	r.trace("open process %d (reopen %t)", r.process, reopen)
	if reopen {
		r.reopened()
	}
	if err := r.script(); err != nil {
		return err
	}
	return r.feed(obs)
}

func (r *runner) script() error {
	evs := ScriptEnding(r.src, modelID, startTime, r.sc.Retry)
	if r.deferNext() {
		evs = deferEnding(evs, deferredHandle(r.deferredEnds))
	}
	return r.sub.Script(rawEvents(evs))
}

func (r *runner) main() error {
	if r.sc.Kill && r.sc.Retry {
		r.killAim = killEffectPending
	} else if r.sc.Kill {
		r.killAim = r.src.Intn("kill aim", killAims)
		r.trace("kill aim %d", r.killAim)
	}
	if r.sc.Kill && r.sc.Snapshots {
		r.killAim = killEffectPending // a recovery to activate after the reopen
	}
	if r.sc.Kill && r.sc.Deferred {
		r.killAim = killPoll
	}
	if r.sc.Close {
		r.closeAim = r.src.Intn("close aim", closeAims)
		r.trace("close aim %d", r.closeAim)
	}
	if err := r.open(false); err != nil {
		return err
	}
	for r.out.Actions = 0; r.out.Actions < r.opts.MaxActions; r.out.Actions++ {
		acts := r.actions()
		if len(acts) == 0 {
			return r.end()
		}
		a := acts[choice.Weighted(r.src, "action", weights(acts))]
		if err := r.act(a); err != nil {
			return err
		}
		if r.dropped {
			return r.end()
		}
	}
	return errLiveness
}

type action struct {
	kind   string
	weight int
}

func weights(acts []action) []int {
	w := make([]int, len(acts))
	for i, a := range acts {
		w[i] = a.weight
	}
	return w
}

const (
	actCommit  = "release-commit"
	actEvent   = "release-event"
	actAdvance = "advance-clock"
	actPrompt  = "prompt"
	actResume  = "resume"
	actAbort   = "abort"
	actKill    = "kill"
	actQueue   = "queue"
	actUnqueue = "cancel-queued"
	actClose   = "close"
	actWatch   = "watch"
	actDrive   = "drive"
)

// The moments a kill aims at (drawn once per run): any, after the
// stream's terminal event (the settlement due: final-frame-vs-settlement's
// crash-between), or with nothing parked (process loss with an empty queue).
const (
	killAny = iota
	killAfterFinalEvent
	killQueueEmpty
	killAims
	// killEffectPending (retry scenarios, not drawn): the operation is at
	// assistant.effect_pending, its generation unknown to the next process
	killEffectPending
	// killPoll (deferred scenarios, not drawn): a deferred poll streams
	killPoll
)

func (r *runner) killAimed() bool {
	switch r.killAim {
	case killAfterFinalEvent:
		return r.o.liveEnded && r.o.liveResp != ""
	case killQueueEmpty:
		return len(r.obs.Parked) == 0
	case killEffectPending:
		return r.o.liveResp != ""
	case killPoll:
		return r.polling()
	}
	return true
}

// actions are the moves possible now.
func (r *runner) actions() []action {
	var acts []action
	if len(r.obs.Parked) > 0 {
		acts = append(acts, action{actCommit, 4})
	}
	if len(r.obs.Streams.Open) > 0 && r.obs.Streams.Open[0].Next < r.obs.Streams.Open[0].Total {
		acts = append(acts, action{actEvent, 4})
	}
	busy := len(acts) > 0
	op, _ := r.o.m.Current()
	if r.sc.Abort && !r.aborted && op != "" && r.inflight > 0 && r.o.liveResp != "" {
		acts = append(acts, action{actAbort, 1})
	}
	// a retry scenario does not lose a memory session's storage (the run
	// would end there): its live retries are what it can reach
	kill := r.sc.Kill && (!r.sc.Retry || r.opts.Session.Durable())
	if kill && r.kills < max(1, r.sc.Kills) && op != "" && r.inflight > 0 && r.killAimed() {
		w := 8 // an aimed moment is rare: take it most of the time
		if r.killAim == killAny || r.killAim == killEffectPending {
			w = 1 // effect_pending lasts the whole stream
		}
		acts = append(acts, action{actKill, w})
	}
	if r.sc.Close && !r.closedOnce && r.lane && r.prompts > 0 && r.closeAimed() {
		acts = append(acts, action{actClose, r.closeWeight()})
	}
	if r.sc.Snapshots && r.lane && r.snapshots < maxSnapshots {
		acts = append(acts, action{actWatch, r.snapshotWeight()})
	}
	if r.sc.Queue > 0 && r.queued < r.sc.Queue && r.lane {
		acts = append(acts, action{actQueue, 1})
	}
	if r.sc.Queue > 0 && len(r.o.m.Inbox()) > 0 && !r.unqueued {
		acts = append(acts, action{actUnqueue, 1})
	}
	if busy {
		return acts
	}
	if len(r.obs.Timers) > 0 {
		return append(acts, action{actAdvance, 1})
	}
	if r.inflight > 0 {
		return acts
	}
	if op != "" && r.sc.Deferred && !r.drove && r.deferredLeaf() {
		return append(acts, action{actResume, 1}, action{actDrive, 1})
	}
	if op != "" {
		return append(acts, action{actResume, 1})
	}
	if r.prompts < r.sc.Runs {
		return append(acts, action{actPrompt, 1})
	}
	return acts
}

func (r *runner) act(a action) error {
	var obs Obs
	var err error
	switch a.kind {
	case actCommit:
		if len(r.obs.Parked) > 0 {
			r.trace("release commit %s", describe(r.obs.Parked[0].Writes))
		}
		obs, err = r.sub.ReleaseCommit(0)
	case actEvent:
		r.observeEventRelease()
		r.trace("release event %d of stream %d", r.obs.Streams.Open[0].Next, r.obs.Streams.Open[0].Stream)
		obs, err = r.sub.ReleaseEvent()
	case actAdvance:
		r.trace("advance clock to %v", r.obs.Timers[0])
		obs, err = r.sub.Advance(r.obs.Timers[0])
	case actPrompt:
		r.prompts++
		r.o.run = r.runFor(fmt.Sprintf("prompt %d", r.prompts))
		r.inflight++
		r.trace("prompt %q", r.o.run.UserText)
		obs, err = r.sub.Start(CallPrompt, r.o.run.UserText)
	case actResume:
		r.inflight++
		r.o.permit = true // Lane.resume drives with pollDeferred
		r.trace("resume")
		obs, err = r.sub.Start(CallResume, "")
	case actAbort:
		r.aborted = true
		r.inflight++
		r.o.m.BeginAbort()
		r.trace("abort")
		obs, err = r.sub.Start(CallAbort, "")
	case actDrive:
		r.inflight++
		r.drove = true
		op, _ := r.o.m.Current()
		r.trace("drive without a poll permit")
		obs, err = r.sub.Start(CallDrive, op)
	case actKill:
		return r.kill()
	case actClose:
		return r.close()
	case actWatch:
		r.snapshots++
		r.inflight++
		r.trace("watch (snapshot)")
		obs, err = r.sub.Start(CallWatch, "")
	case actQueue:
		r.queued++
		call := []Call{CallSteer, CallFollowUp, CallNextRun}[r.src.Intn("queue kind", 3)]
		text := fmt.Sprintf("%s %d", call, r.queued)
		r.inflight++
		r.trace("%s %q", call, text)
		obs, err = r.sub.Start(call, text)
	case actUnqueue:
		r.unqueued = true
		inbox := r.o.m.Inbox()
		id := inbox[r.src.Intn("cancel queued", len(inbox))].EntryID
		r.inflight++
		r.trace("cancelQueued %s", id)
		obs, err = r.sub.Start(CallCancelQueued, id)
	}
	if err != nil {
		return err
	}
	return r.feed(obs)
}

// observeEventRelease records the race orders a provider event's release
// decides: whether the previous frame's append committed first, and for
// the terminal event whether every append is done.
func (r *runner) observeEventRelease() {
	s := r.obs.Streams.Open[0]
	_, _, queued := r.o.m.OldestQueuedFrame()
	if s.Next > 0 {
		if queued {
			r.race(lanesim.RowAppendNext, lanesim.OrderNextQueuedBehind)
		} else {
			r.race(lanesim.RowAppendNext, lanesim.OrderCommittedBeforeNext)
		}
	}
	if s.Next == s.Total-1 {
		if queued {
			r.race(lanesim.RowAppendSettle, lanesim.OrderSettlementAwaitsAppends)
		} else {
			r.race(lanesim.RowAppendSettle, lanesim.OrderAppendsDoneAtEnd)
		}
	}
}

// raceRecovery records unknown-generation-vs-retry's order for a
// recovery's settlement of an operation that was not cancelled (pi's
// runtime/drive/recovery.ts settling through response.ts
// settleAssistantResponse with recovery: true): retry_wait while
// attempts are left, else the run's terminal in the same transaction.
func (r *runner) raceRecovery(ws []Write) {
	_, st, err := opStateIn(ws)
	switch {
	case err == nil && st != nil && st.At == "assistant.retry_wait":
		r.race(lanesim.RowUnknownRetry, lanesim.OrderSyntheticThenRetry)
	case err == nil && st == nil:
		r.race(lanesim.RowUnknownRetry, lanesim.OrderSyntheticThenFailAtCap)
	}
}

// kill ends the process: a durable session reopens in a new process and
// the run resumes; a memory session loses its storage (the parked writes
// dropped, every later commit refused) and the run ends there.
func (r *runner) kill() error {
	r.killed = true
	r.kills++
	if len(r.obs.Parked) > 0 {
		r.race(lanesim.RowQueuedLoss, lanesim.OrderQueuedLost)
	} else {
		r.race(lanesim.RowQueuedLoss, lanesim.OrderQueueEmpty)
	}
	if r.o.liveEnded && r.o.liveResp != "" {
		r.race(lanesim.RowFinalFrame, lanesim.OrderCrashBetween)
	}
	if !r.opts.Session.Durable() {
		r.trace("drop parked commits (storage loss)")
		obs, err := r.sub.DropParked()
		if err != nil {
			return err
		}
		r.dropped = true
		return r.feed(obs)
	}
	r.trace("kill process %d (%d commits parked)", r.process, len(r.obs.Parked))
	if err := r.sub.Kill(); err != nil {
		return err
	}
	if err := r.checkEvents(false); err != nil {
		return err
	}
	r.o.crash()
	r.eventBase = len(r.o.m.EventsShared())
	r.implBase = len(r.events)
	r.eventsTolerated = 0
	r.inflight, r.obs, r.lane, r.drove = 0, Obs{}, false, false
	r.process++
	return r.open(true)
}

// feed hands one report to the oracle, in the order things happened:
// commits (a released commit landed first), provider requests, consumed
// events with their frames, call completions.
func (r *runner) feed(obs Obs) error {
	r.o.now = obs.Now
	for _, c := range obs.Commits {
		_, cancelled := r.o.m.Current()
		r.o.recovered = false
		if r.closed && !r.closeParked[c.N] {
			return fmt.Errorf("subject: a commit admitted after Harness.close landed: %s", describe(c.Writes))
		}
		if err := r.inv.commit(c.Writes, r.frameAppend(c.Writes)); err != nil {
			r.trace("committed: %s", describe(c.Writes))
			return err
		}
		kind, err := r.o.commit(c.Writes)
		if kind == txStep && r.o.recovered && !cancelled {
			r.raceRecovery(c.Writes)
		}
		if kind == txStep {
			r.pollIntent(c.Writes)
		}
		if kind == txStep && r.o.recovered {
			r.inv.synthetic(c.Writes)
		}
		if kind == txStep && r.o.recovered && r.pendingActivation != "" {
			r.race(lanesim.RowActivationSnap, lanesim.OrderActivationFirst)
			r.pendingActivation = ""
		}
		r.trace("committed %s: %s", kind, describe(c.Writes))
		if err != nil {
			return err
		}
		switch kind {
		case txFrame:
			r.fcommit++
			if r.updates >= r.fcommit-1 {
				r.race(lanesim.RowUpdateCommit, lanesim.OrderEventFirst)
			} else {
				r.race(lanesim.RowUpdateCommit, lanesim.OrderCommitFirst)
			}
		case txStep:
			if r.o.plan == nil && r.o.liveResp == "" && r.settledLive {
				r.settledLive = false
				r.race(lanesim.RowFinalFrame, lanesim.OrderSettledInProcess)
			}
		}
	}
	if r.closed {
		return r.feedClosed(obs)
	}
	for range obs.Requests {
		r.trace("provider request")
		if err := r.o.request(); err != nil {
			return err
		}
		r.updates, r.fcommit, r.settledLive = 0, 0, true
		if err := r.script(); err != nil {
			return err
		}
	}
	frames := obs.Frames
	for _, c := range obs.Consumed {
		ev, err := pi.ParseStreamEvent(string(c.Event))
		if err != nil {
			return fmt.Errorf("subject: consumed event %s: %w", c.Event, err)
		}
		var frame json.RawMessage
		if ev.Type != pi.EventDone && ev.Type != pi.EventError && len(frames) > 0 {
			if string(frames[0].Frame) != "null" {
				frame = frames[0].Frame
			}
			frames = frames[1:]
		}
		if frame != nil {
			r.inv.enqueued(r.o.liveOp, r.o.liveResp, r.o.liveEvents, ev.Type)
		}
		if err := r.o.consumed(ev, frame); err != nil {
			return err
		}
	}
	if len(frames) > 0 {
		return fmt.Errorf("subject: %d encoder outputs without a consumed event", len(frames))
	}
	for _, e := range obs.Events {
		s, ok := eventString(e)
		if !ok {
			continue
		}
		if strings.HasPrefix(s, "message_update") {
			r.updates++
		}
		if s == "message_start(recovery)" {
			if err := r.o.recoveryStart(); err != nil {
				return err
			}
		}
		if s == "message_end" {
			r.inv.messageEnd(r.o.liveResp)
		}
		// a poll replacing an orphan streams live, recovery-tagged
		// (runtime/drive/deferred.ts recoverDeferredPoll)
		if s == "message_end" || s == "message_end(recovery)" && r.polling() {
			if err := r.o.messageEnd(); err != nil {
				return err
			}
		}
		r.events = append(r.events, s)
	}
	for _, c := range obs.Calls {
		r.inflight--
		if c.Name == CallLane {
			r.lane = c.OK
		}
		if c.Name == CallResume {
			r.o.permit = false // the drive ended: its permit with it
		}
		if c.OK {
			r.trace("call %s returned", c.Name)
		} else {
			r.trace("call %s failed: %s", c.Name, c.Error)
		}
		if c.Name == CallDrive {
			if err := r.driveReturned(c); err != nil {
				return err
			}
		}
		if c.Name == CallWatch && !(r.dropped && !c.OK) { // a lost storage faults the harness
			if !c.OK {
				return fmt.Errorf("subject: Lane.watch failed: %s", c.Error)
			}
			if err := r.inv.snapshot(c.Value); err != nil {
				return err
			}
			if err := r.checkSnapshot(c.Value); err != nil {
				return err
			}
		}
	}
	r.obs = obs
	return r.checkEvents(false)
}

// checkEvents compares the subject's events of this process with the
// model's: a prefix while the run goes on, all of them at its end.
func (r *runner) checkEvents(exact bool) error {
	got := r.events[r.implBase:]
	want := r.o.m.EventsShared()[r.eventBase:]
	ok := len(got) <= len(want) && (!exact || len(got) == len(want))
	for i := 0; ok && i < len(got); i++ {
		e, id := eventAs(want[i], got[i])
		ok = e == got[i]
		if ok && id != "" && i >= r.eventsTolerated {
			r.o.divergences[id]++
		}
	}
	if ok {
		r.eventsTolerated = len(got)
		return nil
	}
	return &eventsError{fmt.Errorf("events differ from model/lane's\n subject: %v\n model:   %v", got, want)}
}

// end: nothing more can happen. The model's step must be one that commits
// nothing, and the events must be all the model says were due.
func (r *runner) end() error {
	if r.dropped {
		return nil // the harness faulted on the lost storage: what it did before was compared
	}
	if err := r.inv.check("at the run's end", nil); err != nil {
		return err
	}
	if err := r.o.idle(); err != nil {
		return err
	}
	if op, _ := r.o.m.Current(); op != "" {
		return fmt.Errorf("%w: operation %s is still current", errLiveness, op)
	}
	r.trace("end")
	return r.checkEvents(true)
}

// deref is *p, "" for nil (pi's null tip).
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// eventString names a subject's lane event as model/lane does, with the
// members the lockstep compares written by model/lane's own functions.
func eventString(raw json.RawMessage) (string, bool) {
	var e struct {
		Type        string            `json:"type"`
		Recovery    bool              `json:"recovery"`
		Status      string            `json:"status"`
		Property    string            `json:"property"`
		Reason      string            `json:"reason"`
		OperationID string            `json:"operationId"`
		Steer       []json.RawMessage `json:"steer"`
		FollowUp    []json.RawMessage `json:"followUp"`
		// run_end (runtime/drive/response.ts, boundary.ts, reconcile.ts)
		Error *struct {
			Code    string          `json:"code"`
			Message string          `json:"message"`
			Details json.RawMessage `json:"details"`
		} `json:"error"`
		FromTipID *string `json:"fromTipId"`
		TipID     *string `json:"tipId"`
		EndedAt   float64 `json:"endedAt"`
		StartedAt float64 `json:"startedAt"`
		// retry_scheduled, retry_start, retry_end (response.ts, generation.ts)
		Step         string  `json:"step"`
		Attempt      int     `json:"attempt"`
		MaxAttempts  int     `json:"maxAttempts"`
		DelayMs      float64 `json:"delayMs"`
		NotBefore    float64 `json:"notBefore"`
		ErrorMessage string  `json:"errorMessage"`
		Success      bool    `json:"success"`
		FinalError   *string `json:"finalError"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return "", false
	}
	s := e.Type
	if e.Recovery {
		s += "(recovery)"
	}
	switch e.Type {
	case "fault", "handler_error":
		return "", false // the harness's own reports, not lane lifecycle
	case "run_end":
		r := ml.Result{Status: e.Status, FromTipID: deref(e.FromTipID), TipID: deref(e.TipID)}
		if e.Error != nil {
			r.ErrorCode, r.ErrorMessage = e.Error.Code, e.Error.Message
			if len(e.Error.Details) > 0 {
				r.ErrorDetails = ml.Canonical(e.Error.Details)
			}
		}
		return ml.RunEndEvent(r, e.EndedAt), true
	case "config_update":
		s += ":" + e.Property
	case "compaction_start":
		return ml.CompactionStartEvent(e.Reason, e.StartedAt), true
	case "retry_scheduled":
		return ml.RetryScheduledEvent(e.Step, e.Attempt, e.MaxAttempts, e.DelayMs, e.NotBefore, e.ErrorMessage), true
	case "retry_start":
		return ml.RetryStartEvent(e.Step, e.Attempt), true
	case "retry_end":
		return ml.RetryEndEvent(e.Step, e.Attempt, e.Success, e.FinalError), true
	case "operation_abort":
		canon := func(rs []json.RawMessage) []string {
			out := make([]string, len(rs))
			for i, r := range rs {
				out[i] = ml.Canonical(r)
			}
			return out
		}
		return ml.AbortEvent(e.OperationID, canon(e.Steer), canon(e.FollowUp)), true
	}
	return s, true
}
