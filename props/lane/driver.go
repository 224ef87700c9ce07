// Package lane runs impl/lane and model/lane in lockstep on the same
// choices (a rapid-driven driver) and compares them after every step with
// sim/lanecmp: committed state read back from the storage backend, emitted
// events, step results and snapshots.
package lane

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
	modelframes "github.com/frameproof/frameproof/model/frames"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/lanecmp"
	"pgregory.net/rapid"
)

// Options configure one lockstep run.
type Options struct {
	Backend string // a name from impl/store/backends (default memory)
	// Configure, when set, adjusts each lane process's Config before it
	// opens; the bug tests (-tags frameproofbugs) switch bugs on with it.
	Configure func(lane.Config) (lane.Config, error)
	Mutant    string // model/lane Config.Mutant
	Actions   int    // top-level actions (0: 12)
	// Deferred biases runs toward deferred responses and poll permits
	// (polls, orphaned polls and their replacement).
	Deferred bool
	// Stats, when set, counts what the run exercised (coverage, not
	// verdicts): step kinds, frame outcomes, restarts, comparisons.
	Stats *Stats
	// Rewrite, when set, changes each transaction the lane commits before
	// storage sees it: an outside stand-in for an implementation that writes
	// wrong values (tests prove the comparison catches it).
	Rewrite func([]store.Write) []store.Write
	// Tools configures tools on both sides (tools.go): settled tool calls
	// run as pi's batch instead of waiting.
	Tools bool
}

// Stats counts what runs exercised.
type Stats struct {
	mu     sync.Mutex
	Counts map[string]int
}

func (s *Stats) add(k string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.Counts == nil {
		s.Counts = map[string]int{}
	}
	s.Counts[k]++
	s.mu.Unlock()
}

const laneName = "main"

// driver runs impl/lane and model/lane side by side on one rapid.T.
type driver struct {
	reader lanecmp.Reader // memo of derived stored records across the run's compares
	t      *rapid.T
	opts   Options
	be     backends.Backend // the row of opts.Backend
	dir    string
	clock  *envtest.Clock
	ids    *envtest.IDs
	g      *gate
	exec   *gateExec
	under  store.Storage
	lane   *lane.Lane
	model  *ml.Model
	hookX  bool // after_response sets responseModel
	// gen is the last run's generation configuration, which a reopened
	// process reads at a run boundary (pi keeps it durable)
	gen *lane.GenerationConfig

	mu         sync.Mutex // model, impl events, failure
	implEvents []string
	lost       bool // the current process crashed or closed
	err        error
	frameKeys  map[string]bool
	finalizes  []finalizeReq
	fedIntent  map[string]bool
	cancelled  bool
	honorAbort bool
	finalized  bool // a FinalizeAsync was issued during this stream
	checks     int
	// ackedTX are the acknowledged transactions' writes, in commit order
	ackedTX [][]ml.TXWrite
}

type finalizeReq struct{ status, code, msg string }

// Run drives one random lockstep run and returns the first disagreement.
func Run(t *rapid.T, opts Options) (err error) {
	d := &driver{t: t, opts: opts, clock: envtest.NewClock(envtest.Epoch), ids: &envtest.IDs{}, g: newGate(),
		frameKeys: map[string]bool{}, fedIntent: map[string]bool{}}
	name := opts.Backend
	if name == "" {
		name = "memory"
	}
	if d.be, err = backends.ByName(name); err != nil {
		return fmt.Errorf("props/lane: %w", err)
	}
	if d.be.Durable {
		dir, err := os.MkdirTemp("", "props-lane-*")
		if err != nil {
			return err
		}
		d.dir = dir
		defer os.RemoveAll(dir)
	}
	d.exec = &gateExec{g: d.g, inner: env.Goroutines{}, onFinalize: d.onFinalize}
	d.g.onDeath = d.markLost
	d.hookX = rapid.Bool().Draw(t, "hookTransforms")
	d.model = ml.New(ml.Config{
		Lane: laneName, Now: d.clock.NowMs,
		NewObserver: func() ml.Observer { return modelframes.NewObserver() },
		AfterResponse: func(m *pi.AssistantMessage) *pi.AssistantMessage {
			return d.transform(m)
		},
		SkipStaleSettlement: true, // as the lane's: finalizations race drive steps here
		HoldToolBatches:     true, // as the lane's without Options.Tools
		Mutant:              opts.Mutant,
	})
	if opts.Tools {
		d.model = ml.New(ml.Config{
			Lane: laneName, Now: d.clock.NowMs,
			NewObserver: func() ml.Observer { return modelframes.NewObserver() },
			AfterResponse: func(m *pi.AssistantMessage) *pi.AssistantMessage {
				return d.transform(m)
			},
			SkipStaleSettlement: true, // as the lane's
			Mutant:              opts.Mutant, Tools: modelTools(), SequentialTools: true,
		})
	}
	if err := d.openStorage(true); err != nil {
		return err
	}
	defer func() {
		if d.lane != nil {
			_ = d.lane.Close()
		}
		_ = d.under.Close()
	}()
	if err := d.openLane(); err != nil {
		return err
	}
	n := opts.Actions
	if n == 0 {
		n = 12
	}
	for i := 0; i < n && d.failure() == nil; i++ {
		d.action()
	}
	return d.failure()
}

// ---- failures ----

func (d *driver) fail(err error) {
	if err == nil {
		return
	}
	d.mu.Lock()
	if d.err == nil {
		d.err = err
	}
	d.mu.Unlock()
}

func (d *driver) failure() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

func (d *driver) isLost() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lost
}

func (d *driver) markLost() {
	d.mu.Lock()
	d.lost = true
	d.mu.Unlock()
}

// ---- storage and process ----

func (d *driver) openStorage(create bool) error {
	e := env.Env{Clock: d.clock, FS: env.OSFS{}, IDs: &envtest.IDs{}, Executor: env.Goroutines{}}
	var err error
	switch {
	case create:
		d.under, err = d.be.Create(e, d.dir, backends.Options{})
	case d.be.Durable:
		d.under, err = d.be.Open(e, d.dir, backends.Options{})
	}
	if err != nil {
		return fmt.Errorf("props/lane: open %s storage: %w", d.be.Name, err)
	}
	return nil
}

func (d *driver) openLane() error {
	crashAt := 0
	if rapid.IntRange(0, 3).Draw(d.t, "crashPlanned") == 0 {
		crashAt = rapid.IntRange(1, 60).Draw(d.t, "crashAtCommit")
	}
	d.g.reset(crashAt)
	d.mu.Lock()
	d.lost, d.finalizes = false, nil
	d.mu.Unlock()
	cfg := lane.Config{
		Name: laneName, Storage: &gatedStore{Storage: d.under, g: d.g, acked: d.onAck, rewrite: d.opts.Rewrite}, Clock: d.clock, IDs: d.ids, Exec: d.exec,
		Provider: d, Listener: d.listener, AfterResponse: d.hook, OnFrame: d.onFrame,
		SkipStaleSettlement: true, // finalizations race drive steps here
		Generation:          d.gen,
		// without Options.Tools a settled batch waits for the driver,
		// which ends the operation itself
		HoldToolBatches: !d.opts.Tools,
		// the rapid lockstep pins runSequential's order (the option; the
		// model is told so); sim/lanesim runs pi's default runParallel
		ToolExecution: lane.ToolsSequential,
	}
	if d.opts.Tools {
		cfg.Tools = d.laneTools()
	}
	var err error
	if d.opts.Configure != nil {
		if cfg, err = d.opts.Configure(cfg); err != nil {
			return fmt.Errorf("props/lane: configure lane: %w", err)
		}
	}
	l, err := lane.Open(cfg)
	if err != nil {
		return fmt.Errorf("props/lane: reopen lane: %w", err)
	}
	d.lane = l
	d.check("open", true)
	return nil
}

// restart ends the lost process and opens a fresh one on what storage kept.
func (d *driver) restart() {
	d.opts.Stats.add("restart")
	d.model.Crash()
	_ = d.lane.Close()
	d.g.quiesce()
	if d.be.Durable {
		_ = d.under.Close()
		if err := d.openStorage(false); err != nil {
			d.fail(err)
			return
		}
	}
	if err := d.openLane(); err != nil {
		d.fail(err)
	}
}

// ---- comparison ----

// check compares committed state, events (exactly, or as a prefix) and the
// snapshot.
func (d *driver) check(where string, exact bool) {
	if d.failure() != nil || d.isLost() {
		return
	}
	d.mu.Lock()
	keys := make([]string, 0, len(d.frameKeys))
	for k := range d.frameKeys {
		keys = append(keys, k)
	}
	impl := append([]string(nil), d.implEvents...)
	d.checks++
	d.opts.Stats.add("check")
	d.mu.Unlock()
	wrap := func(err error) error {
		if err == nil {
			return nil
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	if err := d.reader.Compare(d.under, d.model, keys...); err != nil {
		d.fail(wrap(err))
		return
	}
	if err := d.compareTXLog(exact); err != nil {
		d.fail(wrap(err))
		return
	}
	if err := lanecmp.CompareEvents(impl, d.model.Events(), exact); err != nil {
		d.fail(wrap(err))
		return
	}
	if exact {
		s, err := d.lane.Snapshot()
		if err != nil {
			d.fail(wrap(err))
			return
		}
		d.fail(wrap(lanecmp.CompareSnapshot(s, d.model)))
	}
}

// onAck records an acknowledged transaction (the lane's commits run on its
// line, one at a time).
func (d *driver) onAck(ws []store.Write) {
	tx := lanecmp.TXWrites(ws)
	d.mu.Lock()
	d.ackedTX = append(d.ackedTX, tx)
	if d.opts.Tools && !d.lost {
		if feed, name := toolInput(d.model, ws); feed != nil {
			d.opts.Stats.add("tx:" + name)
			d.failLocked(feed())
		}
	}
	d.mu.Unlock()
}

// compareTXLog compares the acknowledged transactions, write by write and in
// order, with the write lists the model applied: a prefix of them between
// steps, all of them at exact checks.
func (d *driver) compareTXLog(exact bool) error {
	d.mu.Lock()
	acked := append([][]ml.TXWrite(nil), d.ackedTX...)
	d.mu.Unlock()
	want := d.model.TXLog()
	n := min(len(acked), len(want))
	for i := 0; i < n; i++ {
		if err := lanecmp.DiffTX(acked[i], want[i]); err != nil {
			return fmt.Errorf("transaction %d: %w", i, err)
		}
	}
	if exact && len(acked) != len(want) {
		return fmt.Errorf("%d transactions acknowledged, the model applied %d (next: impl %v, model %v)", len(acked), len(want),
			nextTX(acked, n), nextTX(want, n))
	}
	return nil
}

func nextTX(l [][]ml.TXWrite, i int) string {
	if i < len(l) {
		return lanecmp.ListTX(l[i])
	}
	return "none"
}

// ---- top-level actions ----

func (d *driver) action() {
	cur := d.lane.Current()
	switch a := rapid.IntRange(0, 15).Draw(d.t, "action"); {
	case cur == nil && a < 13:
		d.startRun()
	case a == 13:
		d.cancel()
	case a == 14:
		d.finalize()
	case a == 15:
		if err := d.lane.Close(); err != nil {
			d.fail(fmt.Errorf("close: %w", err))
		}
		d.model.Close()
		d.markLost()
		d.restart()
	default:
		permit := rapid.Bool().Draw(d.t, "permit")
		if d.opts.Deferred {
			permit = rapid.IntRange(0, 3).Draw(d.t, "permitBiased") > 0
		}
		d.step(permit)
	}
	if d.isLost() {
		d.restart()
	}
}

func (d *driver) startRun() {
	run := ml.Run{UserText: "hi", Model: ml.ModelRef{Provider: "openai", ModelID: "gpt-test"},
		MaxAttempts: rapid.IntRange(1, 3).Draw(d.t, "maxAttempts"), BaseDelayMs: 1000}
	if rapid.Bool().Draw(d.t, "capRetryDelay") { // else pi-ai's default cap, 60 s
		limit := 1500.0
		run.MaxAgentDelayMs = &limit
	}
	drawRunContext(d.t, &run)
	if d.opts.Tools && run.ActiveToolNames == nil {
		run.ActiveToolNames = []string{"read"} // tool runs need an active tool
	}
	// settings.compaction with a drawn keepRecentTokens, so an overflow's
	// preparation cuts the transcript anywhere
	run.Compaction = &ml.Compaction{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: float64(rapid.IntRange(0, 40).Draw(d.t, "keepRecentTokens"))}
	settings, err := withCompaction(run.Settings, *run.Compaction)
	if err != nil {
		d.fail(err)
		return
	}
	run.Settings = settings
	opts := lane.RunOptions{UserText: run.UserText,
		Configuration: lane.Configuration{Model: lane.ModelRef{Provider: run.Model.Provider, ModelID: run.Model.ModelID},
			ThinkingLevel: run.ThinkingLevel, ActiveToolNames: run.ActiveToolNames},
		RetryPolicy: lane.RetryPolicy{MaxAttempts: run.MaxAttempts, BaseDelayMs: run.BaseDelayMs, MaxAgentDelayMs: run.MaxAgentDelayMs},
		Settings:    run.Settings, StreamOptions: run.StreamOptions}
	d.gen = &lane.GenerationConfig{Configuration: opts.Configuration, StreamOptions: opts.StreamOptions, RetryPolicy: opts.RetryPolicy}
	d.mu.Lock()
	before := len(d.ackedTX)
	d.mu.Unlock()
	op, err := d.lane.StartRun(opts)
	d.g.quiesce()
	if d.isLost() {
		// the lane's acquisition may have committed some of its
		// transactions (one per setter) before the loss
		d.mu.Lock()
		for _, tx := range d.ackedTX[min(before, len(d.ackedTX)):] {
			if slices.ContainsFunc(tx, func(w ml.TXWrite) bool { return w.Namespace == lane.NSLaneConfig }) {
				d.model.Acquire(runLaneConfig(run))
			}
		}
		d.mu.Unlock()
		return
	}
	if err != nil {
		d.fail(fmt.Errorf("start run: %w", err))
		return
	}
	cur := d.lane.Current()
	if cur == nil || cur.ID != op || len(cur.Meta.PromptEntryIDs) != 1 {
		d.fail(fmt.Errorf("start run: operation %s not current after commit", op))
		return
	}
	d.mu.Lock()
	// the run brings its configuration: pi.lane.config is created or
	// replaced first when it is not the lane's (the model decides), one
	// transaction per setter
	for d.model.Acquire(runLaneConfig(run)) {
	}
	d.fail(d.model.StartRun(op, cur.Meta.PromptEntryIDs[0], run))
	d.mu.Unlock()
	d.check("start run", true)
}

func (d *driver) cancel() {
	if d.isLost() || d.failure() != nil {
		return
	}
	d.mu.Lock()
	d.model.BeginAbort()
	d.mu.Unlock()
	err := d.lane.RequestCancel()
	d.g.quiesce()
	if d.isLost() {
		return
	}
	if err != nil {
		d.fail(fmt.Errorf("cancel: %w", err))
		return
	}
	d.mu.Lock()
	d.model.Cancel()
	d.mu.Unlock()
	d.check("cancel", true)
}

// finalizeStatuses: the last request carries an error without failing,
// which pi's operationResultRecord refuses (runtime/drive/terminal.ts).
var finalizeStatuses = []finalizeReq{{"aborted", "", ""}, {"failed", "external", "finalized by operator"}, {"completed", "", ""},
	{"aborted", "external", "refused"}}

func (d *driver) finalizeReq() finalizeReq {
	return finalizeStatuses[rapid.IntRange(0, len(finalizeStatuses)-1).Draw(d.t, "finalizeStatus")]
}

func (d *driver) finalize() {
	r := d.finalizeReq()
	d.mu.Lock()
	d.finalizes = append(d.finalizes, r)
	d.mu.Unlock()
	err := d.lane.Finalize(r.status, opErr(r))
	d.g.quiesce()
	if d.isLost() {
		return
	}
	if err != nil && !errors.Is(err, lane.ErrNoOperation) && !errors.Is(err, lane.ErrResultError) {
		d.fail(fmt.Errorf("finalize: %w", err))
	}
	d.check("finalize", true)
}

func opErr(r finalizeReq) *lane.OpError {
	if r.code == "" {
		return nil
	}
	return &lane.OpError{Code: r.code, Message: r.msg}
}

// onFinalize runs on the line at the finalization's turn.
func (d *driver) onFinalize(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.finalizes) == 0 {
		d.failLocked(fmt.Errorf("finalization resolved that the driver never issued"))
		return
	}
	r := d.finalizes[0]
	d.finalizes = d.finalizes[1:]
	if d.lost || (err != nil && !errors.Is(err, lane.ErrNoOperation) && !errors.Is(err, lane.ErrResultError)) {
		return // it never ran: the line was sealed by a crash, fault or close
	}
	committed, refusal := d.model.Finalize(r.status, r.code, r.msg)
	d.opts.Stats.add(fmt.Sprintf("finalize:committed=%t,refused=%t", committed, refusal != nil))
	if committed != (err == nil) || (refusal != nil) != errors.Is(err, lane.ErrResultError) {
		d.failLocked(fmt.Errorf("finalize %s: model committed=%t refusal=%v, impl err=%v", r.status, committed, refusal, err))
	}
}

func (d *driver) failLocked(err error) {
	if d.err == nil {
		d.err = err
	}
}

func stepKind(k lane.StepKind) string { return k.String() }

func (d *driver) step(permit bool) {
	if d.failure() != nil {
		return
	}
	d.mu.Lock()
	exp, err := d.model.Step(permit)
	d.cancelled, d.honorAbort, d.finalized = false, false, false
	d.mu.Unlock()
	if err != nil {
		d.fail(err)
		return
	}
	d.opts.Stats.add("step:" + exp.Kind)
	res, serr := d.lane.Step(lane.StepOptions{DeferredPermit: permit, WaitForRetry: true})
	d.g.quiesce()
	d.mu.Lock()
	lost := d.lost
	d.mu.Unlock()
	if lost {
		d.mu.Lock()
		_, err := d.model.StepDone(false)
		d.mu.Unlock()
		d.fail(err)
		return
	}
	if serr != nil {
		d.fail(fmt.Errorf("step (%s) failed without a crash: %w", exp.Kind, serr))
		return
	}
	d.mu.Lock()
	if cur := d.lane.Current(); exp.Kind == "checkpoint" && cur != nil && cur.State.At == lane.LeafAssistantReady {
		// the step id the boundary minted (an id, like the entry ids)
		d.failLocked(d.model.Checkpoint(cur.State.Gen.StepID))
	}
	out, err := d.model.StepDone(true)
	d.mu.Unlock()
	if err != nil {
		d.fail(err)
		return
	}
	got := ml.Outcome{Kind: stepKind(res.Kind), Reason: res.Reason, Status: res.Status}
	if got != out {
		d.fail(fmt.Errorf("step (%s): impl returned %+v, model expects %+v", exp.Kind, got, out))
		return
	}
	d.check("step "+exp.Kind, true)
}

// ---- impl callbacks ----

func (d *driver) listener(ev lane.Event) env.Future {
	d.mu.Lock()
	if d.lost {
		d.mu.Unlock()
		return nil
	}
	d.implEvents = append(d.implEvents, lanecmp.EventString(ev))
	d.opts.Stats.add("event:" + lanecmp.EventName(ev))
	d.mu.Unlock()
	switch ev.Type {
	case lane.EvMessageStart:
		if ev.ToolMessage != nil {
			// materializeReady read results to place and announces them
			// before the placement commits (once per read)
			d.mu.Lock()
			d.failLocked(d.model.ToolPlacementRead())
			d.mu.Unlock()
		}
	case lane.EvTurnStart:
		if cur := d.lane.Current(); cur != nil && cur.State.At == lane.LeafTools {
			break // a tool batch's recovery (runTools), not an intent
		}
		d.feedIntent()
	case lane.EvEntryAdded:
		if ev.Prompt != nil || ev.ToolMessage != nil {
			break // the run's prompt entry or a placed tool result, not a settlement
		}
		ids := d.plannedToolResults()
		d.mu.Lock()
		err := d.model.PlanToolResults(ids)
		if err == nil {
			err = d.model.Settle()
		}
		d.mu.Unlock()
		d.fail(err)
		d.check("entry_added", false)
	}
	return nil
}

// feedIntent tells the model the intent the implementation committed, with
// the ids it minted (read from its in-process state).
func (d *driver) feedIntent() {
	cur := d.lane.Current()
	if cur == nil || !cur.State.At.IsEffectPending() {
		d.fail(fmt.Errorf("intent: no effect_pending operation after the intent"))
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fedIntent[cur.State.ResponseEntryID] {
		return
	}
	d.fedIntent[cur.State.ResponseEntryID] = true
	if err := d.model.Intent(cur.ID, cur.State.ResponseEntryID, cur.State.UsageID, cur.State.Attempt); err != nil {
		d.failLocked(err)
	}
}

func (d *driver) onFrame(r lane.FrameRecord) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lost {
		return
	}
	var err error
	d.opts.Stats.add("frame:" + string(r.Outcome))
	switch r.Outcome {
	case lane.FrameEnqueued:
		d.frameKeys[ml.FramesKey(r.OperationID, r.ResponseEntryID)] = true
		err = d.model.FrameEnqueued(r.ResponseEntryID, r.EventIndex, r.EventType, r.Frame)
	case lane.FrameCommitted:
		err = d.model.FrameCommitted(r.ResponseEntryID, r.EventIndex)
	case lane.FrameDeclined:
		err = d.model.FrameDeclined(r.ResponseEntryID, r.EventIndex)
	case lane.FrameFailed:
		if !d.g.isDead() {
			err = fmt.Errorf("frame %s:%d failed without a crash", r.ResponseEntryID, r.EventIndex)
		}
	}
	d.failLocked(err)
}

func (d *driver) hook(m *pi.AssistantMessage) (*pi.AssistantMessage, error) {
	d.mu.Lock()
	if !d.lost {
		d.failLocked(d.model.AfterResponse())
	}
	d.mu.Unlock()
	return d.transform(m), nil
}

func (d *driver) transform(m *pi.AssistantMessage) *pi.AssistantMessage {
	if d.hookX {
		m.ResponseModel = pi.Str("after-hook")
	}
	return m
}

// runLaneConfig is the configuration a run brings to its lane.
func runLaneConfig(run ml.Run) ml.LaneConfig {
	return ml.LaneConfig{Model: run.Model, ThinkingLevel: run.ThinkingLevel, ActiveToolNames: run.ActiveToolNames}
}
